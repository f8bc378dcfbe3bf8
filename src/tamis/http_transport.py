"""An httpx transport over aiohttp, for the service (``tamis serve``): the same client
(``tamis.http_client``), about a quarter of httpcore's CPU a request.

httpx keeps everything it does above the transport: headers, cookies (none), redirects
(not followed), the proxies from the environment (their own httpcore transports), event
hooks, decoding. This transport only carries bytes, and keeps httpcore's contract:

- the request goes out as httpx built it: the URL as encoded (not re-quoted), every header
  in order (aiohttp adds none of its own), the body;
- the body comes back raw (``auto_decompress=False``): tamis inflates it under its caps;
- timeouts: ``connect`` (with ``pool``: aiohttp waits for a free connection and connects
  under one clock) and ``read`` (between two reads); there is no ``write`` timeout (tamis
  sends small requests);
- errors are httpx's, the ones httpcore raises for the same failure: ``ConnectError``,
  ``ConnectTimeout``, ``ReadTimeout``, ``ReadError``, ``RemoteProtocolError``,
  ``UnsupportedProtocol``, in httpcore's words (a malformed answer's head excepted: aiohttp's
  parser words that its own way), never with the URL (its query may hold a key);
- limits: ``max_connections`` connections at most, idle ones closed after
  ``keepalive_expiry``;
- TLS: the client's ``ssl.SSLContext`` (``DeferredCAContext``: loaded on first use).

aiohttp runs on asyncio only (the service's event loop); a client asked for HTTP/2 keeps
httpx's own transport. A session belongs to the event loop it was made in; in another loop
(one ``asyncio.run`` after another) a new one is made and the old one's sockets are closed.
"""

from __future__ import annotations

import asyncio
import functools
import http.cookiejar
import os
import ssl
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
from yarl import URL

from tamis import http_errors
from tamis.http_compose import compose
from tamis.http_exchange import Answer, Exchange, Headers, HttpxExchange

MAX_HEADER_BYTES = 65_536  # one status or header line at most (h11's whole head: 16 KiB)


def _said(exc: BaseException) -> str:
    """What an aiohttp error says, without the request's URL (aiohttp puts it in some of its
    messages; httpcore never does, and a URL's query may hold a key)."""
    if isinstance(exc, aiohttp.ClientPayloadError):
        return str(exc)  # the body's framing, no URL
    errno = getattr(exc, "errno", None)
    if isinstance(errno, int):
        return f"[Errno {errno}] {os.strerror(errno)}"
    return type(exc).__name__


def _mapped(exc: BaseException, kinds: Any = httpx) -> Exception | None:
    """The httpx error httpcore raises for the failure aiohttp reports as ``exc``
    (``kinds``: ``httpx``, or ``tamis.http_errors.kinds``, the same names)."""
    message = _said(exc)
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return kinds.ConnectTimeout("")  # httpcore's timeouts say nothing more
    if isinstance(exc, aiohttp.SocketTimeoutError | aiohttp.ServerTimeoutError):
        return kinds.ReadTimeout("")
    if isinstance(exc, aiohttp.ClientConnectorDNSError | aiohttp.ClientSSLError):
        return kinds.ConnectError(str(exc.os_error) or message)  # the resolver's, TLS's words
    if isinstance(exc, aiohttp.ClientConnectorError):
        return kinds.ConnectError("All connection attempts failed")  # as anyio says it
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return kinds.RemoteProtocolError("Server disconnected without sending a response.")
    if isinstance(exc, aiohttp.ClientPayloadError):
        return kinds.RemoteProtocolError(
            "peer closed connection without sending complete message body"
            + (f" ({message})" if message else ""))
    if isinstance(exc, aiohttp.ClientResponseError):  # the answer's head could not be parsed
        return kinds.RemoteProtocolError(str(exc.message) or message)
    if isinstance(exc, aiohttp.ClientOSError | aiohttp.ClientConnectionError):
        return kinds.ReadError(message)
    if isinstance(exc, aiohttp.InvalidURL):
        return kinds.UnsupportedProtocol(message)
    if isinstance(exc, aiohttp.ClientError):
        return kinds.ReadError(message)
    return None


async def _chunks(response: aiohttp.ClientResponse, kinds: Any) -> AsyncIterator[bytes]:
    """The answer's raw body, chunk by chunk as it arrives; a failure as ``kinds`` names it."""
    received = 0
    try:
        async for chunk in response.content.iter_any():
            received += len(chunk)
            yield chunk
    except (TimeoutError, aiohttp.ClientError) as exc:
        if isinstance(exc, aiohttp.ClientPayloadError):  # h11's words for a cut body
            raise kinds.RemoteProtocolError(
                "peer closed connection without sending complete message body"
                f" ({_cut(response, received)})") from None
        mapped = _mapped(exc, kinds)
        if mapped is None:
            raise
        raise mapped from None


