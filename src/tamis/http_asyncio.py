"""An httpx transport over asyncio's own streams and h11 (``tamis.http_h11``'s pool), for one
CLI call (``tamis search``): the same client (``tamis.http_client``) without httpcore's pool
and anyio's asyncio backend, whose imports cost about a tenth of a CLI search's CPU. The
fan-out's backend requests skip httpx too (``CliClient.exchange``, ``tamis.http_h11``).

httpx keeps everything it does above the transport: headers, cookies (none), redirects (not
followed), the proxies from the environment (their own httpcore transports), event hooks,
decoding. This transport only carries bytes, as httpcore's HTTP/1.1 connection does, with
the same parser (h11, so the same words for a malformed or cut answer):

- the request goes out as httpx built it and h11 writes it (what httpcore writes): the
  target as encoded, every header in order, the body; ALPN ``http/1.1`` on TLS;
- the body comes back raw: tamis inflates it under its caps;
- timeouts as httpcore applies them: ``connect`` (the TCP connection, then the TLS
  handshake), ``write`` and ``read`` (each socket operation), ``pool`` (waiting for one of
  ``max_connections``, a limit on requests in flight here);
- errors are httpx's, the ones httpcore raises for the same failure, in its words:
  ``ConnectError`` (the resolver's words, else anyio's "All connection attempts failed"),
  ``ConnectTimeout``, ``ReadTimeout``, ``WriteTimeout``, ``PoolTimeout``, ``ReadError``,
  ``RemoteProtocolError``, ``UnsupportedProtocol``; never with the URL;
- a connection read to its end is kept for the next request to the same origin, for at most
  ``keepalive_expiry`` seconds, and not reused once the server has closed it.

Connections belong to the event loop they were opened in; in another loop (one
``asyncio.run`` after another) they are dropped.
"""

from __future__ import annotations

import ssl
from collections.abc import AsyncIterator
from typing import Any

import httpx

from tamis.http_exchange import Exchange, HttpxExchange
from tamis.http_h11 import DEFAULT_PORTS, H11Answer, H11Exchange, Pool


class _Body(httpx.AsyncByteStream):
    """The answer's raw body, as it arrives; the connection back to the pool once read."""

    def __init__(self, answer: H11Answer) -> None:
        self._answer = answer

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._answer.aiter_raw():
            yield chunk

    async def aclose(self) -> None:
        await self._answer.aclose()


class AsyncioTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, verify: ssl.SSLContext, limits: httpx.Limits,
                 pool: Pool | None = None) -> None:
        self.pool = pool or Pool(verify=verify, max_connections=limits.max_connections,
                                 keepalive_expiry=limits.keepalive_expiry)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        url = request.url
        scheme = url.raw_scheme
        if scheme == b"":
            raise httpx.UnsupportedProtocol(
                "Request URL is missing an 'http://' or 'https://' protocol.")
        if scheme not in DEFAULT_PORTS:
            raise httpx.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{scheme.decode('ascii')}://'.")
        timeout = request.extensions.get("timeout", {})
        origin = (scheme, url.raw_host, url.port or DEFAULT_PORTS[scheme])
        connection = await self.pool.connection(
            origin, timeout, request.extensions.get("sni_hostname"), httpx)
        try:
            response = await connection.exchange(request.method, request.url.raw_path,
                                                 request.headers.raw, request.stream, timeout)
        except BaseException:
            connection.close()
            self.pool.release(origin, connection)
            raise
        connection.read_timeout = timeout.get("read")
        return httpx.Response(
            response.status_code, headers=response.headers,
            stream=_Body(H11Answer(self.pool, origin, connection, response)),
            extensions={"http_version": b"HTTP/" + response.http_version,
                        "reason_phrase": response.reason})

    async def aclose(self) -> None:
        self.pool.close()


class CliClient(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose transport (not its proxies') is ``AsyncioTransport``.
    ``pool``: the connections it shares with a carrier made before it (``http_cli``)."""

    def __init__(self, *, pool: Pool | None = None, **options: Any) -> None:
        self._shared_pool = pool
        super().__init__(**options)
        self._direct: tuple[tuple[Any, ...], Exchange] | None = None

    def _init_transport(self, **settings: Any) -> httpx.AsyncBaseTransport:
        """httpx's own transport for what this one does not carry (HTTP/2, a client
        certificate, a transport given); else ``AsyncioTransport`` (httpx passes every
        setting by name)."""
        if settings.get("transport") is not None or settings.get("http2") \
                or not settings.get("http1", True) or settings.get("cert") is not None:
            return super()._init_transport(**settings)
        verify = settings.get("verify", True)
        if not isinstance(verify, ssl.SSLContext):
            verify = httpx.create_ssl_context(verify=verify,
                                              trust_env=settings.get("trust_env", True))
        limits = settings.get("limits") or httpx.Limits(max_connections=100,
                                                        max_keepalive_connections=20)
        return AsyncioTransport(verify=verify, limits=limits, pool=self._shared_pool)

    def exchange(self) -> Exchange:
        """The fan-out's carrier (``tamis.http_exchange``): straight on h11, unless something
        httpx does above the transport may play a part (event hooks, a proxy, auth, cookies
        kept, client-wide parameters or base URL, redirects followed, a closed client):
        then through httpx."""
        if self.is_closed or self._event_hooks["request"] or self._event_hooks["response"]:
            return HttpxExchange(self)
        state = (self._transport, self._auth, self._params, self._base_url, self._cookies,
                 self.follow_redirects, self._headers, self._timeout)
        if self._direct is None or any(a is not b for a, b in zip(state, self._direct[0],
                                                                   strict=True)):
            self._direct = (state, self._carrier())
        return self._direct[1]

    def _carrier(self) -> Exchange:
        transport = self._transport
        if not isinstance(transport, AsyncioTransport) or any(self._mounts.values()) \
                or self._auth is not None or self._params or str(self._base_url) \
                or self.follow_redirects or not no_cookies(self._cookies):
            return HttpxExchange(self)
        timeout = self._timeout
        base = [(k.decode("ascii"), v.decode("ascii")) for k, v in self._headers.raw]
        return H11Exchange(transport.pool, base, (timeout.connect, timeout.read,
                                                  timeout.write, timeout.pool),
                           lambda: HttpxExchange(self))


def no_cookies(cookies: httpx.Cookies) -> bool:
    """A jar whose policy refuses every cookie (``tamis_client``'s)."""
    import http.cookiejar

    jar = cookies.jar
    policy = getattr(jar, "_policy", None)
    return isinstance(policy, http.cookiejar.DefaultCookiePolicy) \
        and policy.allowed_domains() is not None and not policy.allowed_domains()
