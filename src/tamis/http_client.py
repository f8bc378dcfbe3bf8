"""The HTTP client tamis makes: an ``httpx.AsyncClient`` whose TLS certificates are loaded on
the first https connection, not when the client is made.

httpx builds its SSL context in the client's constructor, and loading certifi's CA bundle
costs about 25 ms of CPU; a CLI call whose lines are all plain http (a local SearXNG) never
needs it. ``DeferredCAContext`` is a real ``ssl.SSLContext`` with the settings of
``ssl.create_default_context``; it loads the same CA bundle httpx would (``SSL_CERT_FILE``,
``SSL_CERT_DIR``, else certifi) just before it wraps its first connection.

Every HTTP client in tamis is made here (a structure test holds it): ``tamis_client`` for
backends and pages (no cookies, no redirects followed, tamis's user agent), used by the core,
``tamis check`` and the health probe; ``download_client`` for the community lists (follows
redirects, sync). The fan-out asks backends through a client's carrier
(``tamis.http_exchange.exchange_for``): the service's and the CLI's carry the requests
themselves; the CLI's client does not import httpx until a page or an unusual request needs
it (``tamis.http_cli``).
"""

from __future__ import annotations

import os
import ssl
import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx

    from tamis.http_cli import CliSession

USER_AGENT = "tamis/0.1 (search layer for AI agents; +https://github.com/tamis-search/tamis)"


class DeferredCAContext(ssl.SSLContext):
    """``ssl.create_default_context(cafile=...)``, with the CA bundle loaded on first use."""

    def __new__(cls, trust_env: bool = True) -> DeferredCAContext:
        context = super().__new__(cls, ssl.PROTOCOL_TLS_CLIENT)
        context._ca = _ca_location(trust_env)
        context._ca_loaded = False
        context._ca_lock = threading.Lock()
        return context

    def __init__(self, trust_env: bool = True) -> None:  # the settings are made in __new__
        super().__init__()

    def load_ca(self) -> None:
        """Load the CA bundle now (idempotent, thread-safe)."""
        if self._ca_loaded:
            return
        with self._ca_lock:
            if not self._ca_loaded:
                kind, where = self._ca
                if kind == "capath":
                    self.load_verify_locations(capath=where)
                else:
                    self.load_verify_locations(cafile=where)
                keylog = os.environ.get("SSLKEYLOGFILE")  # as create_default_context does
                if keylog:
                    self.keylog_filename = keylog
                self._ca_loaded = True

    def wrap_bio(self, *args: Any, **kwargs: Any) -> ssl.SSLObject:
        self.load_ca()
        return super().wrap_bio(*args, **kwargs)

    def wrap_socket(self, *args: Any, **kwargs: Any) -> ssl.SSLSocket:
        self.load_ca()
        return super().wrap_socket(*args, **kwargs)


def _ca_location(trust_env: bool) -> tuple[str, str]:
    """Where httpx's default ``verify=True`` finds its CA certificates."""
    if trust_env and os.environ.get("SSL_CERT_FILE"):
        return "cafile", os.environ["SSL_CERT_FILE"]
    if trust_env and os.environ.get("SSL_CERT_DIR"):
        return "capath", os.environ["SSL_CERT_DIR"]
    import certifi

    return "cafile", certifi.where()


def async_client(*, service: bool = False, cli: bool = False,
                 **options: Any) -> httpx.AsyncClient:
    """``httpx.AsyncClient(**options)``; TLS verified as httpx's default, loaded lazily.

    ``service``: for a process that makes many requests on one event loop (``tamis serve``):
    the same client over aiohttp (``tamis.http_transport``), about a quarter of the CPU a
    request; not for one CLI call, where importing aiohttp costs more than it saves.
    ``cli``: for one CLI call: the same client over asyncio's streams and h11
    (``tamis.http_asyncio``), without importing httpcore and anyio's asyncio backend."""
    import httpx

    if "verify" not in options:
        options["verify"] = DeferredCAContext(options.get("trust_env", True))
    if service:
        from tamis.http_transport import ServiceClient

        return ServiceClient(**options)
    if cli:
        from tamis.http_asyncio import CliClient

        return CliClient(**options)
    return httpx.AsyncClient(**options)


def tamis_client(timeout: float, **options: Any) -> httpx.AsyncClient | CliSession:
    """The client tamis asks backends and pages with (``options``: e.g. ``event_hooks``,
    ``service``, ``cli``: see ``async_client``). With ``cli`` alone: a ``CliSession``, the
    same client made when first needed (``tamis.http_cli``).

    No cookies: pages and backends must not track the agent across requests, and one
    site's cookies must never ride along to another request. Redirects are not followed
    (the page reader follows them itself, checking each hop)."""
    if options == {"cli": True}:
        from tamis.http_cli import CliSession

        return CliSession(timeout, USER_AGENT, lambda: {"verify": DeferredCAContext(True)})
    import http.cookiejar  # with urllib.request, http.client, email: not on the CLI's path

    import httpx

    no_cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(
        allowed_domains=[]))
    settings: dict[str, Any] = {
        "cookies": no_cookies,
        "follow_redirects": False,
        "timeout": httpx.Timeout(timeout),
        "headers": {"User-Agent": USER_AGENT},
        "limits": httpx.Limits(max_connections=100, max_keepalive_connections=20),
    }
    return async_client(**{**settings, **options})


def download_client(timeout: float) -> httpx.Client:
    """A blocking client for downloads a user asked for (``tamis lists update``)."""
    import httpx

    return httpx.Client(timeout=httpx.Timeout(timeout), follow_redirects=True,
                        max_redirects=5)
