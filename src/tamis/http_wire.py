"""HTTP/1.1 for the CLI's backend requests, written and read without h11 when they are plain,
with h11's results (``tamis.http_h11``'s connections drive it; importing h11 costs about a
twelfth of a CLI search's CPU).

``Plain`` holds one connection's exchange: the request as h11 writes it, and the answer as
h11 reads it (the same head, header values, body chunks, end and keep-alive). Only what is
plainly well formed is read here: a request of token names and values h11 accepts unchanged;
an answer ``HTTP/1.0`` or ``1.1`` with a 2xx-5xx status, header lines ``name: value`` of
printable ASCII ending in CRLF, at most one ``Content-Length`` (digits) and one
``Transfer-Encoding: chunked``, chunk sizes in hex alone on their line, no trailers.
Anything else is ``UNPLAIN`` at the first byte h11 might read differently (or when h11
would refuse it): the caller hands the bytes received so far to h11 (``replay``), which
goes on from the same point, so an unusual or malformed answer ends in h11's own words.
The failures read here are said in h11's words (a test compares both on many answers).
"""

from __future__ import annotations

from typing import Any

MAX_CONTENT_LENGTH_DIGITS = 20  # h11's CONTENT_LENGTH_MAX_DIGITS
_TOKEN = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_VISIBLE = bytes(range(0x21, 0x7F))
_TEXT = _VISIBLE + b" \t"
_HEX = b"0123456789abcdefABCDEF"
_DIGITS = b"0123456789"
NEED_DATA = "need data"
END = "end"
UNPLAIN = "unplain"  # not read here: h11 reads it from here (``Plain.replay``)


class Head:
    """The answer's head, as h11's ``Response`` gives it."""

    __slots__ = ("headers", "http_version", "reason", "status_code")

    def __init__(self, status_code: int, headers: list[tuple[bytes, bytes]],
                 http_version: bytes, reason: bytes) -> None:
        self.status_code, self.headers = status_code, headers
        self.http_version, self.reason = http_version, reason


def _only(data: bytes, allowed: bytes) -> bool:
    return not data.translate(None, allowed)


def request_bytes(method: bytes, target: bytes, headers: list[tuple[bytes, bytes]],
                  body: bytes | None) -> bytes | None:
    """The request head h11 writes for these, or None when h11 might refuse or frame it
    otherwise (then h11 writes it)."""
    if not method or not _only(method, _TOKEN) or not target or not _only(target, _VISIBLE):
        return None
    hosts, others, length = [], [], None
    for name, value in headers:
        if not name or not _only(name, _TOKEN) or not _only(value, _TEXT) \
                or value != value.strip(b" \t"):
            return None
        lower = name.lower()
        if lower == b"content-length":
            if length is not None or not value or not _only(value, _DIGITS):
                return None
            length = int(value)
        elif lower in (b"transfer-encoding", b"expect", b"connection", b"upgrade") \
                and (lower != b"connection" or _tokens(value) != [b"keep-alive"]):
            return None  # framing, keep-alive, upgrades: h11's
        (hosts if lower == b"host" else others).append(b"%s: %s\r\n" % (name, value))
    if len(hosts) != 1 or (length or 0) != (0 if body is None else len(body)):
        return None
    return b"".join([b"%s %s HTTP/1.1\r\n" % (method, target), *hosts, *others, b"\r\n"])


def _tokens(value: bytes) -> list[bytes]:
    """h11's ``get_comma_header`` of one value."""
    return [part.strip() for part in value.lower().split(b",") if part.strip()]


