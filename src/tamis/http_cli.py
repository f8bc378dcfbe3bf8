"""The client of one CLI call (``tamis_client(..., cli=True)``), without importing httpx until
something needs it: the fan-out's backend requests go straight on h11 (``H11Exchange`` on a
``tamis.http_h11.Pool``); anything else (a page to extract, a request the carrier cannot
compose) makes the httpx client (``tamis.http_asyncio.CliClient``) on the same pool, with the
same settings, and every attribute not defined here is that client's.

httpx, with its imports (idna, email, http.client through urllib.request, zstandard), is
about a twentieth of a CLI search's CPU, spent before the first request.

What the httpx client would do differently is left to it: with a proxy in the environment
(``http_proxy``, ``https_proxy``, ``all_proxy``, any case) the backend requests go through
it, as httpx routes them.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

from tamis.http_exchange import Exchange, HttpxExchange
from tamis.http_h11 import H11Exchange, Pool

MAX_CONNECTIONS = 100  # tamis_client's httpx.Limits
KEEPALIVE_EXPIRY = 5.0  # httpx.Limits' default
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy")


def accept_encoding() -> str:
    """httpx's ``Accept-Encoding``: gzip, deflate, and br and zstd when their decoders are
    installed (``httpx._decoders``)."""
    names = ["gzip", "deflate"]
    if _installed("brotli") or _installed("brotlicffi"):
        names.append("br")
    if _installed("zstandard"):
        names.append("zstd")
    return ", ".join(names)


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def proxied(env: Any = None) -> bool:
    """A proxy httpx would take from the environment (``trust_env``)."""
    env = os.environ if env is None else env
    return any(value for name, value in env.items() if name.lower() in _PROXY_VARIABLES)


class CliSession:
    """``tamis_client``'s client for one CLI call: ``exchange()`` for the fan-out, the httpx
    client (made on first use) for everything else."""

    def __init__(self, timeout: float, user_agent: str,
                 settings: Callable[[], dict[str, Any]]) -> None:
        """``settings``: tamis_client's (its SSL context among them), made when first needed
        (an https connection, the httpx client): creating an SSL context costs about 1% of
        a CLI search's CPU, for nothing when every line is plain http."""
        self._timeout = timeout
        self._user_agent = user_agent
        self._make_settings = settings
        self._made: dict[str, Any] | None = None
        self._pool = Pool(verify=lambda: self._settings["verify"],
                          max_connections=MAX_CONNECTIONS, keepalive_expiry=KEEPALIVE_EXPIRY)
        self._client: Any = None
        self._direct: H11Exchange | None = None

    @property
    def _settings(self) -> dict[str, Any]:
        """tamis_client's settings, made into httpx's types when needed."""
        if self._made is None:
            self._made = self._make_settings()
        return self._made

    def httpx_client(self) -> Any:
        """The httpx client of this call (``CliClient``), made now if not yet."""
        if self._client is None:
            import http.cookiejar

            import httpx

            from tamis.http_asyncio import CliClient

            no_cookies = http.cookiejar.CookieJar(http.cookiejar.DefaultCookiePolicy(
                allowed_domains=[]))
            self._client = CliClient(
                pool=self._pool, cookies=no_cookies, follow_redirects=False,
                timeout=httpx.Timeout(self._timeout),
                headers={"User-Agent": self._user_agent},
                limits=httpx.Limits(max_connections=MAX_CONNECTIONS,
                                    max_keepalive_connections=20,
                                    keepalive_expiry=KEEPALIVE_EXPIRY),
                **self._settings)
        return self._client

    def exchange(self) -> Exchange:
        if self._client is not None:
            return self._client.exchange()  # type: ignore[no-any-return]
        if proxied():
            return self.httpx_client().exchange()  # type: ignore[no-any-return]
        if self._direct is None:
            base = [("Accept", "*/*"), ("Accept-Encoding", accept_encoding()),
                    ("Connection", "keep-alive"), ("User-Agent", self._user_agent)]
            self._direct = H11Exchange(self._pool, base, (self._timeout,) * 4,
                                       lambda: HttpxExchange(self.httpx_client()))
        return self._direct

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.httpx_client(), name)

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
        else:
            self._pool.close()

    async def __aenter__(self) -> CliSession:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
