"""The CLI's client (``tamis_client(..., cli=True)``, over asyncio's streams and h11) behaves as
the plain one (httpcore): the same bytes on the wire, the same answers, the same httpx errors
in the same words, no cookies, no redirects followed, connections kept alive, proxies from
the environment, TLS verified. Real sockets on 127.0.0.1; each case runs with both clients
and compares. And a CLI search uses it: neither httpcore nor anyio is imported."""

from __future__ import annotations

import asyncio
import contextlib
import gzip
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from loopback import LoopbackServer, Reply
from test_http_transport import RawServer, _closed_port, raw_server, reply, tls_server

from tamis.http_asyncio import AsyncioTransport
from tamis.http_client import tamis_client

__all__ = ["tls_server"]  # the fixture, shared with the service client's tests
CLIENTS = pytest.mark.parametrize("cli", [False, True], ids=["httpcore", "asyncio"])


def run(cli: bool, work: Callable[[httpx.AsyncClient], object], timeout: float = 5.0,
        **options: object) -> object:
    async def main() -> object:
        async with tamis_client(timeout, cli=cli, **options) as client:
            return await work(client)  # type: ignore[misc]
    return asyncio.run(main())


def test_the_cli_client_is_the_asyncio_one() -> None:
    async def kind() -> object:
        async with tamis_client(1.0, cli=True) as client:
            return type(client._transport)
    assert asyncio.run(kind()) is AsyncioTransport


def test_the_same_request_bytes_go_out() -> None:
    sent = {}
    for cli in (False, True):
        with raw_server(lambda _: reply()) as server:
            async def ask(client: httpx.AsyncClient, port: int = server.port) -> None:
                await client.get(f"http://127.0.0.1:{port}/search",
                                 params={"q": "a b/c?d=é&x", "format": "json", "z": "%2F"},
                                 headers={"X-Api-Key": "k1"})
                await client.post(f"http://127.0.0.1:{port}/s%2Fx?q=1", json={"query": "é"},
                                  headers={"Host": "pinned.example"})
                await client.post(f"http://127.0.0.1:{port}/up", content=b"x" * 70_000)
            run(cli, ask)
            sent[cli] = [r.replace(str(server.port).encode(), b"PORT") for r in server.seen]
    assert sent[True] == sent[False]
    assert len(sent[True]) == 3 and sent[True][2].endswith(b"x" * 70_000)


@CLIENTS
def test_the_body_comes_back_raw_and_whole(cli: bool) -> None:
    packed = gzip.compress(b'{"results": []}' * 5000)
    with raw_server(lambda _: reply(packed, headers=("Content-Encoding: gzip",))) as server:
        async def ask(client: httpx.AsyncClient) -> tuple[bytes, bytes, str, str]:
            request = client.build_request("GET", f"http://127.0.0.1:{server.port}/")
            response = await client.send(request, stream=True)
            raw = b"".join([chunk async for chunk in response.aiter_raw()])
            await response.aclose()
            again = await client.get(f"http://127.0.0.1:{server.port}/")
            return raw, again.content, again.http_version, again.reason_phrase
        raw, decoded, version, reason = run(cli, ask)  # type: ignore[misc]
    assert raw == packed and decoded == b'{"results": []}' * 5000
    assert (version, reason) == ("HTTP/1.1", "OK")


@CLIENTS
def test_chunked_answers_and_headers_as_sent(cli: bool) -> None:
    answer = (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nX-Two: a\r\nx-two: b\r\n\r\n"
              b"5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n")
    with raw_server(lambda _: answer) as server:
        async def ask(client: httpx.AsyncClient) -> tuple[bytes, list[tuple[bytes, bytes]]]:
            response = await client.get(f"http://127.0.0.1:{server.port}/")
            return response.content, response.headers.raw
        assert run(cli, ask) == (b"hello world", [  # the server puts Connection first
            (b"Connection", b"close"), (b"Transfer-Encoding", b"chunked"), (b"X-Two", b"a"),
            (b"x-two", b"b")])


@CLIENTS
def test_no_cookie_is_kept_and_no_redirect_followed(cli: bool) -> None:
    def script(request: bytes) -> bytes:
        return reply(b"moved", "302 Found", ("Location: /elsewhere", "Set-Cookie: id=1; Path=/"))

    with raw_server(script) as server:
        async def ask(client: httpx.AsyncClient) -> tuple[int, int]:
            first = await client.get(f"http://127.0.0.1:{server.port}/")
            await client.get(f"http://127.0.0.1:{server.port}/again")
            return first.status_code, len(client.cookies)
        assert run(cli, ask) == (302, 0)
    assert len(server.seen) == 2 and all(b"cookie:" not in r.lower() for r in server.seen)


