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
import os
import ssl
import sys
import threading
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


class CertificatesOnFirstHandshake(ssl.SSLContext):
    """httpx's default certificate checks, with its CA bundle read at the first TLS handshake
    rather than when the client is made: reading the bundle costs ~0.02 s of CPU, which a
    search of plain-http lines (a SearXNG on the same host) never needs.

    As ``httpx.create_ssl_context()`` makes it: the certificate and the host name checked,
    against the file SSL_CERT_FILE names, else the folder SSL_CERT_DIR names, else certifi's
    bundle. Until the bundle is read no certificate is trusted, so a handshake that came
    before it could only fail, never pass unchecked."""

    def __new__(cls) -> CertificatesOnFirstHandshake:
        return super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)

    def __init__(self) -> None:
        super().__init__()
        if sys.version_info >= (3, 13):  # what ssl.create_default_context adds from 3.13 on
            self.verify_flags |= ssl.VERIFY_X509_PARTIAL_CHAIN | ssl.VERIFY_X509_STRICT
        self._read = False
        self._reading = threading.Lock()  # anyio may hand two first handshakes to two threads

    def _read_bundle(self) -> None:
        with self._reading:
            if self._read:
                return
            if os.environ.get("SSL_CERT_FILE"):
                self.load_verify_locations(cafile=os.environ["SSL_CERT_FILE"])
            elif os.environ.get("SSL_CERT_DIR"):
                self.load_verify_locations(capath=os.environ["SSL_CERT_DIR"])
            else:
                import certifi

                self.load_verify_locations(cafile=certifi.where())
            self._read = True

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self._read_bundle()
        return super().wrap_socket(*args, **kwargs)

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self._read_bundle()
        return super().wrap_bio(*args, **kwargs)


def tamis_client(timeout: float, *, event_hooks: dict[str, list[Any]] | None = None
                 ) -> httpx.AsyncClient:
    """The client tamis asks backends and pages with. ``timeout``: each connect, read, write
    and pool wait (a request's whole time is bounded by its caller's deadline).

    Redirects are not followed: a backend that redirects is misconfigured, and the page
    reader follows a page's redirects itself, checking each hop's address first."""
    return httpx.AsyncClient(
        headers={"User-Agent": USER_AGENT}, cookies=_no_cookies(),
        verify=CertificatesOnFirstHandshake(), timeout=httpx.Timeout(timeout), limits=LIMITS,
        follow_redirects=False, max_redirects=MAX_REDIRECTS, event_hooks=event_hooks)


def download_client(timeout: float) -> httpx.Client:
    """A blocking client for downloads a user asked for (``tamis lists update``): redirects
    followed, at most ``MAX_REDIRECTS`` of them."""
    return httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=True,
                        max_redirects=MAX_REDIRECTS)
