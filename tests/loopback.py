"""A real HTTP server on 127.0.0.1 for tests: the thing under test talks real HTTP to it.

    def app(req: Request) -> Reply: ...
    with LoopbackServer(app) as server:
        httpx.get(server.url + "/search?q=x")

``Reply.delay`` sleeps before answering (a slow backend); every request is recorded with
its start and end times in ``server.log`` so tests can prove concurrency structurally.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes

    def arg(self, name: str, default: str = "") -> str:
        return self.query.get(name, [default])[0]


@dataclass
class Reply:
    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "application/json"


@dataclass
class Logged:
    request: Request
    started: float
    ended: float = 0.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LoopbackServer:
    def __init__(self, app: Callable[[Request], Reply]) -> None:
        self.app = app
        self.log: list[Logged] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _handle(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                req = Request(self.command, parts.path, parse_qs(parts.query),
                              {k.lower(): v for k, v in self.headers.items()}, body)
                entry = Logged(req, time.monotonic())
                with outer._lock:
                    outer.log.append(entry)
                reply = outer.app(req)
                if reply.delay:
                    time.sleep(reply.delay)
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                try:
                    self.send_response(reply.status)
                    headers = {"Content-Type": reply.content_type, **reply.headers}
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                entry.ended = time.monotonic()

            do_GET = do_POST = do_PUT = do_DELETE = _handle

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> LoopbackServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
