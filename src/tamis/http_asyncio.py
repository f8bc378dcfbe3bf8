"""An httpx transport over asyncio's own streams and h11, for one CLI call (``tamis search``):
the same client (``tamis.http_client``) without httpcore's pool and anyio's asyncio backend,
whose imports cost about a tenth of a CLI search's CPU.

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

import asyncio
import contextlib
import select
import socket
import ssl
import time
from collections.abc import AsyncIterator
from typing import Any

import h11
import httpx

READ_BYTES = 64 * 1024  # httpcore's READ_NUM_BYTES
MAX_INCOMPLETE_EVENT = 100 * 1024  # httpcore's MAX_INCOMPLETE_EVENT_SIZE
DEFAULT_PORTS = {b"http": 80, b"https": 443}


class _Connection:
    """One HTTP/1.1 connection: asyncio's streams and h11's state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.h11 = h11.Connection(our_role=h11.CLIENT,
                                  max_incomplete_event_size=MAX_INCOMPLETE_EVENT)
        self.loop = asyncio.get_running_loop()
        self.expires = 0.0

    def reusable(self) -> bool:
        """Idle, not expired, in this loop, and the server has not closed it (or sent
        anything unasked, which makes it unusable too)."""
        if self.loop is not asyncio.get_running_loop() or time.monotonic() > self.expires:
            return False
        sock = self.writer.get_extra_info("socket")
        if sock is None or self.writer.is_closing() or sock.fileno() < 0:
            return False
        try:
            readable, _, _ = select.select([sock], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable

    async def send(self, event: Any, timeout: float | None) -> None:
        data = self.h11.send(event)
        if not data:
            return
        try:
            async with asyncio.timeout(timeout):
                self.writer.write(data)
                await self.writer.drain()
        except TimeoutError:
            raise httpx.WriteTimeout("") from None
        except OSError as exc:
            raise httpx.WriteError(str(exc)) from None

    async def next_event(self, timeout: float | None) -> Any:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise httpx.RemoteProtocolError(str(exc)) from None
            if event is not h11.NEED_DATA:
                return event
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(READ_BYTES)
            except TimeoutError:
                raise httpx.ReadTimeout("") from None
            except OSError:
                raise httpx.ReadError("") from None  # anyio's BrokenResourceError: no words
            if data == b"" and self.h11.their_state == h11.SEND_RESPONSE:
                raise httpx.RemoteProtocolError(
                    "Server disconnected without sending a response.")
            self.h11.receive_data(data)

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):  # a loop already closed
            self.writer.close()


class _Body(httpx.AsyncByteStream):
    """The answer's raw body, as it arrives; the connection back to the pool once read."""

    def __init__(self, transport: AsyncioTransport, origin: tuple[bytes, bytes, int],
                 connection: _Connection, timeout: float | None) -> None:
        self._transport, self._origin = transport, origin
        self._connection, self._timeout = connection, timeout
        self._closed = False

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            while True:
                event = await self._connection.next_event(self._timeout)
                if isinstance(event, h11.Data):
                    yield bytes(event.data)
                elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed) \
                        or event is h11.PAUSED:
                    break
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        state = self._connection.h11
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            self._transport._keep(self._origin, self._connection)
        else:
            self._connection.close()
        self._transport._done()


class AsyncioTransport(httpx.AsyncBaseTransport):
    def __init__(self, *, verify: ssl.SSLContext, limits: httpx.Limits) -> None:
        self._ssl = verify
        self._keepalive = limits.keepalive_expiry
        self._idle: dict[tuple[bytes, bytes, int], list[_Connection]] = {}
        self._max = limits.max_connections
        self._active = 0
        self._freed: asyncio.Event | None = None

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
        await self._wait_for_room(timeout.get("pool"))
        try:
            connection = self._idle_connection(origin) or await self._connect(
                origin, timeout.get("connect"), request.extensions.get("sni_hostname"))
            try:
                response = await self._exchange(connection, request, timeout)
            except BaseException:
                connection.close()
                raise
        except BaseException:
            self._done()
            raise
        return httpx.Response(
            response.status_code, headers=response.headers.raw_items(),
            stream=_Body(self, origin, connection, timeout.get("read")),
            extensions={"http_version": b"HTTP/" + response.http_version,
                        "reason_phrase": response.reason})

    async def _wait_for_room(self, timeout: float | None) -> None:
        if self._max is None:
            self._active += 1
            return
        try:
            async with asyncio.timeout(timeout):
                while self._active >= self._max:
                    if self._freed is None:
                        self._freed = asyncio.Event()
                    await self._freed.wait()
        except TimeoutError:
            raise httpx.PoolTimeout("") from None
        self._active += 1

    def _done(self) -> None:
        self._active -= 1
        if self._freed is not None:
            self._freed.set()
            self._freed = None

    def _idle_connection(self, origin: tuple[bytes, bytes, int]) -> _Connection | None:
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    def _keep(self, origin: tuple[bytes, bytes, int], connection: _Connection) -> None:
        if self._keepalive is None or self._keepalive <= 0:
            connection.close()
            return
        connection.expires = time.monotonic() + self._keepalive
        self._idle.setdefault(origin, []).append(connection)

    async def _connect(self, origin: tuple[bytes, bytes, int], timeout: float | None,
                       sni: str | None) -> _Connection:
        scheme, raw_host, port = origin
        host = raw_host.decode("ascii")
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await _open(host, port)
        except TimeoutError:
            raise httpx.ConnectTimeout("") from None
        if scheme == b"https":
            self._ssl.set_alpn_protocols(["http/1.1"])
            try:
                async with asyncio.timeout(timeout):
                    await writer.start_tls(self._ssl, server_hostname=sni or host)
            except TimeoutError:
                writer.close()
                raise httpx.ConnectTimeout("") from None
            except ssl.SSLError as exc:
                writer.close()
                raise httpx.ConnectError(str(exc)) from None
            except OSError:
                writer.close()
                raise httpx.ConnectError("") from None  # anyio's BrokenResourceError
        return _Connection(reader, writer)

    async def _exchange(self, connection: _Connection, request: httpx.Request,
                        timeout: dict[str, float | None]) -> Any:
        write = timeout.get("write")
        try:
            head = h11.Request(method=request.method, target=request.url.raw_path,
                               headers=request.headers.raw)
        except h11.LocalProtocolError as exc:
            raise httpx.LocalProtocolError(str(exc)) from None
        try:
            await connection.send(head, write)
            async for chunk in request.stream:  # type: ignore[union-attr]
                await connection.send(h11.Data(data=chunk), write)
            await connection.send(h11.EndOfMessage(), write)
        except httpx.WriteError:
            pass  # as httpcore: the server may have answered before it read everything
        while True:
            event = await connection.next_event(timeout.get("read"))
            if isinstance(event, h11.Response):
                return event

    async def aclose(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()


async def _open(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection, failing in anyio's words (as httpcore reports them)."""
    loop = asyncio.get_running_loop()
    try:
        addresses = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:  # the resolver's words (socket.gaierror)
        raise httpx.ConnectError(str(exc)) from None
    for family, kind, proto, _name, address in addresses:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
        except OSError:
            sock.close()
            continue
        except BaseException:
            sock.close()
            raise
        return await asyncio.open_connection(sock=sock, limit=READ_BYTES)
    raise httpx.ConnectError("All connection attempts failed")


class CliClient(httpx.AsyncClient):
    """``httpx.AsyncClient`` whose transport (not its proxies') is ``AsyncioTransport``."""

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
        return AsyncioTransport(verify=verify, limits=limits)
