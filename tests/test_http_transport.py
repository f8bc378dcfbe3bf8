"""The service's client (``tamis_client(..., service=True)``, over aiohttp) behaves as the plain
one (httpcore): the same bytes on the wire, the same answers, the same httpx errors, no
cookies, no redirects followed, proxies from the environment, a session per event loop.
Real sockets on 127.0.0.1; each case runs with both clients and compares."""

from __future__ import annotations

import asyncio
import gzip
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import aiohttp
import httpx
import pytest

from tamis.http_client import tamis_client
from tamis.http_transport import AiohttpTransport, ServiceClient, _mapped

CLIENTS = pytest.mark.parametrize("service", [False, True], ids=["httpcore", "aiohttp"])


class RawServer:
    """Answers each connection with ``script(request_bytes) -> reply bytes or None``
    (None: close without answering); keeps every request's raw bytes."""

    def __init__(self, script: Callable[[bytes], bytes | None], *, close: bool = True,
                 pause: float = 0.0, idle_close: float | None = None) -> None:
        self.script, self.close, self.pause = script, close, pause
        self.idle_close = idle_close
        self.seen: list[bytes] = []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
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
            while True:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        return
                    data += chunk
                head, _, body = data.partition(b"\r\n\r\n")
                length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                               if line.lower().startswith(b"content-length:")), 0)
                while len(body) < length:
                    body += conn.recv(65536)
                self.seen.append(head + b"\r\n\r\n" + body)
                reply = self.script(data)
                time.sleep(self.pause)
                if reply is None:
                    return
                if self.close and reply.startswith(b"HTTP/1.1 "):
                    reply = reply.replace(b"\r\n", b"\r\nConnection: close\r\n", 1)
                conn.sendall(reply)
                if self.close:
                    return
                if self.idle_close is not None:
                    time.sleep(self.idle_close)  # a server's keep-alive timeout
                    return

    def stop(self) -> None:
        self.sock.close()


@contextmanager
def raw_server(script: Callable[[bytes], bytes | None], **options: object) -> Iterator[RawServer]:
    server = RawServer(script, **options)  # type: ignore[arg-type]
    try:
        yield server
    finally:
        server.stop()


