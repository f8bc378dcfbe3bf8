"""HTTP/1.1 over asyncio's own streams and h11, without httpx: the connection pool of the CLI's
client (``tamis.http_asyncio`` carries httpx's requests on it) and the CLI's carrier of
backend requests (``H11Exchange``, ``tamis.http_exchange``'s contract).

What httpcore's HTTP/1.1 connection does, with the same parser (h11, so the same words for a
malformed or cut answer); a plain exchange (most are) is written and read with h11's results
without importing h11 (``tamis.http_wire``), which takes over at the first byte that is not:

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
import socket
import ssl
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

from tamis import http_errors
from tamis.http_compose import compose
from tamis.http_connection import READ_BYTES, Connection
from tamis.http_exchange import Answer, Exchange, Headers
from tamis.http_wire import Head

DEFAULT_PORTS = {b"http": 80, b"https": 443}
Origin = tuple[bytes, bytes, int]


class Pool:
    """At most ``max_connections`` requests in flight; idle connections kept per origin."""

    def __init__(self, *, verify: ssl.SSLContext | Callable[[], ssl.SSLContext],
                 max_connections: int | None, keepalive_expiry: float | None) -> None:
        """``verify``: the SSL context of https connections, or what makes it (called on the
        first one)."""
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
        if connection.finished():
            connection.start_next_cycle()
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
            context = self._ssl if isinstance(self._ssl, ssl.SSLContext) else self._ssl()
            self._ssl = context
            context.set_alpn_protocols(["http/1.1"])
            try:
                async with asyncio.timeout(timeout):
                    await writer.start_tls(context, server_hostname=sni or host)
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
                 response: Head) -> None:
        self._pool, self._origin, self._connection = pool, origin, connection
        self._released = False
        self.status_code = response.status_code
        self.headers = Headers(response.headers)

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
                out.body, limits)
        except BaseException:
            connection.close()
            self._pool.release(origin, connection)
            raise
        connection.read_timeout = read
        return H11Answer(self._pool, origin, connection, response)
