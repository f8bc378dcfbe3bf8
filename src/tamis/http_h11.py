"""HTTP/1.1 over asyncio's own streams and h11, without httpx: the connection pool of the CLI's
client (``tamis.http_asyncio`` carries httpx's requests on it) and the CLI's carrier of
backend requests (``H11Exchange``, ``tamis.http_exchange``'s contract).

What httpcore's HTTP/1.1 connection does, with the same parser (h11, so the same words for a
malformed or cut answer):

- the request goes out as h11 writes it (what httpcore writes): the target as encoded, every
  header in order, the body; ALPN ``http/1.1`` on TLS;
- the body comes back raw: tamis inflates it under its caps;
- timeouts as httpcore applies them: ``connect`` (the TCP connection, then the TLS
  handshake), ``write`` and ``read`` (each socket operation), ``pool`` (waiting for one of
  ``max_connections``, a limit on requests in flight here);
- errors are the ones httpcore raises for the same failure, in its words, by httpx's names
  (``kinds``: the ``httpx`` module, or ``tamis.http_errors.kinds``): ``ConnectError`` (the
  resolver's words, else anyio's "All connection attempts failed"), ``ConnectTimeout``,
  ``ReadTimeout``, ``WriteTimeout``, ``PoolTimeout``, ``ReadError``, ``RemoteProtocolError``,
  ``UnsupportedProtocol``; never with the URL;
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
from collections.abc import AsyncIterator, Callable
from typing import Any

import h11

from tamis import http_errors
from tamis.http_compose import compose
from tamis.http_exchange import Answer, Exchange, Headers

READ_BYTES = 64 * 1024  # httpcore's READ_NUM_BYTES
MAX_INCOMPLETE_EVENT = 100 * 1024  # httpcore's MAX_INCOMPLETE_EVENT_SIZE
DEFAULT_PORTS = {b"http": 80, b"https": 443}
Origin = tuple[bytes, bytes, int]


class Connection:
    """One HTTP/1.1 connection: asyncio's streams and h11's state."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 kinds: Any) -> None:
        self.reader, self.writer, self.kinds = reader, writer, kinds
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
        """Write ``event``; TimeoutError past ``timeout``, OSError when the socket fails."""
        data = self.h11.send(event)
        if data:
            async with asyncio.timeout(timeout):
                self.writer.write(data)
                await self.writer.drain()

    async def next_event(self, timeout: float | None) -> Any:
        while True:
            try:
                event = self.h11.next_event()
            except h11.RemoteProtocolError as exc:
                raise self.kinds.RemoteProtocolError(str(exc)) from None
            if event is not h11.NEED_DATA:
                return event
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(READ_BYTES)
            except TimeoutError:
                raise self.kinds.ReadTimeout("") from None
            except OSError:
                raise self.kinds.ReadError("") from None  # anyio's BrokenResourceError
            if data == b"" and self.h11.their_state == h11.SEND_RESPONSE:
                raise self.kinds.RemoteProtocolError(
                    "Server disconnected without sending a response.")
            self.h11.receive_data(data)

    async def exchange(self, method: bytes, target: bytes, headers: Any, body: Any,
                       timeout: dict[str, float | None]) -> Any:
        """Send the request (``body``: an async iterable of bytes, or None); the answer's
        head (``h11.Response``)."""
        write = timeout.get("write")
        try:
            head = h11.Request(method=method, target=target, headers=headers)
        except h11.LocalProtocolError as exc:
            raise self.kinds.LocalProtocolError(str(exc)) from None
        try:
            await self.send(head, write)
            if body is not None:
                async for chunk in body:
                    await self.send(h11.Data(data=chunk), write)
            await self.send(h11.EndOfMessage(), write)
        except TimeoutError:
            raise self.kinds.WriteTimeout("") from None
        except OSError:  # httpcore's WriteError, let pass: the server may have answered
            pass         # before it read everything
        while True:
            event = await self.next_event(timeout.get("read"))
            if isinstance(event, h11.Response):
                return event

    async def body(self) -> AsyncIterator[bytes]:
        """The rest of the answer, as it arrives (``self.read_timeout`` between reads)."""
        while True:
            event = await self.next_event(self.read_timeout)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed) \
                    or event is h11.PAUSED:
                break

    read_timeout: float | None = None

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):  # a loop already closed
            self.writer.close()


