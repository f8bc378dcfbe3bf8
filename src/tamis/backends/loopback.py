"""A programmable HTTP server on 127.0.0.1, for tests and the fan-out benchmark.

It answers in the shape of any provider: each path gets a ``Reply`` (status, JSON, delay) or
a function of the request it saw. Every request is recorded (method, path, query, headers,
JSON body, server-side start and end times on ``time.perf_counter``), so tests can prove
concurrency structurally (overlapping request intervals) and check which key was sent.

    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": [...]}, delay=0.3))
        line = LineConfig(name="x", base_url=server.url, search_path="/search")

Standard library only (``http.server`` in a thread, one thread per connection); it never
listens beyond the loopback interface.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """What a path answers. ``hang``: never answer (until the server stops)."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    content_type: str = "application/json"
    delay: float = 0.0
    hang: bool = False


@dataclass
class Seen:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    json: Any
    start: float
    end: float = 0.0
    status: int = 0

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())


Route = Reply | Callable[[Seen], Reply]


@dataclass
class _State:
    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[Seen] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stopping: threading.Event = field(default_factory=threading.Event)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # Headers and body are separate writes: without this, Nagle's algorithm and the
        # client's delayed ACK add ~40 ms to every answer.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # silent
        pass

    def _handle(self) -> None:
        state = self.server.state
        start = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        parts = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(parts.query, keep_blank_values=True).items()}
        seen = Seen(method=self.command, path=parts.path, query=query,
                    headers={k.lower(): v for k, v in self.headers.items()}, json=body,
                    start=start)
        with state.lock:
            state.seen.append(seen)
            route = state.routes.get(parts.path)
        if route is None:
            reply = Reply(status=404, json={"error": f"no route {parts.path}"})
        else:
            reply = route(seen) if callable(route) else route
        if reply.hang:
            state.stopping.wait()
            return
        if reply.delay:
            state.stopping.wait(reply.delay)
        data = reply.body if reply.body is not None else json.dumps(reply.json).encode()
        try:
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass
        seen.status = reply.status
        seen.end = time.perf_counter()

    do_GET = _handle
    do_POST = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    state: _State


class LoopbackServer:
    """Start with ``start()`` or ``with``; ``url`` is ``http://127.0.0.1:<free port>``."""

    def __init__(self) -> None:
        self.state = _State()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def seen(self) -> list[Seen]:
        with self.state.lock:
            return list(self.state.seen)

    def requests_to(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]

    def route(self, path: str, reply: Route) -> None:
        with self.state.lock:
            self.state.routes[path] = reply

    def clear(self) -> None:
        with self.state.lock:
            self.state.seen.clear()

    def start(self) -> LoopbackServer:
        server = _Server(("127.0.0.1", 0), _Handler)
        server.state = self.state
        self._server = server
        self._thread = threading.Thread(target=server.serve_forever, kwargs={
            "poll_interval": 0.05}, name="tamis-loopback", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.state.stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