def _cut(response: aiohttp.ClientResponse, received: int) -> str:
    length = response.headers.get("Content-Length", "")
    if length.isdigit():
        return f"received {received} bytes, expected {int(length)}"
    if "chunked" in response.headers.get("Transfer-Encoding", "").lower():
        return "incomplete chunked read"
    return _said(aiohttp.ClientPayloadError())


class _Body(httpx.AsyncByteStream):
    """The answer's raw body, chunk by chunk as it arrives."""

    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in _chunks(self._response, httpx):
            yield chunk

    async def aclose(self) -> None:
        self._response.release()  # kept alive only when read to its end


class AiohttpTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, verify: ssl.SSLContext, limits: httpx.Limits) -> None:
        self._ssl = verify
        self._limits = limits
        self._session: aiohttp.ClientSession | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _session_here(self) -> aiohttp.ClientSession:
        loop = asyncio.get_running_loop()
        if self._session is not None and self._loop is loop and not self._session.closed:
            return self._session
        self._abandon()
        connector = aiohttp.TCPConnector(
            ssl=self._ssl, limit=self._limits.max_connections or 0, limit_per_host=0,
            keepalive_timeout=self._limits.keepalive_expiry, use_dns_cache=False)
        self._session = aiohttp.ClientSession(
            connector=connector, cookie_jar=aiohttp.DummyCookieJar(), trust_env=False,
            auto_decompress=False, skip_auto_headers=("Accept", "Accept-Encoding",
                                                      "User-Agent", "Content-Type"),
            max_line_size=MAX_HEADER_BYTES, max_field_size=MAX_HEADER_BYTES,
            timeout=aiohttp.ClientTimeout(total=None))
        self._loop = loop
        return self._session

    def _abandon(self) -> None:
        """Close the sockets of a session whose event loop is gone (or going), at once."""
        session, self._session = self._session, None
        if session is not None and session.connector is not None:
            session.connector._close()  # synchronous: no loop to await it in

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        scheme = request.url.scheme
        if scheme == "":
            raise httpx.UnsupportedProtocol(
                "Request URL is missing an 'http://' or 'https://' protocol.")
        if scheme not in ("http", "https"):
            raise httpx.UnsupportedProtocol(
                f"Request URL has an unsupported protocol '{scheme}://'.")
        session = self._session_here()
        timeout = request.extensions.get("timeout", {})
        connect, pool = timeout.get("connect"), timeout.get("pool")
        data: Any
        try:
            data = request.content or None
        except httpx.RequestNotRead:
            data = _stream(request.stream)
        try:
            response = await session.request(
                request.method, URL(str(request.url), encoded=True),
                headers=[(k.decode("latin-1"), v.decode("latin-1"))
                         for k, v in request.headers.raw],
                data=data, allow_redirects=False, compress=None, chunked=None,
                server_hostname=request.extensions.get("sni_hostname"),
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_read=timeout.get("read"), sock_connect=connect,
                    connect=None if connect is None or pool is None else connect + pool))
        except (TimeoutError, aiohttp.ClientError) as exc:
            mapped = _mapped(exc)
            if mapped is None:
                raise
            raise mapped from None
        extensions: dict[str, Any] = {"http_version": f"HTTP/{response.version.major}."
                                                      f"{response.version.minor}".encode()}
        if response.reason:
            extensions["reason_phrase"] = response.reason.encode("latin-1", "replace")
        return httpx.Response(response.status, headers=response.raw_headers,
                              stream=_Body(response), extensions=extensions)

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None:
            if self._loop is asyncio.get_running_loop():
                await session.close()
            elif session.connector is not None:
                session.connector._close()

    def __del__(self) -> None:  # an unclosed client: its sockets closed, no warning
        self._abandon()


class AiohttpAnswer(Answer):
    def __init__(self, response: aiohttp.ClientResponse) -> None:
        self._response = response
        self.status_code = response.status
        self.headers = Headers(response.raw_headers)

    def aiter_raw(self) -> AsyncIterator[bytes]:
        self.consumed = True
        return _chunks(self._response, http_errors.kinds)

    async def aclose(self) -> None:
        self._response.release()  # kept alive only when read to its end


