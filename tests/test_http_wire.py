"""The CLI's connections read a plain exchange without h11 (``tamis.http_wire``) and give what
h11 gives: the same request bytes, the same head, header values, body chunks, end, reuse and
errors in the same words, for well-formed and malformed answers, whole or cut anywhere into
reads; a connection read plainly is compared with one read by h11 from the start."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import h11
import httpx
import pytest

from tamis.http_connection import Connection
from tamis.http_wire import Head, request_bytes

OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello"
CHUNKED = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Two: a\r\nx-two: b\r\n\r\n"
           b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
ANSWERS: dict[str, bytes] = {
    "content-length": OK,
    "empty body": b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n",
    "chunked": CHUNKED,
    "chunked, upper case": CHUNKED.replace(b"chunked", b"CHUNKED"),
    "chunked and a length": CHUNKED.replace(b"X-Two: a", b"Content-Length: 3"),
    "hex sizes": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nA\r\n0123456789\r\n"
                 b"0\r\n\r\n",
    "http/1.0": OK.replace(b"HTTP/1.1", b"HTTP/1.0"),
    "until closed": b"HTTP/1.0 200 OK\r\nServer: x\r\n\r\nall of it",
    "1.1 until closed": b"HTTP/1.1 200 OK\r\n\r\nall of it",
    "connection close": OK.replace(b"Content-Type", b"Connection: keep-alive, Close\r\nA"),
    "no reason": b"HTTP/1.1 404\r\nContent-Length: 2\r\n\r\nno",
    "empty reason": b"HTTP/1.1 503 \r\nContent-Length: 2\r\n\r\nno",
    "reason with tab": b"HTTP/1.1 200 O\tK \r\nContent-Length: 2\r\n\r\nok",
    "spaces around a value": b"HTTP/1.1 200 OK\r\nX-A:   spaced  out \t\r\nX-B:\r\n"
                             b"Content-Length:2\r\n\r\nok",
    "204": b"HTTP/1.1 204 No Content\r\nContent-Length: 7\r\n\r\n",
    "304": b"HTTP/1.1 304 Not Modified\r\n\r\n",
    "100 then 200": b"HTTP/1.1 100 Continue\r\n\r\n" + OK,
    "status 600": b"HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\nok",
    "obs-text": b"HTTP/1.1 200 OK\r\nX-A: caf\xc3\xa9\r\nContent-Length: 2\r\n\r\nok",
    "control char": b"HTTP/1.1 200 OK\r\nX-A: a\x01b\r\nContent-Length: 2\r\n\r\nok",
    "folded header": b"HTTP/1.1 200 OK\r\nX-A: a\r\n b\r\nContent-Length: 2\r\n\r\nok",
    "bare line feeds": b"HTTP/1.1 200 OK\nContent-Length: 2\n\nok",
    "mixed line ends": b"HTTP/1.1 200 OK\r\nContent-Length: 2\n\r\nok",
    "space before colon": b"HTTP/1.1 200 OK\r\nX-A : b\r\nContent-Length: 2\r\n\r\nok",
    "no colon": b"HTTP/1.1 200 OK\r\nnonsense\r\nContent-Length: 2\r\n\r\nok",
    "two lengths": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nok",
    "two lengths differ": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
    "listed length": b"HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok",
    "bad length": b"HTTP/1.1 200 OK\r\nContent-Length: -2\r\n\r\nok",
    "huge length": b"HTTP/1.1 200 OK\r\nContent-Length: " + b"9" * 21 + b"\r\n\r\nok",
    "gzip encoding": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nok",
    "two encodings": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: "
                     b"chunked\r\n\r\n0\r\n\r\n",
    "nonsense": b"NONSENSE\r\n\r\n",
    "leading space": b" HTTP/1.1 200 OK\r\n\r\n",
    "leading blank line": b"\r\n" + OK,
    "tls answer": b"\x16\x03\x01\x00\x05hello",
    "http/2": b"HTTP/2.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
    "cut head": OK[:30],
    "cut body": OK[:-2],
    "cut chunks": CHUNKED[:-12],
    "cut chunk size": CHUNKED[:-5],
    "cut before the last CRLF": CHUNKED[:-2],
    "cut in the last CRLF": CHUNKED[:-1],
    "chunk extension": CHUNKED.replace(b"5\r\nhello", b"5;name=v\r\nhello"),
    "size with spaces": CHUNKED.replace(b"5\r\nhello", b"5  \r\nhello"),
    "bad size": CHUNKED.replace(b"5\r\nhello", b"zz\r\nhello"),
    "long size": CHUNKED.replace(b"5\r\nhello", b"0" * 19 + b"5\r\nhello"),
    "bad footer": CHUNKED.replace(b"hello\r\n", b"helloXY"),
    "half a footer": CHUNKED.replace(b"hello\r\n", b"hello\rY"),
    "trailers": CHUNKED[:-2] + b"X-Sum: 1\r\n\r\n",
    "bare LF at the end": CHUNKED[:-2] + b"\n",
    "extra after the body": OK + b"GARBAGE",
    "two answers": OK + OK.replace(b"hello", b"again"),
    "two chunked answers": CHUNKED + CHUNKED,
    "a second answer malformed": OK + b"HTTP/1.1 200 OK\r\nbad line\r\n\r\n",
    "a second answer cut": OK + OK[:20],
    "huge head": b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000,
    "huge chunk size line": CHUNKED[:CHUNKED.index(b"\r\n\r\n") + 4] + b"5" * 200_000,
}


class Reads:
    """A stream reader that gives the answer in the pieces given, then the end."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = list(pieces)

    async def read(self, _: int) -> bytes:
        return self.pieces.pop(0) if self.pieces else b""


