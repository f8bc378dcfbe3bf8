"""One HTTP/1.1 connection of ``tamis.http_h11``'s pool, over asyncio's streams: the request
written and the answer read as h11 does, without h11 while the exchange is plain
(``tamis.http_wire``), by h11 from the first byte that is not (imported then). Failures in
httpcore's words, by the names of ``kinds`` (``httpx``, or ``tamis.http_errors.kinds``).
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import time
from collections.abc import AsyncIterator
from typing import Any

from tamis.http_wire import END, NEED_DATA, UNPLAIN, Head, Plain, request_bytes

READ_BYTES = 64 * 1024  # httpcore's READ_NUM_BYTES
MAX_INCOMPLETE_EVENT = 100 * 1024  # httpcore's MAX_INCOMPLETE_EVENT_SIZE


class Connection:
    """One HTTP/1.1 connection: asyncio's streams, and the exchange read without h11 while it
    is plain (``tamis.http_wire``), else by h11 (imported then, from the same point on)."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                 kinds: Any, plain: bool = True) -> None:
        """``plain``: False, h11 from the start (the tests' reference)."""
        self.reader, self.writer, self.kinds = reader, writer, kinds
        self.plain: Plain | None = Plain() if plain else None
        self.h11: Any = None
        self._request: tuple[bytes, bytes, Any, bytes | None] | None = None
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

    def finished(self) -> bool:
        """The exchange ended cleanly on both sides (h11's ``DONE``, ``DONE``)."""
        if self.plain is not None:
            return self.plain.reusable()
        h11 = _h11()
        return self.h11.our_state is h11.DONE and self.h11.their_state is h11.DONE

    def start_next_cycle(self) -> None:
        if self.plain is not None:
            self.plain.start_next_cycle()
        else:
            self.h11.start_next_cycle()

    def _to_h11(self) -> Any:
        """h11 where the plain reading stands (``Plain.replay``), from now on."""
        h11 = _h11()
        assert self.plain is not None and self._request is not None
        method, target, headers, body = self._request
        self.h11 = self.plain.replay(h11, h11.Request(method=method, target=target,
                                                      headers=headers),
                                     body, MAX_INCOMPLETE_EVENT)
        self.plain = None
        return self.h11

    async def _write(self, data: bytes, timeout: float | None) -> None:
        """Write ``data``; TimeoutError past ``timeout``, OSError when the socket fails."""
        if data:
            async with asyncio.timeout(timeout):
                self.writer.write(data)
                await self.writer.drain()

    def _event(self) -> Any:
        """The next of: a ``Head``, a body chunk, ``END``, ``NEED_DATA`` (or ``None``: an
        event neither loop reads, an informational answer)."""
        plain = self.plain
        if plain is not None:
            try:
                event = plain.next_event(MAX_INCOMPLETE_EVENT)
            except ValueError as exc:  # a body cut short, in h11's words
                raise self.kinds.RemoteProtocolError(str(exc)) from None
            if event is not UNPLAIN:
                return event
            connection = self._to_h11()
        else:
            connection = self.h11
        h11 = _h11()
        try:
            event = connection.next_event()
        except h11.RemoteProtocolError as exc:
            raise self.kinds.RemoteProtocolError(str(exc)) from None
        if event is h11.NEED_DATA:
            return NEED_DATA
        if isinstance(event, h11.Response):
            return Head(event.status_code, event.headers.raw_items(), event.http_version,
                        event.reason)
        if isinstance(event, h11.Data):
            return bytes(event.data)
        if isinstance(event, h11.EndOfMessage | h11.ConnectionClosed) or event is h11.PAUSED:
            return END
        return None

    def _awaiting_head(self) -> bool:
        if self.plain is not None:
            return self.plain.head is None
        return self.h11.their_state == _h11().SEND_RESPONSE  # type: ignore[no-any-return]

    async def next_event(self, timeout: float | None) -> Any:
        while True:
            event = self._event()
            if event is not NEED_DATA:
                return event
            try:
                async with asyncio.timeout(timeout):
                    data = await self.reader.read(READ_BYTES)
            except TimeoutError:
                raise self.kinds.ReadTimeout("") from None
            except OSError:
                raise self.kinds.ReadError("") from None  # anyio's BrokenResourceError
            if data == b"" and self._awaiting_head():
                raise self.kinds.RemoteProtocolError(
                    "Server disconnected without sending a response.")
            if self.plain is not None:
                self.plain.receive_data(data)
            else:
                self.h11.receive_data(data)

    async def exchange(self, method: bytes, target: bytes, headers: Any, body: Any,
                       timeout: dict[str, float | None]) -> Head:
        """Send the request (``body``: bytes, an async iterable of bytes, or None); the
        answer's head."""
        write = timeout.get("write")
        plain = self.plain
        head = None
        if plain is not None and (body is None or isinstance(body, bytes)):
            head = request_bytes(method, target, headers, body)
        if head is None:  # h11 writes it: from this exchange on, h11 carries the connection
            await self._exchange_h11(method, target, headers, body, write)
        else:
            assert plain is not None
            self._request = (method, target, headers, body)
            try:
                await self._write(head, write)
                if body:
                    await self._write(body, write)
                plain.sent = True
            except TimeoutError:
                raise self.kinds.WriteTimeout("") from None
            except OSError:  # as below
                pass
        while True:
            event = await self.next_event(timeout.get("read"))
            if isinstance(event, Head):
                return event

    async def _exchange_h11(self, method: bytes, target: bytes, headers: Any, body: Any,
                            write: float | None) -> None:
        h11 = _h11()
        if self.h11 is None:
            self.h11 = h11.Connection(our_role=h11.CLIENT,
                                      max_incomplete_event_size=MAX_INCOMPLETE_EVENT)
        if self.plain is not None:  # what the server sent after the last answer, kept
            if self.plain.buffer:  # (empty: h11 would read it as the end)
                self.h11.receive_data(self.plain.buffer)
            if self.plain.closed:
                self.h11.receive_data(b"")
            self.plain = None
        if isinstance(body, bytes):
            body = _once(body)
        try:
            request = h11.Request(method=method, target=target, headers=headers)
        except h11.LocalProtocolError as exc:
            raise self.kinds.LocalProtocolError(str(exc)) from None
        try:
            await self._write(self.h11.send(request), write)
            if body is not None:
                async for chunk in body:
                    await self._write(self.h11.send(h11.Data(data=chunk)), write)
            await self._write(self.h11.send(h11.EndOfMessage()), write)
        except TimeoutError:
            raise self.kinds.WriteTimeout("") from None
        except OSError:  # httpcore's WriteError, let pass: the server may have answered
            pass         # before it read everything

    async def body(self) -> AsyncIterator[bytes]:
        """The rest of the answer, as it arrives (``self.read_timeout`` between reads)."""
        while True:
            event = await self.next_event(self.read_timeout)
            if isinstance(event, bytes):
                yield event
            elif event is END:
                break

    read_timeout: float | None = None

    def close(self) -> None:
        with contextlib.suppress(OSError, RuntimeError):  # a loop already closed
            self.writer.close()


def _h11() -> Any:
    import h11

    return h11


async def _once(body: bytes) -> AsyncIterator[bytes]:
    yield body