class AiohttpExchange:
    """A backend request on the transport's session, without httpx's ``Request`` and
    ``Response``: the bytes httpx would send (``tamis.http_compose``; what it declines goes
    through httpx), the transport's timeouts, and its errors in ``tamis.http_errors``."""

    def __init__(self, client: ServiceClient, transport: AiohttpTransport) -> None:
        self._client, self._transport = client, transport
        self._httpx = HttpxExchange(client)

    async def send(self, method: str, url: str, *, params: dict[str, Any] | None,
                   json: Any, headers: dict[str, str], timeout: float | None) -> Answer:
        client = self._client
        base = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in client.headers.raw]
        out = compose(method, url, params=params, json=json, headers=headers, base=base)
        if out is None:
            return await self._httpx.send(method, url, params=params, json=json,
                                          headers=headers, timeout=timeout)
        if timeout is None:
            connect, read, pool = client.timeout.connect, client.timeout.read, \
                client.timeout.pool
        else:
            connect = read = pool = timeout
        session = self._transport._session_here()
        try:
            response = await session.request(
                method, URL(out.url, encoded=True), headers=out.headers, data=out.body,
                allow_redirects=False, compress=None, chunked=None,
                timeout=aiohttp.ClientTimeout(
                    total=None, sock_read=read, sock_connect=connect,
                    connect=None if connect is None or pool is None else connect + pool))
        except (TimeoutError, aiohttp.ClientError) as exc:
            mapped = _mapped(exc, http_errors.kinds)
            if mapped is None:
                raise
            raise mapped from None
        return AiohttpAnswer(response)


class _NoCookies(httpx.Cookies):
    """The cookies of a client whose jar's policy refuses every cookie: there is nothing to
    extract from an answer (httpx would parse each answer's URL and headers to find that)."""

    def extract_cookies(self, response: httpx.Response) -> None:
        return None


class ServiceClient(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose transport (not its proxies') is ``AiohttpTransport``."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        jar = options.get("cookies")
        policy = getattr(jar, "_policy", None)
        if isinstance(jar, http.cookiejar.CookieJar) \
                and isinstance(policy, http.cookiejar.DefaultCookiePolicy) \
                and policy.allowed_domains() is not None and not policy.allowed_domains():
            self._cookies = _NoCookies(jar)  # the same jar, never asked to keep one
        self._direct: tuple[tuple[Any, ...], Exchange] | None = None

    def exchange(self) -> Exchange:
        """The fan-out's carrier (``tamis.http_exchange``): straight on aiohttp, unless
        something httpx does above the transport may play a part (event hooks, a proxy, auth,
        cookies kept, client-wide parameters or base URL, redirects followed, a closed
        client): then through httpx."""
        if self.is_closed or self._event_hooks["request"] or self._event_hooks["response"]:
            return HttpxExchange(self)
        state = (self._transport, self._auth, self._params, self._base_url, self._cookies,
                 self.follow_redirects)
        if self._direct is None or any(a is not b for a, b in zip(state, self._direct[0],
                                                                   strict=True)):
            transport = self._transport
            plain = isinstance(transport, AiohttpTransport) and not any(self._mounts.values()) \
                and self._auth is None and not self._params and not str(self._base_url) \
                and not self.follow_redirects and isinstance(self._cookies, _NoCookies)
            self._direct = (state, AiohttpExchange(self, transport) if plain  # type: ignore[arg-type]
                            else HttpxExchange(self))
        return self._direct[1]

    def _merge_url(self, url: httpx.URL | str) -> httpx.URL:
        """An absolute URL as str is parsed once (``_parsed``), not on every request: a
        line's endpoint is the same URL each time, and httpx's parse costs a quarter of
        building the request."""
        if isinstance(url, str):
            parsed = _parsed(url)
            if not parsed.is_relative_url:
                return parsed  # what httpx returns for it (the base URL plays no part)
        return super()._merge_url(url)

    def _init_transport(self, verify: Any = True, cert: Any = None, trust_env: bool = True,
                        http1: bool = True, http2: bool = False,
                        limits: httpx.Limits | None = None,
                        transport: httpx.AsyncBaseTransport | None = None,
                        ) -> httpx.AsyncBaseTransport:
        limits = limits or httpx.Limits(max_connections=100, max_keepalive_connections=20)
        if transport is not None or http2 or not http1:
            return super()._init_transport(verify=verify, cert=cert, trust_env=trust_env,
                                           http1=http1, http2=http2, limits=limits,
                                           transport=transport)
        if not isinstance(verify, ssl.SSLContext):
            verify = httpx.create_ssl_context(verify=verify, cert=cert, trust_env=trust_env)
        return AiohttpTransport(verify=verify, limits=limits)


@functools.lru_cache(maxsize=256)
def _parsed(url: str) -> httpx.URL:
    """``httpx.URL(url)``, kept: a URL is immutable (each request makes its own from it);
    an invalid one raises each time, as httpx does."""
    return httpx.URL(url)


async def _stream(stream: Any) -> AsyncIterator[bytes]:
    async for chunk in stream:
        yield chunk
