"""A backend answer is capped after decompression (a huge answer or a gzip bomb is refused
at the cap with a note, the other lines are kept) and the fan-out deadline still holds for
an answer that never ends."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from loopback import Reply

from tamis.backends.registry import make_adapter
from tamis.pipeline.fanout import MAX_ANSWER_BYTES
from tamis.policy.schema import LineConfig

OK = {"results": [{"title": "fine", "url": "https://ok.example/", "content": "ok"}]}


def big_answer(size: int) -> bytes:
    filler = "x" * 1000
    items = [{"title": "t", "url": f"https://big.example/{i}", "content": filler}
             for i in range(size // 1000 + 1)]
    return json.dumps({"results": items}).encode()


def lines(url: str) -> list:
    return [make_adapter(LineConfig(name="big", type="searxng", base_url=url)),
            make_adapter(LineConfig(name="good", base_url=url, search_path="/ok"))]


def test_a_huge_answer_is_refused_at_the_cap(server, run) -> None:
    server.route("/search", Reply(body=big_answer(MAX_ANSWER_BYTES + 100_000)))
    server.route("/ok", Reply(json=OK))
    big, good = run(lines(server.url), "q", timeout=30)
    assert big.status == "failed"
    assert any(f"larger than {MAX_ANSWER_BYTES} bytes" in n.message for n in big.notes)
    assert good.status == "ok"


def test_a_gzip_bomb_is_refused_at_the_cap_after_decompression(server, run) -> None:
    body = gzip.compress(big_answer(4 * MAX_ANSWER_BYTES), compresslevel=9)
    assert len(body) < MAX_ANSWER_BYTES // 20  # small on the wire, large once inflated
    server.route("/search", Reply(body=body, headers={"Content-Encoding": "gzip"}))
    server.route("/ok", Reply(json=OK))
    big, good = run(lines(server.url), "q", timeout=30)
    assert big.status == "failed"
    assert any("after decompression" in n.message for n in big.notes)
    assert good.status == "ok"


def test_an_answer_under_the_cap_is_read(server, run) -> None:
    server.route("/search", Reply(body=gzip.compress(big_answer(MAX_ANSWER_BYTES // 2)),
                                  headers={"Content-Encoding": "gzip"}))
    server.route("/ok", Reply(json=OK))
    big, good = run(lines(server.url), "q", timeout=30)
    assert big.status == "ok" and len(big.hits) > 100 and good.status == "ok"


@pytest.fixture
def trickle() -> Iterator[Callable[[int], str]]:
    """Servers that send headers declaring ``length`` bytes of body, then a byte of it every
    50 ms, forever."""
    stop = threading.Event()
    listeners: list[socket.socket] = []

    def start(length: int) -> str:
        listener = socket.socket()
        listeners.append(listener)
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        threading.Thread(target=_accept, args=(listener, length, stop), daemon=True).start()
        return f"http://127.0.0.1:{listener.getsockname()[1]}"

    yield start
    stop.set()
    for listener in listeners:
        listener.close()


def _accept(listener: socket.socket, length: int, stop: threading.Event) -> None:
    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                         b"Content-Length: %d\r\n\r\n{\"results\": [" % length)
            while not stop.is_set():
                try:
                    conn.sendall(b" ")
                except OSError:
                    return
                time.sleep(0.05)

    while not stop.is_set():
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=serve, args=(conn,), daemon=True).start()


def test_the_deadline_holds_for_an_answer_that_never_ends(trickle, server, run) -> None:
    server.route("/ok", Reply(json=OK))
    slow = make_adapter(LineConfig(name="slow", type="searxng", base_url=trickle(1_000_000)))
    good = make_adapter(LineConfig(name="good", base_url=server.url, search_path="/ok"))
    answers = run([slow, good], "q", timeout=1.0)
    assert [a.status for a in answers] == ["timeout", "ok"]


def test_an_answer_declared_over_the_cap_is_refused_before_it_is_read(trickle, run) -> None:
    """Its Content-Length says so: refused at once (read, it would trickle in until the
    deadline cut the line as ``timeout``)."""
    big = make_adapter(LineConfig(name="big", type="searxng",
                                  base_url=trickle(MAX_ANSWER_BYTES + 1)))
    [answer] = run([big], "q", timeout=5.0)
    assert answer.status == "failed" and answer.outcome.kind == "too_large"


@pytest.mark.parametrize("wbits", [15, -15])
def test_a_deflate_answer_is_read_and_capped(server, run, wbits: int) -> None:
    import zlib

    def deflate(data: bytes) -> bytes:
        packer = zlib.compressobj(9, zlib.DEFLATED, wbits)
        return packer.compress(data) + packer.flush()

    server.route("/search", Reply(body=deflate(json.dumps(OK).encode()),
                                  headers={"Content-Encoding": "deflate"}))
    server.route("/bomb", Reply(body=deflate(big_answer(2 * MAX_ANSWER_BYTES)),
                                headers={"Content-Encoding": "deflate"}))
    small = make_adapter(LineConfig(name="small", type="searxng", base_url=server.url))
    bomb = make_adapter(LineConfig(name="bomb", type="searxng", base_url=server.url,
                                   search_path="/bomb"))
    first, second = run([small, bomb], "q", timeout=30)
    assert first.status == "ok" and second.status == "failed"


def test_a_corrupt_gzip_answer_fails_the_line_with_a_note(server, run) -> None:
    server.route("/search", Reply(body=b"\x1f\x8b\x08\x00garbage-not-gzip",
                                  headers={"Content-Encoding": "gzip"}))
    server.route("/ok", Reply(json=OK))
    bad, good = run(lines(server.url), "q", timeout=30)
    assert bad.status == "failed" and "unreadable answer" in bad.notes[-1].message
    assert good.status == "ok"
