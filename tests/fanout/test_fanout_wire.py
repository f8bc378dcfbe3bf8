"""What a line says for each way a backend can answer on the wire: a malformed or cut answer, a
connection closed unanswered, a redirect, an encoding, a refusal, a slow or dead backend.
Each one a real socket on 127.0.0.1 answering exactly these bytes, asked through the client
tamis makes (``tamis_client``); one clear note for each failure, and the request sent as
httpx encodes it."""

from __future__ import annotations

import asyncio
import gzip
import json
import socket
from collections.abc import Callable

import pytest
from loopback import RawServer, raw_reply

from tamis.backends.registry import make_adapter
from tamis.http_client import tamis_client
from tamis.models import LineAnswer, SearchRequest
from tamis.pipeline.fanout import FanoutContext, ask_line
from tamis.policy.schema import LineConfig

OK = json.dumps({"results": [{"title": "T", "url": "https://t.example/a", "content": "c"}]})
QUERY = "a b/é?&"
SENT = b"GET /search?q=a+b%2F%C3%A9%3F%26&format=json HTTP/1.1\r\n"


def _json(body: bytes | str, *headers: str, status: str = "200 OK") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return raw_reply(data, status, ("Content-Type: application/json", *headers))


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return zstandard.ZstdCompressor().compress(data)  # type: ignore[no-any-return]


CUT = "cannot connect: RemoteProtocolError: peer closed connection without sending complete"
# case: (the answer's bytes, the line's status, its outcome kind, how its note begins)
CASES: dict[str, tuple[Callable[[], bytes | None], str, str, str]] = {
    "answer": (lambda: _json(OK), "ok", "answered", ""),
    "gzip": (lambda: _json(gzip.compress(OK.encode()), "Content-Encoding: gzip"),
             "ok", "answered", ""),
    "zstd": (lambda: _json(_zstd(OK.encode()), "Content-Encoding: zstd"),
             "ok", "answered", ""),
    "two encodings": (lambda: _json(gzip.compress(gzip.compress(OK.encode())),
                                    "Content-Encoding: gzip, gzip"), "ok", "answered", ""),
    "bad gzip": (lambda: _json(b"not gzip at all", "Content-Encoding: gzip"),
                 "failed", "unreadable", "unreadable answer: DecodingError: Error -3"),
    "bad zstd": (lambda: _json(b"not zstd", "Content-Encoding: zstd"),
                 "failed", "unreadable", "unreadable answer: DecodingError: zstd"),
    "not json": (lambda: raw_reply(b"<html>hi</html>", headers=("Content-Type: text/html",)),
                 "failed", "bad_answer", "answered text/html, not JSON"),
    "redirect": (lambda: raw_reply(b"moved", "302 Found", ("Location: /elsewhere",)),
                 "failed", "bad_answer", "answered unknown type, not JSON"),
    "cut body": (lambda: _json(OK)[:-5], "failed", "unreachable",
                 CUT + " message body (received 70 bytes, expected 75) (after one retry)"),
    "cut chunks": (lambda: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                           b"5\r\nhello\r\n", "failed", "unreachable",
                   CUT + " message body (incomplete chunked read) (after one retry)"),
    "no answer": (lambda: None, "failed", "unreachable", "cannot connect: RemoteProtocolError:"
                  " Server disconnected without sending a response. (after one retry)"),
    "bad head": (lambda: b"NONSENSE\r\n\r\n", "failed", "unreachable",
                 "cannot connect: RemoteProtocolError: illegal status line: bytearray("
                 "b'NONSENSE') (after one retry)"),
    "server error": (lambda: _json("{}", status="503 Service Unavailable"), "failed",
                     "http_error", "HTTP 503: server error (after one retry)"),
    "rate limited": (lambda: raw_reply(b"slow down", "429 Too Many Requests"), "failed",
                     "http_error", "HTTP 429: SearXNG rate-limited this client"),
    "invalid 400": (lambda: _json(json.dumps({"error": "Invalid value 'x'\n for q"}),
                                  status="400 Bad Request"), "failed", "http_error",
                    "HTTP 400: SearXNG refused the request: Invalid value 'x' for q"),
}


def _ask(base_url: str, timeout: float = 5.0, path: str | None = None) -> LineAnswer:
    async def main() -> LineAnswer:
        async with tamis_client(timeout) as client:
            adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url=base_url,
                                              search_path=path))
            ctx = FanoutContext(client=client, env={}, timeout=timeout)
            return await ask_line(adapter, 0, SearchRequest(query=QUERY), ctx)
    return asyncio.run(main())


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_answer_gives_its_status_and_one_clear_note(case: str) -> None:
    script, status, kind, note = CASES[case]
    with RawServer(lambda _request: script()) as server:
        answer = _ask(server.url)
    assert (answer.status, answer.outcome.kind) == (status, kind), answer
    assert answer.outcome.message.startswith(note), answer.outcome.message
    if status == "failed":
        assert [n.kind for n in answer.notes] == ["line_failed"]
        assert "\n" not in answer.notes[0].message
    else:
        assert [h.url for h in answer.hits] == ["https://t.example/a"]
    assert server.seen[0].startswith(SENT)


def test_a_dead_backend_and_a_slow_one() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    dead = _ask(f"http://127.0.0.1:{closed}")
    assert (dead.status, dead.outcome.kind) == ("failed", "unreachable")
    assert dead.outcome.message == ("cannot connect: ConnectError: All connection attempts"
                                    " failed (after one retry)")
    with RawServer(lambda _request: _json(OK), pause=1.0) as server:
        slow = _ask(server.url, timeout=0.3)
    assert (slow.status, slow.outcome.message) == ("failed", "timed out (ReadTimeout)")


@pytest.mark.parametrize(("path", "sent"), [("/x/../search", b"GET /search?"),
                                            ("/s%C3%A9arch;x=[1]", b"GET /s%C3%A9arch;x=[1]?")])
def test_an_unusual_path_is_sent_as_httpx_encodes_it(path: str, sent: bytes) -> None:
    with RawServer(lambda _request: _json(OK)) as server:
        answer = _ask(server.url, path=path)
    assert answer.status == "ok" and server.seen[0].startswith(sent)