def reply(body: bytes = b"ok", status: str = "200 OK", headers: tuple[str, ...] = ()) -> bytes:
    lines = [f"HTTP/1.1 {status}", f"Content-Length: {len(body)}", *headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def run(service: bool, work: Callable[[httpx.AsyncClient], object], timeout: float = 5.0
        ) -> object:
    async def main() -> object:
        async with tamis_client(timeout, service=service) as client:
            return await work(client)  # type: ignore[misc]
    return asyncio.run(main())


def test_the_service_client_is_the_aiohttp_one_and_the_plain_one_is_not() -> None:
    async def kinds() -> tuple[object, object]:
        async with tamis_client(1.0) as plain, tamis_client(1.0, service=True) as served:
            return type(plain._transport), type(served._transport)

    plain, served = asyncio.run(kinds())
    assert plain is httpx.AsyncHTTPTransport and served is AiohttpTransport


def test_the_same_request_bytes_go_out() -> None:
    """Method, path and query as httpx encoded them (not re-quoted), every header in order
    (aiohttp adds none), the JSON body."""
    sent = {}
    for service in (False, True):
        with raw_server(lambda _: reply()) as server:
            async def ask(client: httpx.AsyncClient, port: int = server.port) -> None:
                await client.get(f"http://127.0.0.1:{port}/search",
                                 params={"q": "a b/c?d=é&x", "format": "json", "z": "%2F"},
                                 headers={"X-Api-Key": "k1"})
                await client.post(f"http://127.0.0.1:{port}/s%2Fx?q=1", json={"query": "é"},
                                  headers={"Host": "pinned.example"})
            run(service, ask)
            sent[service] = [r.replace(str(server.port).encode(), b"PORT") for r in server.seen]
    assert sent[True] == sent[False]
    assert sent[True][0].startswith(b"GET /search?q=a+b%2Fc%3Fd%3D%C3%A9%26x&format=json")
    assert b"\r\nHost: pinned.example\r\n" in sent[True][1]


@CLIENTS
def test_the_body_comes_back_raw_for_tamis_to_inflate(service: bool) -> None:
    packed = gzip.compress(b'{"results": []}' * 50)
    with raw_server(lambda _: reply(packed, headers=("Content-Encoding: gzip",))) as server:
        async def ask(client: httpx.AsyncClient) -> tuple[bytes, bytes]:
            request = client.build_request("GET", f"http://127.0.0.1:{server.port}/")
            response = await client.send(request, stream=True)
            raw = b"".join([chunk async for chunk in response.aiter_raw()])
            await response.aclose()
            return raw, (await client.get(f"http://127.0.0.1:{server.port}/")).content
        raw, decoded = run(service, ask)  # type: ignore[misc]
    assert raw == packed and decoded == b'{"results": []}' * 50


@CLIENTS
def test_no_cookie_is_kept_and_no_redirect_followed(service: bool) -> None:
    def script(request: bytes) -> bytes:
        return reply(b"moved", "302 Found", ("Location: /elsewhere", "Set-Cookie: id=1; Path=/"))

    with raw_server(script) as server:
        async def ask(client: httpx.AsyncClient) -> tuple[int, int]:
            first = await client.get(f"http://127.0.0.1:{server.port}/")
            await client.get(f"http://127.0.0.1:{server.port}/again")
            return first.status_code, len(client.cookies)
        status, kept = run(service, ask)  # type: ignore[misc]
    assert (status, kept) == (302, 0)
    assert len(server.seen) == 2 and all(b"cookie:" not in r.lower() for r in server.seen)


@CLIENTS
def test_connection_kept_alive_between_requests(service: bool) -> None:
    with raw_server(lambda _: reply(), close=False) as server:
        async def ask(client: httpx.AsyncClient) -> list[int]:
            return [(await client.get(f"http://127.0.0.1:{server.port}/{i}")).status_code
                    for i in range(3)]
        assert run(service, ask) == [200, 200, 200]
    assert len(server.seen) == 3


@CLIENTS
def test_a_connection_the_server_closed_while_idle_is_not_reused(service: bool) -> None:
    """A backend's keep-alive timeout: the next POST (not retried by aiohttp) goes out on a
    new connection."""
    with raw_server(lambda _: reply(), close=False, idle_close=0.05) as server:
        async def ask(client: httpx.AsyncClient) -> list[int]:
            codes = []
            for _ in range(2):
                codes.append((await client.post(f"http://127.0.0.1:{server.port}/",
                                                json={"q": 1})).status_code)
                await asyncio.sleep(0.3)
            return codes
        assert run(service, ask) == [200, 200]


def _error(service: bool, script: Callable[[bytes], bytes | None], url: str = "",
           timeout: float = 5.0, pause: float = 0.0) -> BaseException:
    with raw_server(script, pause=pause) as server:
        async def ask(client: httpx.AsyncClient) -> None:
            await client.get(url or f"http://127.0.0.1:{server.port}/")
        with pytest.raises(httpx.HTTPError) as caught:
            run(service, ask, timeout)
    return caught.value


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("case", ["refused", "no answer", "cut body", "cut chunks",
                                  "bad head", "slow", "ftp", "no scheme"])
def test_the_same_httpx_error_for_the_same_failure(case: str) -> None:
    scripts: dict[str, tuple[Callable[[bytes], bytes | None], str, float, float]] = {
        "refused": (lambda _: reply(), f"http://127.0.0.1:{_closed_port()}/", 5.0, 0.0),
        "no answer": (lambda _: None, "", 5.0, 0.0),
        "cut body": (lambda _: reply(b"x" * 10)[:-5], "", 5.0, 0.0),
        "cut chunks": (lambda _: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 b"5\r\nhello\r\n", "", 5.0, 0.0),
        "bad head": (lambda _: b"NONSENSE\r\n\r\n", "", 5.0, 0.0),
        "slow": (lambda _: reply(), "", 0.2, 1.0),
        "ftp": (lambda _: reply(), "ftp://127.0.0.1/x", 5.0, 0.0),
        "no scheme": (lambda _: reply(), "//127.0.0.1/x", 5.0, 0.0),
    }
    script, url, timeout, pause = scripts[case]
    errors = [_error(service, script, url, timeout, pause) for service in (False, True)]
    assert type(errors[1]) is type(errors[0]), errors
    if case != "bad head":  # a malformed head: aiohttp's parser words it its own way
        assert str(errors[1]) == str(errors[0])
    assert errors[1].request.url.path == errors[0].request.url.path


def test_no_error_repeats_the_url_aiohttp_put_in_its_message() -> None:
    """aiohttp names the URL in some messages; a URL's query may carry a key."""
    url = "http://127.0.0.1:9/search?api_key=SECRET-VALUE"
    for exc in (aiohttp.ClientOSError(32, f"Can not write request body for {url}"),
                aiohttp.ClientConnectionError(f"Connection lost: {url}"),
                aiohttp.InvalidURL(url)):
        mapped = _mapped(exc)
        assert mapped is not None and "SECRET" not in str(mapped), (exc, mapped)


def test_aiohttps_timeouts_are_httpxs() -> None:
    assert isinstance(_mapped(aiohttp.ConnectionTimeoutError("x")), httpx.ConnectTimeout)
    assert isinstance(_mapped(aiohttp.SocketTimeoutError("x")), httpx.ReadTimeout)
    assert _mapped(ValueError("not aiohttp's")) is None


@CLIENTS
def test_a_proxy_from_the_environment_is_used(service: bool,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    with raw_server(lambda _: reply(b"via proxy")) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)

        async def ask(client: httpx.AsyncClient) -> bytes:
            return (await client.get("http://search.example/q")).content
        assert run(service, ask) == b"via proxy"
    assert proxy.seen[0].startswith(b"GET http://search.example/q HTTP/1.1")


def test_one_client_in_one_event_loop_after_another() -> None:
    """``asyncio.run`` twice with one client (the synchronous API, tests): a session per
    loop, the old one's sockets closed."""
    with raw_server(lambda _: reply(b"again"), close=False) as server:
        client = tamis_client(5.0, service=True)

        async def ask() -> bytes:
            return (await client.get(f"http://127.0.0.1:{server.port}/")).content

        assert asyncio.run(ask()) == b"again"
        assert asyncio.run(ask()) == b"again"

        async def close() -> None:
            await client.aclose()
        asyncio.run(close())


def test_an_unclosed_client_says_nothing_on_stderr() -> None:
    """A layer never closed (the Python API) must not print aiohttp's 'Unclosed client
    session' warning when it is collected."""
    with raw_server(lambda _: reply(), close=False) as server:
        code = f"""
import asyncio, gc
from tamis.http_client import tamis_client
async def main():
    client = tamis_client(5.0, service=True)
    await client.get("http://127.0.0.1:{server.port}/")
    del client
    gc.collect()
    await asyncio.sleep(0)
asyncio.run(main())
"""
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_the_client_class_keeps_a_cookie_jar_given_by_the_caller() -> None:
    """Only a jar that refuses every cookie skips extracting them; another jar keeps them."""
    with raw_server(lambda _: reply(headers=("Set-Cookie: id=1; Path=/",))) as server:
        async def main() -> int:
            async with ServiceClient() as client:
                await client.get(f"http://127.0.0.1:{server.port}/")
                return len(client.cookies)
        assert asyncio.run(main()) == 1


@pytest.fixture(scope="module")
def tls_server() -> Iterator[tuple[str, str]]:
    """An https server on 127.0.0.1 with a certificate from a test CA: (url, CA file)."""
    trustme = pytest.importorskip("trustme")
    import http.server
    import ssl
    import tempfile

    class Hello(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Length", "5")
            self.end_headers()
            self.wfile.write(b"hello")

        def log_message(self, *args: object) -> None:
            pass

    ca = trustme.CA()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Hello)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.NamedTemporaryFile(suffix=".pem") as bundle:
        ca.cert_pem.write_to_path(bundle.name)
        yield f"https://127.0.0.1:{server.server_address[1]}/", bundle.name
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("loop", ["asyncio", "uvloop"])
def test_tls_is_verified_as_httpx_verifies_it(tls_server: tuple[str, str], loop: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The CA bundle (``SSL_CERT_FILE``, loaded on the first https connection) is trusted;
    without it the certificate is refused with httpx's ConnectError, as by httpcore."""
    url, bundle = tls_server
    runner = asyncio.run if loop == "asyncio" else pytest.importorskip("uvloop").run

    def outcome(service: bool) -> object:
        async def main() -> object:
            async with tamis_client(5.0, service=service) as client:
                try:
                    return (await client.get(url)).content
                except httpx.HTTPError as exc:
                    return type(exc)
        return runner(main())

    monkeypatch.setenv("SSL_CERT_FILE", bundle)
    assert outcome(True) == outcome(False) == b"hello"
    monkeypatch.delenv("SSL_CERT_FILE")
    assert outcome(True) is outcome(False) is httpx.ConnectError