class Plain:
    """One connection's exchanges read without h11 (see the module's docstring)."""

    def __init__(self) -> None:
        self.buffer = b""  # received, not yet read
        self.closed = False  # the peer closed its side
        self.start_next_cycle()

    def start_next_cycle(self) -> None:
        self.head: bytes | None = None  # this answer's head as received
        self.framing = ""  # "content-length", "chunked", "http/1.0": the body's
        self.remaining = 0  # of the body (content-length) or of the chunk (chunked)
        self.footer = b""  # of a chunk, still to come
        self.keep_alive = True
        self.sent = False  # the whole request went out
        self.done = False  # the whole answer came in

    def receive_data(self, data: bytes) -> None:
        if data:
            self.buffer += data
        else:
            self.closed = True

    def reusable(self) -> bool:
        """h11's states both ``DONE``: the connection can carry the next request."""
        return self.sent and self.done and self.keep_alive

    def next_event(self, max_head: int) -> Any:
        """A ``Head``, a body chunk (bytes), ``END``, ``NEED_DATA``, or ``UNPLAIN`` for h11 to
        read from here; ``ValueError`` with h11's words for a body cut short."""
        if self.head is None:
            return self._head(max_head)
        if self.done:
            return END
        if self.framing == "chunked":
            return self._chunked(max_head)
        data = self.buffer
        if self.framing == "content-length":
            if self.remaining == 0:
                self.done = True
                return END
            data = data[:self.remaining]
            self.remaining -= len(data)
        if data:
            self.buffer = self.buffer[len(data):]
            return data
        if self.closed:
            if self.framing == "http/1.0":
                self.done = True  # h11's DONE too: the closed connection is kept, never used
                return END
            raise ValueError("peer closed connection without sending complete message body"
                             f" (received {self.length - self.remaining} bytes, expected"
                             f" {self.length})")
        return NEED_DATA

    length = 0  # the body's Content-Length

    def _head(self, max_head: int) -> Any:
        buffer = self.buffer
        end = buffer.find(b"\r\n\r\n")
        if end < 0:
            if b"\n\n" in buffer or b"\n\r\n" in buffer or len(buffer) > max_head \
                    or (buffer and buffer[0] < 0x21):
                return UNPLAIN
            return NEED_DATA
        head = buffer[:end]
        if head.count(b"\n") != head.count(b"\r") or head.count(b"\n") != head.count(b"\r\n"):
            return UNPLAIN
        lines = head.split(b"\r\n")
        status = lines[0]
        version = status[5:8]
        if status[:5] != b"HTTP/" or version not in (b"1.0", b"1.1") or status[8:9] != b" " \
                or not _only(status[9:12], _DIGITS) or len(status) < 12 \
                or not 200 <= int(status[9:12]) <= 599 \
                or (len(status) > 12 and status[12:13] != b" ") \
                or not _only(status[13:], _TEXT):
            return UNPLAIN
        headers, length, chunked = [], None, False
        for line in lines[1:]:
            name, colon, value = line.partition(b":")
            value = value.strip(b" \t")
            if not colon or not name or not _only(name, _TOKEN) or not _only(value, _TEXT):
                return UNPLAIN
            lower = name.lower()
            if lower == b"content-length":
                if length is not None or not value or not _only(value, _DIGITS) \
                        or len(value) > MAX_CONTENT_LENGTH_DIGITS:
                    return UNPLAIN
                length = int(value)
            elif lower == b"transfer-encoding":
                value = value.lower()
                if chunked or value != b"chunked":
                    return UNPLAIN
                chunked = True
            elif lower == b"connection" and b"close" in _tokens(value):
                self.keep_alive = False
            headers.append((name, value))
        code = int(status[9:12])
        self.keep_alive = self.keep_alive and version == b"1.1"
        if code in (204, 304):
            self.framing, self.remaining = "content-length", 0
        elif chunked:
            self.framing = "chunked"
        elif length is not None:
            self.framing, self.remaining = "content-length", length
        else:
            self.framing = "http/1.0"
        self.length = self.remaining
        self.head, self.buffer = buffer[:end + 4], buffer[end + 4:]
        return Head(code, headers, version, status[13:])

    def _chunked(self, max_head: int) -> Any:
        while self.footer:  # the CRLF after a chunk's data, as h11 reads it
            data = self.buffer[:len(self.footer)]
            if not data:
                return self._eof()
            if data != self.footer[:len(data)]:
                raise ValueError(f"malformed chunk footer: {bytearray(data)!r}"
                                 f" (expected {self.footer!r})")
            self.buffer, self.footer = self.buffer[len(data):], self.footer[len(data):]
        if self.remaining == 0:  # a chunk's size line: h11 reads it from here alike
            line_end = self.buffer.find(b"\r\n")
            if line_end < 0:
                if self.closed or len(self.buffer) > max_head:
                    return UNPLAIN
                return NEED_DATA
            size = self.buffer[:line_end]
            if not size or len(size) > 16 or not _only(size, _HEX):
                return UNPLAIN
            if int(size, 16) == 0:
                rest = self.buffer[line_end + 2:line_end + 4]
                if rest == b"\r\n":
                    self.buffer, self.done = self.buffer[line_end + 4:], True
                    return END
                if rest == b"\r\n"[:len(rest)] and not self.closed \
                        and len(self.buffer) <= max_head:
                    return NEED_DATA
                return UNPLAIN  # trailers: h11's
            self.remaining, self.buffer = int(size, 16), self.buffer[line_end + 2:]
        data = self.buffer[:self.remaining]
        if not data:
            return self._eof()
        self.buffer, self.remaining = self.buffer[len(data):], self.remaining - len(data)
        if self.remaining == 0:
            self.footer = b"\r\n"
        return data

    def _eof(self) -> str:
        if self.closed:
            raise ValueError("peer closed connection without sending complete message body"
                             " (incomplete chunked read)")
        return NEED_DATA

    def replay(self, h11: Any, request: Any, body: bytes | None, max_event: int) -> Any:
        """An h11 connection where this one stands: the request sent (its bytes dropped:
        they went out from here, the same), the head and what follows received."""
        connection = h11.Connection(our_role=h11.CLIENT, max_incomplete_event_size=max_event)
        connection.send(request)
        if self.sent:
            if body:
                connection.send(h11.Data(data=body))
            connection.send(h11.EndOfMessage())
        if self.head is not None:
            connection.receive_data(self.head)
            connection.next_event()  # the head, already given
        if self.buffer:  # (empty: h11 would read it as the end)
            connection.receive_data(self.buffer)
        if self.closed:
            connection.receive_data(b"")
        return connection
