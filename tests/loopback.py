"""A programmable HTTP server on 127.0.0.1 for tests and benchmarks: the code under test talks
real HTTP to it, and it never listens beyond the loopback interface.

Two ways to answer, which combine:

    with LoopbackServer() as server:                 # per path
        server.route("/search", Reply(json={"results": [...]}, delay=0.3))

    with LoopbackServer(app) as server:              # a function for every other path
        ...                                          # app(request: Request) -> Reply

Every request is recorded (method, path, query, headers, body, server-side start and end on
``time.perf_counter``) in ``server.seen``, so tests can prove concurrency structurally
(overlapping request intervals) and check which key was sent. Standard library only.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """What the server answers. ``body`` (bytes or text) wins over ``json``; ``hang``: never
    answer (until the server stops)."""

    status: int = 200
    body: bytes | str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"
    json: Any = None
    hang: bool = False

    def data(self) -> bytes:
        if self.body is None:
            return json.dumps(self.json).encode()
        return self.body.encode() if isinstance(self.body, str) else self.body


@dataclass
class Request:
    """One request as the server saw it."""

    method: str
    path: str
    query: dict[str, str]  # the last value of each parameter
    params: dict[str, list[str]]  # every value of each parameter
    headers: dict[str, str]  # lower-cased names
    body: bytes
    json: Any
    start: float
    end: float = 0.0
    status: int = 0

    def header(self, name: str) -> str | None:
        return self.headers.get(name.lower())

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, default)


Seen = Request  # the name the backend tests use for a recorded request
Route = Reply | Callable[[Request], Reply]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class _State:
    app: Callable[[Request], Reply] | None = None
    routes: dict[str, Route] = field(default_factory=dict)
    seen: list[Request] = field(default_factory=list)
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
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        parts = urlsplit(self.path)
        params = parse_qs(parts.query, keep_blank_values=True)
        request = Request(method=self.command, path=parts.path,
                          query={k: v[-1] for k, v in params.items()}, params=params,
                          headers={k.lower(): v for k, v in self.headers.items()},
                          body=raw, json=parsed, start=start)
        with state.lock:
            state.seen.append(request)
            route = state.routes.get(parts.path)
        if route is None and state.app is not None:
            route = state.app
        if route is None:
            reply = Reply(status=404, json={"error": f"no route {parts.path}"})
        else:
            reply = route(request) if callable(route) else route
        if reply.hang:
            state.stopping.wait()
            return
        if reply.delay:
            state.stopping.wait(reply.delay)
        data = reply.data()
        try:
            self.send_response(reply.status)
            headers = {"Content-Type": reply.content_type, **reply.headers}
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            pass
        request.status = reply.status
        request.end = time.perf_counter()

    do_GET = do_POST = do_PUT = do_DELETE = _handle


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    # The default backlog of 5 drops connections under a burst, and the client's SYN retry
    # then adds a full second: benchmarks would measure the fake, not tamis.
    request_queue_size = 256
    state: _State

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer (the code under test refusing a body, a timeout)
        is what many tests do on purpose: no traceback on stderr, where it would mix with the
        output a test reads."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class LoopbackServer:
    """Start with ``start()`` or ``with``; ``url`` is ``http://127.0.0.1:<free port>``."""

    def __init__(self, app: Callable[[Request], Reply] | None = None) -> None:
        self.state = _State(app=app)
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        assert self._server is not None, "server not started"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return int(self._server.server_address[1])

    @property
    def seen(self) -> list[Request]:
        with self.state.lock:
            return list(self.state.seen)

    def requests_to(self, path: str) -> list[Request]:
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


class RawServer:
    """A server on 127.0.0.1 that answers each connection's one request with the bytes
    ``script(request_head)`` returns, as they are (a malformed head, a cut body...), then
    closes it; None: close without answering. ``pause``: seconds before answering. Keeps
    every request's head in ``seen``. Use with ``with``."""

    def __init__(self, script: Callable[[bytes], bytes | None], pause: float = 0.0) -> None:
        self.script, self.pause = script, pause
        self.seen: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(conn,), daemon=True).start()

    def _one(self, conn: socket.socket) -> None:
        with conn:
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                data += chunk
            self.seen.append(data)
            reply = self.script(data)
            time.sleep(self.pause)
            if reply is not None:
                with contextlib.suppress(OSError):
                    conn.sendall(reply)

    def __enter__(self) -> RawServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()


def raw_reply(body: bytes = b"ok", status: str = "200 OK", headers: tuple[str, ...] = ()
              ) -> bytes:
    """An HTTP/1.1 answer's bytes: status line, Content-Length, ``headers``, body."""
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", "Connection: close",
             *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


@contextlib.contextmanager
def trickling(every: float = 0.05) -> Iterator[str]:
    """A server that answers 200 with a long Content-Length, then one byte every ``every``
    seconds, forever: each read beats any read timeout, the answer never ends. Yields its
    base URL."""
    stop, listener = threading.Event(), socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n")
            while not stop.is_set():
                conn.sendall(b" ")
                time.sleep(every)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()
