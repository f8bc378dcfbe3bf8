"""Test support: a real page server on 127.0.0.1 and generated pages. No network beyond loopback.

``PageServer`` serves routes from a dict (body, status, headers, delay, streamed bodies,
POST handlers) with one thread per request, and logs when each request started and ended
(server-side, monotonic clock), so concurrency is asserted from what the server saw.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import random
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar

import httpx

from tamis.models import Result

PAGES = Path(__file__).parent / "pages"
HTML = {"Content-Type": "text/html; charset=utf-8"}

T = TypeVar("T")
PostHandler = Callable[[bytes, dict[str, str]], tuple[int, dict[str, str], bytes]]


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=lambda: dict(HTML))
    delay: float = 0.0
    chunks: Callable[[], Iterator[bytes]] | None = None  # streamed body, no Content-Length
    post: PostHandler | None = None


@dataclass
class Hit:
    path: str
    method: str
    headers: dict[str, str]
    started: float
    ended: float = 0.0


class PageServer:
    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.hits: list[Hit] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_GET(self) -> None:
                server.handle(self, "GET")

            def do_POST(self) -> None:
                server.handle(self, "POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def add(self, path: str, body: bytes | str = b"", **kw: object) -> str:
        data = body.encode("utf-8") if isinstance(body, str) else body
        self.routes[path] = Route(body=data, **kw)  # type: ignore[arg-type]
        return self.url(path)

    def hits_for(self, path: str) -> list[Hit]:
        with self.lock:
            return [h for h in self.hits if h.path == path]

    def handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        path = request.path.split("?")[0]
        hit = Hit(path, method, {k.lower(): v for k, v in request.headers.items()},
                  time.monotonic())
        with self.lock:
            self.hits.append(hit)
        route = self.routes.get(path)
        try:
            if route is None:
                self._send(request, 404, {"Content-Type": "text/html"}, b"<h1>Not found</h1>")
                return
            if route.delay:
                time.sleep(route.delay)
            if route.post is not None and method == "POST":
                length = int(request.headers.get("Content-Length") or 0)
                status, headers, body = route.post(request.rfile.read(length), hit.headers)
                self._send(request, status, headers, body)
            elif route.chunks is not None:
                request.send_response(route.status)
                for key, value in route.headers.items():
                    request.send_header(key, value)
                request.end_headers()
                for chunk in route.chunks():
                    request.wfile.write(chunk)
            else:
                self._send(request, route.status, route.headers, route.body)
        except (BrokenPipeError, ConnectionResetError):
            pass
        finally:
            hit.ended = time.monotonic()

    @staticmethod
    def _send(request: BaseHTTPRequestHandler, status: int, headers: dict[str, str],
              body: bytes) -> None:
        request.send_response(status)
        for key, value in headers.items():
            request.send_header(key, value)
        request.send_header("Content-Length", str(len(body)))
        request.end_headers()
        request.wfile.write(body)

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


# --- generated pages --------------------------------------------------------------------

SYLLABLE_TEXT = "ka lo mi nu pe ra si to va we xi yo zu ba de fi go hu ji ke la me ni po qu re"
SYLLABLES = SYLLABLE_TEXT.split()
WORDS = ["alpha", "beta", "gamma", "delta", "river", "stone", "cloud", "garden", "market",
         "engine", "signal", "harbor", "lantern", "omega",
         *(a + b + c for a in SYLLABLES[:12] for b in SYLLABLES[12:] for c in ("", "n", "s"))]


def sentence(seed: int, length: int = 12) -> str:
    """A deterministic pseudo-random sentence (distinct seeds give distinct sentences)."""
    rnd = random.Random(seed)
    return " ".join(rnd.choice(WORDS) for _ in range(length)).capitalize() + "."


def paragraphs(count: int, seed: int = 0, per: int = 4) -> list[str]:
    return [" ".join(sentence(seed * 1000 + p * 10 + s) for s in range(per)) for p in range(count)]


def article_html(title: str, paras: list[str], extra: str = "") -> str:
    body = "\n".join(f"<p>{p}</p>" for p in paras)
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{title}</title></head>"
            f"<body><nav><a href='/'>Home</a> <a href='/about'>About</a></nav>"
            f"<article><h1>{title}</h1>{body}{extra}</article>"
            f"<footer>Copyright 2026 Example</footer></body></html>")


def article_of_size(size: int, seed: int = 0, title: str = "Generated article") -> str:
    """An article page whose text is about ``size`` characters."""
    paras: list[str] = []
    total = 0
    index = 0
    while total < size:
        para = " ".join(sentence(seed * 10007 + index * 31 + s) for s in range(5))
        paras.append(para)
        total += len(para) + 2
        index += 1
    return article_html(title, paras)


def page(name: str) -> str:
    return (PAGES / name).read_text("utf-8")


def gzip_bomb(decompressed: int) -> bytes:
    """A gzip body that inflates to ``decompressed`` bytes of HTML whitespace."""
    head = b"<html><body><p>bomb</p>"
    return gzip.compress(head + b" " * (decompressed - len(head)), compresslevel=9)


def result(url: str, rank: int) -> Result:
    return Result(rank=rank, title=f"Result {rank}", url=url, host="127.0.0.1",
                  domain="127.0.0.1", source_type="web", engines=["test"],
                  positions={"test": rank}, score=100.0 - rank, snippet="")


def json_body(payload: object) -> bytes:
    return json.dumps(payload).encode("utf-8")


def run(make: Callable[[httpx.AsyncClient], Awaitable[T]]) -> T:
    """Run a coroutine that needs the shared client (one fresh client per call)."""
    async def main() -> T:
        async with httpx.AsyncClient(follow_redirects=False, timeout=10) as client:
            return await make(client)
    return asyncio.run(main())
