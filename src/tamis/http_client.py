"""The HTTP clients tamis makes, all httpx, all here (a structure test holds it).

``tamis_client``: the ``httpx.AsyncClient`` a process asks backends and pages with. One per
process, made where the process starts (the CLI command, the service's and the MCP
server's ``Tamis`` layer, ``tamis check``) and passed down; its pool is shared by every
request. ``download_client``: the blocking client of ``tamis lists update``.

What tamis adds around httpx lives where it is used, at httpx's public seams: the byte caps
while a body streams in (``pipeline.fanout_read``, ``extract.fetch``), the fan-out's
deadline (``pipeline.fanout``), the private-address check of every page hop
(``extract.safety``, before the request is sent), and the scrubbing of keys out of every
error text (``tamis.redact``).
"""

from __future__ import annotations

import http.cookiejar
from typing import Any

import httpx

USER_AGENT = "tamis/0.1 (search layer for AI agents; +https://github.com/tamis-search/tamis)"

# A backend fan-out asks a few lines at once, a search with extraction ~10 pages more; the
# service serves many searches on one pool. Connections kept alive: the backends', mostly.
LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=20, keepalive_expiry=5.0)
MAX_REDIRECTS = 5  # raw file hosts (community lists) redirect once or twice


def _no_cookies() -> http.cookiejar.CookieJar:
    """A jar that refuses every cookie: pages and backends must not track the agent across
    requests, and one site's cookies must never ride along to another."""
    return http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))


def tamis_client(timeout: float, *, event_hooks: dict[str, list[Any]] | None = None
                 ) -> httpx.AsyncClient:
    """The client tamis asks backends and pages with. ``timeout``: each connect, read, write
    and pool wait (a request's whole time is bounded by its caller's deadline).

    Redirects are not followed: a backend that redirects is misconfigured, and the page
    reader follows a page's redirects itself, checking each hop's address first."""
    return httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT}, cookies=_no_cookies(),
        timeout=httpx.Timeout(timeout), limits=LIMITS,
        follow_redirects=False, max_redirects=MAX_REDIRECTS, event_hooks=event_hooks)


def download_client(timeout: float) -> httpx.Client:
    """A blocking client for downloads a user asked for (``tamis lists update``): redirects
    followed, at most ``MAX_REDIRECTS`` of them."""
    return httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=True,
                        max_redirects=MAX_REDIRECTS)