class CountingServer(RawServer):
    """A RawServer that counts the connections it accepted."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        self.connections = 0
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def _one(self, conn: object) -> None:
        self.connections += 1
        with contextlib.suppress(ConnectionResetError):  # a client gone with the answer unread
            super()._one(conn)  # type: ignore[arg-type]


@CLIENTS
def test_one_connection_kept_alive_between_requests(cli: bool) -> None:
    server = CountingServer(lambda _: reply(), close=False)
    try:
        async def ask(client: httpx.AsyncClient) -> list[int]:
            return [(await client.get(f"http://127.0.0.1:{server.port}/{i}")).status_code
                    for i in range(3)]
        assert run(cli, ask) == [200, 200, 200]
    finally:
        server.stop()
    assert len(server.seen) == 3 and server.connections == 1


@CLIENTS
def test_a_connection_the_server_closed_while_idle_is_not_reused(cli: bool) -> None:
    server = CountingServer(lambda _: reply(), close=False, idle_close=0.05)
    try:
        async def ask(client: httpx.AsyncClient) -> list[int]:
            codes = []
            for _ in range(2):
                codes.append((await client.post(f"http://127.0.0.1:{server.port}/",
                                                json={"q": 1})).status_code)
                await asyncio.sleep(0.3)
            return codes
        assert run(cli, ask) == [200, 200]
    finally:
        server.stop()
    assert server.connections == 2


@CLIENTS
def test_a_body_left_unread_closes_its_connection(cli: bool) -> None:
    server = CountingServer(lambda _: reply(b"y" * 200_000), close=False)
    try:
        async def ask(client: httpx.AsyncClient) -> int:
            request = client.build_request("GET", f"http://127.0.0.1:{server.port}/")
            response = await client.send(request, stream=True)
            async for _chunk in response.aiter_raw():
                break  # a cap reached: the rest is not read
            await response.aclose()
            return (await client.get(f"http://127.0.0.1:{server.port}/")).status_code
        assert run(cli, ask) == 200
    finally:
        server.stop()
    assert server.connections == 2


@CLIENTS
def test_requests_wait_for_a_connection_then_time_out(cli: bool) -> None:
    """``max_connections`` requests at once at most; one more waits ``pool`` seconds."""
    with raw_server(lambda _: reply(), pause=0.5) as server:
        async def ask(client: httpx.AsyncClient) -> list[object]:
            url = f"http://127.0.0.1:{server.port}/"
            timeout = httpx.Timeout(5.0, pool=0.1)
            outcomes = await asyncio.gather(*(client.get(url, timeout=timeout)
                                              for _ in range(2)), return_exceptions=True)
            return sorted(type(o).__name__ for o in outcomes)
        assert run(cli, ask, limits=httpx.Limits(max_connections=1)) == [
            "PoolTimeout", "Response"]


def _error(cli: bool, script: Callable[[bytes], bytes | None], url: str = "",
           timeout: float = 5.0, pause: float = 0.0) -> BaseException:
    with raw_server(script, pause=pause) as server:
        async def ask(client: httpx.AsyncClient) -> None:
            await client.get(url or f"http://127.0.0.1:{server.port}/")
        with pytest.raises(httpx.HTTPError) as caught:
            run(cli, ask, timeout)
    return caught.value


@pytest.mark.parametrize("case", ["refused", "unknown host", "no answer", "cut body",
                                  "cut chunks", "bad head", "huge head", "slow", "ftp",
                                  "no scheme"])
def test_the_same_httpx_error_in_the_same_words(case: str) -> None:
    scripts: dict[str, tuple[Callable[[bytes], bytes | None], str, float, float]] = {
        "refused": (lambda _: reply(), f"http://127.0.0.1:{_closed_port()}/", 5.0, 0.0),
        "unknown host": (lambda _: reply(), "http://no-such-host.invalid/", 5.0, 0.0),
        "no answer": (lambda _: None, "", 5.0, 0.0),
        "cut body": (lambda _: reply(b"x" * 10)[:-5], "", 5.0, 0.0),
        "cut chunks": (lambda _: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 b"5\r\nhello\r\n", "", 5.0, 0.0),
        "bad head": (lambda _: b"NONSENSE\r\n\r\n", "", 5.0, 0.0),
        "huge head": (lambda _: b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200_000, "", 5.0, 0.0),
        "slow": (lambda _: reply(), "", 0.2, 1.0),
        "ftp": (lambda _: reply(), "ftp://127.0.0.1/x", 5.0, 0.0),
        "no scheme": (lambda _: reply(), "//127.0.0.1/x", 5.0, 0.0),
    }
    script, url, timeout, pause = scripts[case]
    errors = [_error(cli, script, url, timeout, pause) for cli in (False, True)]
    assert type(errors[1]) is type(errors[0]), errors
    assert str(errors[1]) == str(errors[0])
    assert errors[1].request.url.path == errors[0].request.url.path


@CLIENTS
def test_a_proxy_from_the_environment_is_used(cli: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    with raw_server(lambda _: reply(b"via proxy")) as proxy:
        monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)

        async def ask(client: httpx.AsyncClient) -> bytes:
            return (await client.get("http://search.example/q")).content
        assert run(cli, ask) == b"via proxy"
    assert proxy.seen[0].startswith(b"GET http://search.example/q HTTP/1.1")


def test_one_client_in_one_event_loop_after_another() -> None:
    """``asyncio.run`` twice with one client: a connection of the first loop is not used in
    the second."""
    server = CountingServer(lambda _: reply(b"again"), close=False)
    try:
        client = tamis_client(5.0, cli=True)

        async def ask() -> bytes:
            return (await client.get(f"http://127.0.0.1:{server.port}/")).content

        assert asyncio.run(ask()) == b"again"
        assert asyncio.run(ask()) == b"again"
        asyncio.run(client.aclose())
    finally:
        server.stop()
    assert server.connections == 2


def test_tls_is_verified_as_httpx_verifies_it(tls_server: tuple[str, str],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    url, bundle = tls_server

    def outcome(cli: bool) -> object:
        async def main() -> object:
            async with tamis_client(5.0, cli=cli) as client:
                try:
                    return (await client.get(url)).content
                except httpx.HTTPError as exc:
                    return type(exc), str(exc)
        return asyncio.run(main())

    monkeypatch.setenv("SSL_CERT_FILE", bundle)
    assert outcome(True) == outcome(False) == b"hello"
    monkeypatch.delenv("SSL_CERT_FILE")
    refused = outcome(False)
    assert outcome(True) == refused and refused[0] is httpx.ConnectError  # type: ignore[index]


def test_a_cli_search_imports_neither_httpcore_nor_anyio(tmp_path: Path) -> None:
    answer = json.loads((Path(__file__).parent / "fixtures" / "searxng"
                         / "proxmox-thin-pool-metadata-exhaustion-recovery.json").read_text())
    code = ("import atexit, sys\n"
            "atexit.register(lambda: sys.stderr.write('MODULES ' + ' '.join(sorted(m for m in"
            " ('httpcore', 'anyio', 'sniffio') if m in sys.modules)) + '\\n'))\n"
            "sys.argv = ['tamis', *sys.argv[1:]]\n"
            "from tamis.interfaces.entry import main\nmain()\n")
    with LoopbackServer() as server:
        server.route("/search", Reply(json=answer))
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAMIS_")}
        env.update(SEARXNG_URL=server.url, XDG_CACHE_HOME=str(tmp_path / "cache"),
                   XDG_CONFIG_HOME=str(tmp_path / "config"))
        done = subprocess.run([sys.executable, "-c", code, "search", "--no-extract",
                               "proxmox thin pool metadata exhaustion recovery"],
                              capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "ok" and len(server.seen) == 1
    assert done.stderr.strip() == "MODULES", done.stderr


def test_a_cli_client_makes_its_ssl_context_at_its_first_https_connection(
        tls_server: tuple[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """Plain http asks for no SSL context (its creation is about 1% of a CLI search); the
    first https connection makes it, and it verifies as httpx's would."""
    import tamis.http_client
    from tamis.http_exchange import exchange_for

    made: list[object] = []

    class Counted(tamis.http_client.DeferredCAContext):
        def __new__(cls, trust_env: bool = True) -> Counted:
            made.append(cls)
            return super().__new__(cls, trust_env)  # type: ignore[return-value]

    url, bundle = tls_server
    monkeypatch.setattr(tamis.http_client, "DeferredCAContext", Counted)
    monkeypatch.setenv("SSL_CERT_FILE", bundle)

    async def main() -> list[object]:
        async with tamis_client(5.0, cli=True) as client:
            said: list[object] = []
            with raw_server(lambda _: reply(b"plain")) as server:
                answer = await exchange_for(client).send(
                    "GET", f"http://127.0.0.1:{server.port}/", params=None, json=None,
                    headers={}, timeout=None)
                said.append((b"".join([c async for c in answer.aiter_raw()]), len(made)))
            answer = await exchange_for(client).send("GET", url, params=None, json=None,
                                                     headers={}, timeout=None)
            said.append((b"".join([c async for c in answer.aiter_raw()]), len(made)))
            return said
    assert asyncio.run(main()) == [(b"plain", 0), (b"hello", 1)]