class Writes:
    def __init__(self) -> None:
        self.sent = bytearray()

    def write(self, data: bytes) -> None:
        self.sent += data

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None


GET = (b"GET", b"/search?q=a", [(b"Host", b"127.0.0.1:8888"), (b"Accept", b"*/*"),
                                (b"Connection", b"keep-alive")], None)


def _said(pieces: list[bytes], plain: bool, requests: int) -> list[Any]:
    """Everything a connection gives for ``requests`` GETs on the answer in ``pieces``."""
    async def main() -> list[Any]:
        writer = Writes()
        connection = Connection(Reads(pieces), writer, httpx, plain=plain)  # type: ignore[arg-type]
        said: list[Any] = []
        try:
            for _ in range(requests):
                method, target, headers, body = GET
                head = await connection.exchange(method, target, headers, body,
                                                 {"read": 5.0, "write": 5.0})
                said.append((head.status_code, head.headers, head.http_version, head.reason))
                said.append([chunk async for chunk in connection.body()])
                said.append(connection.finished())
                if not connection.finished():
                    break
                connection.start_next_cycle()
        except httpx.HTTPError as exc:
            said.append((type(exc).__name__, str(exc)))
        said.append(bytes(writer.sent))
        return said
    return asyncio.run(main())


def _splits(answer: bytes) -> list[list[bytes]]:
    """The answer whole, in one-byte reads (short ones), and cut in two anywhere."""
    cuts: list[list[bytes]] = [[answer]]
    if len(answer) < 400:
        cuts.append([answer[i:i + 1] for i in range(len(answer))])
        cuts += [[answer[:i], answer[i:]] for i in range(1, len(answer))]
    else:
        cuts += [[answer[:i], answer[i:]] for i in (1, 17, 40, 102_400, len(answer) - 1)]
    return cuts


@pytest.mark.parametrize("case", sorted(ANSWERS))
def test_a_plain_reading_gives_what_h11_gives(case: str) -> None:
    requests = 2 if case.startswith(("two", "a second", "extra")) else 1
    for pieces in _splits(ANSWERS[case]):
        assert _said(pieces, True, requests) == _said(pieces, False, requests), (case, pieces)


def test_the_plain_reading_is_the_one_used_for_plain_answers() -> None:
    """Well-formed answers are read without h11 (nothing handed over)."""
    async def main() -> Any:
        connection = Connection(Reads([OK, CHUNKED]), Writes(), httpx)  # type: ignore[arg-type]
        for _ in range(2):
            head = await connection.exchange(*GET, {"read": 5.0})
            assert isinstance(head, Head)
            assert b"".join([c async for c in connection.body()]) in (b"hello",
                                                                       b"hello world")
            assert connection.finished()
            connection.start_next_cycle()
        return connection.plain, connection.h11
    plain, via_h11 = asyncio.run(main())
    assert plain is not None and via_h11 is None


HEADERS = [
    [(b"Host", b"a.example"), (b"Accept", b"*/*")],
    [(b"Accept", b"*/*"), (b"host", b"a.example:81"), (b"X-Key", b"k 1\tz")],
    [(b"Host", b"a"), (b"Content-Length", b"2")],
    [(b"Host", b"a"), (b"Content-Length", b"3")],
    [(b"Host", b"a"), (b"Content-Length", b"2"), (b"Content-Length", b"2")],
    [(b"Host", b"a"), (b"Content-Type", b"application/json"), (b"Content-Length", b"2")],
    [(b"Host", b"a"), (b"Host", b"b")],
    [(b"Accept", b"*/*")],
    [(b"Host", b"a"), (b"X-A", b" lead")],
    [(b"Host", b"a"), (b"X-A", b"trail ")],
    [(b"Host", b"a"), (b"X-A", b"")],
    [(b"Host", b"a"), (b"Bad Name", b"v")],
    [(b"Host", b"a"), (b"X-A", b"caf\xc3\xa9")],
    [(b"Host", b"a"), (b"Transfer-Encoding", b"chunked")],
    [(b"Host", b"a"), (b"Expect", b"100-continue")],
    [(b"Host", b"a"), (b"Connection", b"close")],
    [(b"Host", b"a"), (b"Connection", b"keep-alive")],
]


@pytest.mark.parametrize(("headers", "method", "target", "body"), list(itertools.product(
    HEADERS, [b"GET", b"POST", b"G T"], [b"/", b"/s?q=%20x", b"/a b"], [None, b"{}"])))
def test_a_request_written_plainly_is_what_h11_writes(
        headers: list[tuple[bytes, bytes]], method: bytes, target: bytes,
        body: bytes | None) -> None:
    plain = request_bytes(method, target, headers, body)
    connection = h11.Connection(our_role=h11.CLIENT)
    try:
        written = connection.send(h11.Request(method=method, target=target, headers=headers))
        if body:
            written += connection.send(h11.Data(data=body))
        written += connection.send(h11.EndOfMessage())
    except h11.LocalProtocolError:
        assert plain is None  # h11 refuses it: left to h11, to refuse in its words
        return
    if plain is not None:
        assert plain + (body or b"") == written
    if headers in (HEADERS[0], HEADERS[1]) and method != b"G T" and target != b"/a b" \
            and body is None:
        assert plain is not None  # a plain request is written here