class Pool:
    """At most ``max_connections`` requests in flight; idle connections kept per origin."""

    def __init__(self, *, verify: ssl.SSLContext, max_connections: int | None,
                 keepalive_expiry: float | None) -> None:
        self._ssl = verify
        self._keepalive = keepalive_expiry
        self._idle: dict[Origin, list[Connection]] = {}
        self._max = max_connections
        self._active = 0
        self._freed: asyncio.Event | None = None

    async def connection(self, origin: Origin, timeout: dict[str, float | None],
                         sni: str | None, kinds: Any) -> Connection:
        """A connection to ``origin`` (an idle one, else a new one), counted in flight until
        ``release``."""
        await self._wait_for_room(timeout.get("pool"), kinds)
        try:
            connection = self._idle_connection(origin) or await self._connect(
                origin, timeout.get("connect"), sni, kinds)
        except BaseException:
            self._done()
            raise
        connection.kinds = kinds
        return connection

    def release(self, origin: Origin, connection: Connection) -> None:
        """The request is over: the connection kept when its exchange ended cleanly."""
        state = connection.h11
        if state.our_state is h11.DONE and state.their_state is h11.DONE:
            state.start_next_cycle()
            self._keep(origin, connection)
        else:
            connection.close()
        self._done()

    async def _wait_for_room(self, timeout: float | None, kinds: Any) -> None:
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
            raise kinds.PoolTimeout("") from None
        self._active += 1

    def _done(self) -> None:
        self._active -= 1
        if self._freed is not None:
            self._freed.set()
            self._freed = None

    def _idle_connection(self, origin: Origin) -> Connection | None:
        idle = self._idle.get(origin, [])
        while idle:
            connection = idle.pop()
            if connection.reusable():
                return connection
            connection.close()
        return None

    def _keep(self, origin: Origin, connection: Connection) -> None:
        if self._keepalive is None or self._keepalive <= 0:
            connection.close()
            return
        connection.expires = time.monotonic() + self._keepalive
        self._idle.setdefault(origin, []).append(connection)

    async def _connect(self, origin: Origin, timeout: float | None, sni: str | None,
                       kinds: Any) -> Connection:
        scheme, raw_host, port = origin
        host = raw_host.decode("ascii")
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await _open(host, port, kinds)
        except TimeoutError:
            raise kinds.ConnectTimeout("") from None
        if scheme == b"https":
            self._ssl.set_alpn_protocols(["http/1.1"])
            try:
                async with asyncio.timeout(timeout):
                    await writer.start_tls(self._ssl, server_hostname=sni or host)
            except TimeoutError:
                writer.close()
                raise kinds.ConnectTimeout("") from None
            except ssl.SSLError as exc:
                writer.close()
                raise kinds.ConnectError(str(exc)) from None
            except OSError:
                writer.close()
                raise kinds.ConnectError("") from None  # anyio's BrokenResourceError
        return Connection(reader, writer, kinds)

    def close(self) -> None:
        idle, self._idle = self._idle, {}
        for connections in idle.values():
            for connection in connections:
                connection.close()


async def _open(host: str, port: int, kinds: Any
                ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """A TCP connection, failing in anyio's words (as httpcore reports them)."""
    loop = asyncio.get_running_loop()
    addresses = _numeric_address(host, port)
    if addresses is None:
        try:
            addresses = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError as exc:  # the resolver's words (socket.gaierror)
            raise kinds.ConnectError(str(exc)) from None
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
    raise kinds.ConnectError("All connection attempts failed")


def _numeric_address(host: str, port: int) -> list[Any] | None:
    """The addresses of a host written as an IP address (a loopback SearXNG's 127.0.0.1),
    as the resolver gives them, read here: asyncio's ``getaddrinfo`` asks the resolver in a
    thread, which a CLI call would start (and import the IDNA codec) for nothing. None for a
    name: that goes to the resolver (``AI_NUMERICHOST`` never looks a name up). The host as
    bytes: a str would be encoded by the IDNA codec, imported for it."""
    if not host.isascii():
        return None
    try:
        return socket.getaddrinfo(host.encode("ascii"), port, type=socket.SOCK_STREAM,
                                  flags=socket.AI_NUMERICHOST)
    except (OSError, UnicodeError):
        return None


class H11Answer(Answer):
    def __init__(self, pool: Pool, origin: Origin, connection: Connection,
                 response: Any) -> None:
        self._pool, self._origin, self._connection = pool, origin, connection
        self._released = False
        self.status_code = response.status_code
        self.headers = Headers(response.headers.raw_items())

    async def aiter_raw(self) -> AsyncIterator[bytes]:  # type: ignore[override]
        self.consumed = True
        try:
            async for chunk in self._connection.body():
                yield chunk
        except BaseException:
            await self.aclose()
            raise

    async def aclose(self) -> None:
        if not self._released:
            self._released = True
            self._pool.release(self._origin, self._connection)


class H11Exchange:
    """A backend request on ``pool``, without httpx: the bytes httpx would send
    (``tamis.http_compose``), errors in ``tamis.http_errors``. ``base``: the client's headers;
    ``timeout``: the client's (connect, read, write, pool); ``fallback``: the carrier of what
    cannot be composed (httpx's, made when first needed)."""

    def __init__(self, pool: Pool, base: list[tuple[str, str]],
                 timeout: tuple[float | None, ...],
                 fallback: Callable[[], Exchange]) -> None:
        self._pool, self._base, self._timeout, self._fallback = pool, base, timeout, fallback

    async def send(self, method: str, url: str, *, params: dict[str, Any] | None,
                   json: Any, headers: dict[str, str], timeout: float | None) -> Answer:
        out = compose(method, url, params=params, json=json, headers=headers, base=self._base)
        if out is None:
            return await self._fallback().send(method, url, params=params, json=json,
                                               headers=headers, timeout=timeout)
        connect, read, write, pool = self._timeout if timeout is None else (timeout,) * 4
        limits = {"connect": connect, "read": read, "write": write, "pool": pool}
        origin = (out.scheme.encode("ascii"), out.host.encode("ascii"), out.port)
        connection = await self._pool.connection(origin, limits, None, http_errors.kinds)
        try:
            response = await connection.exchange(
                method.encode("ascii"), out.target.encode("ascii"),
                [(k.encode("ascii"), v.encode("ascii")) for k, v in out.headers],
                None if out.body is None else _once(out.body), limits)
        except BaseException:
            connection.close()
            self._pool.release(origin, connection)
            raise
        connection.read_timeout = read
        return H11Answer(self._pool, origin, connection, response)


async def _once(body: bytes) -> AsyncIterator[bytes]:
    yield body
