"""The fan-out's carriers (``tamis.http_exchange``) answer alike: httpx's (any httpx client),
the service's straight on aiohttp and the CLI's straight on h11 send the same bytes and give
the same line answer, word for word, for the same backend behaviour: an answer, a dead
backend, a non-JSON answer, a cut body, an oversized body, a gzip bomb, a redirect, a
timeout, refusals, an unusual URL left to httpx. Real sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gzip
import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from test_http_transport import _closed_port, raw_server, reply

from tamis.backends.registry import make_adapter
from tamis.http_client import tamis_client
from tamis.http_exchange import HttpxExchange, exchange_for
from tamis.http_transport import AiohttpExchange
from tamis.models import SearchRequest
from tamis.pipeline.fanout import FanoutContext, ask_line
from tamis.policy.schema import LineConfig

CARRIERS: dict[str, dict[str, bool]] = {
    "httpx": {}, "service": {"service": True}, "cli": {"cli": True},
    "service via httpx": {"service": True}, "cli via httpx": {"cli": True}}  # as before


class ThroughHttpx:
    """A client's requests as the fan-out made them before it had carriers."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def exchange(self) -> HttpxExchange:
        return HttpxExchange(self.client)
OK = json.dumps({"results": [{"title": "T", "url": "https://t.example/a", "content": "c"}]})
BOMB = gzip.compress(b" " * 3_000_000)


def _json(body: bytes | str, *headers: str, status: str = "200 OK") -> bytes:
    data = body.encode() if isinstance(body, str) else body
    return reply(data, status, ("Content-Type: application/json", *headers))


SCRIPTS: dict[str, Callable[[bytes], bytes | None]] = {
    "answer": lambda _: _json(OK),
    "gzip": lambda _: _json(gzip.compress(OK.encode()), "Content-Encoding: gzip"),
    "bad gzip": lambda _: _json(b"not gzip at all", "Content-Encoding: gzip"),
    "gzip bomb": lambda _: _json(BOMB, "Content-Encoding: gzip"),
    "oversized": lambda _: _json(b"[" + b"1," * 600_000 + b"1]"),
    "not json": lambda _: reply(b"<html>hi</html>", headers=("Content-Type: text/html",)),
    "empty": lambda _: _json(json.dumps({"results": []})),
    "cut body": lambda _: _json(OK)[:-5],
    "cut chunks": lambda _: b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n",
    "no answer": lambda _: None,
    "bad head": lambda _: b"NONSENSE\r\n\r\n",
    "redirect": lambda _: reply(b"moved", "302 Found", ("Location: /elsewhere",)),
    "refused 403": lambda _: _json('{"error": "no"}', status="403 Forbidden"),
    "invalid 400": lambda _: _json(json.dumps({"error": "Invalid value 'x'\n for q"}),
                                   status="400 Bad Request"),
    "server error": lambda _: _json("{}", status="503 Service Unavailable"),
    "rate limited": lambda _: reply(b"slow down", "429 Too Many Requests"),
    "zstd": lambda _: _json(_zstd(OK.encode()), "Content-Encoding: zstd"),  # httpx decodes it
    "bad zstd": lambda _: _json(b"not zstd", "Content-Encoding: zstd"),
    "two encodings": lambda _: _json(gzip.compress(gzip.compress(OK.encode())),
                                     "Content-Encoding: gzip, gzip"),
}


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return zstandard.ZstdCompressor().compress(data)  # type: ignore[no-any-return]


def _line_answer(carrier: str, base_url: str, timeout: float = 5.0,
                 cap: int | None = None, path: str | None = None,
                 lenient: bool = False) -> tuple[Any, str]:
    async def main() -> tuple[Any, str]:
        async with tamis_client(timeout, **CARRIERS[carrier]) as client:  # type: ignore[arg-type]
            adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url=base_url,
                                                search_path=path))
            if lenient:  # an adapter that reads an error answer as an answer
                adapter.check_status = lambda response: None  # type: ignore[method-assign]
            asked = ThroughHttpx(client) if carrier.endswith("via httpx") else client
            ctx = FanoutContext(client=asked, env={}, timeout=timeout,
                                **({"max_answer_bytes": cap} if cap else {}))
            answer = await ask_line(adapter, 0, SearchRequest(query="a b/é?&"), ctx)
            return answer, type(exchange_for(asked)).__name__
    answer, used = asyncio.run(main())
    said = (answer.status, answer.outcome.kind, answer.outcome.http_status,
            answer.outcome.message, answer.outcome.retried_after,
            [(n.kind, n.message) for n in answer.notes], [h.url for h in answer.hits])
    return said, used


@pytest.mark.parametrize("case", sorted(SCRIPTS))
def test_every_carrier_says_the_same(case: str) -> None:
    said, wire, used = {}, {}, {}
    for carrier in CARRIERS:
        with raw_server(SCRIPTS[case]) as server:
            said[carrier], used[carrier] = _line_answer(
                carrier, f"http://127.0.0.1:{server.port}",
                cap=1_000_000 if case in ("gzip bomb", "oversized") else None)
            wire[carrier] = [r.replace(str(server.port).encode(), b"PORT") for r in server.seen]
    assert said["service"] == said["service via httpx"], said  # the service as before
    assert said["cli"] == said["cli via httpx"] == said["httpx"], said
    if case != "bad head":  # a malformed head: aiohttp's parser words it its own way
        assert said["service"] == said["httpx"], said
    assert wire["service"] == wire["service via httpx"]
    assert wire["cli"] == wire["cli via httpx"] == wire["httpx"]
    if case != "no answer":  # aiohttp asks again once on a connection closed unanswered
        assert wire["service"] == wire["httpx"]
    assert used == {"httpx": "HttpxExchange", "service": "AiohttpExchange",
                    "cli": "H11Exchange", "service via httpx": "HttpxExchange",
                    "cli via httpx": "HttpxExchange"}
    assert wire["httpx"][0].startswith(b"GET /search?q=a+b%2F%C3%A9%3F%26&format=json")
    answered = case in ("answer", "gzip", "zstd", "two encodings")
    assert (said["httpx"][0] == "ok") is answered, said["httpx"]


@pytest.mark.parametrize("case", ["refused", "dots", "odd path", "slow"])
def test_every_carrier_fails_alike(case: str) -> None:
    said = {}
    for carrier in CARRIERS:
        with raw_server(lambda _: _json(OK), pause=1.0 if case == "slow" else 0.0) as server:
            url = f"http://127.0.0.1:{_closed_port() if case == 'refused' else server.port}"
            path = {"dots": "/x/../search", "odd path": "/s%C3%A9arch;x=[1]"}.get(case)
            said[carrier], _ = _line_answer(carrier, url, timeout=0.3 if case == "slow" else 5,
                                            path=path)
            said[carrier] = (said[carrier], [r.replace(str(server.port).encode(), b"PORT")
                                             for r in server.seen])
    assert all(s == said["httpx"] for s in said.values()), said
    if case in ("dots", "odd path"):  # sent as httpx sends them
        assert said["httpx"][0][0] == "ok" and said["httpx"][1][0].startswith(
            b"GET /search?" if case == "dots" else b"GET /s%C3%A9arch;x=[1]?")


def test_an_error_answer_read_twice_is_refused_alike() -> None:
    said = {}
    for carrier in CARRIERS:
        with raw_server(lambda _: _json(OK, status="404 Not Found")) as server:
            said[carrier], _ = _line_answer(carrier, f"http://127.0.0.1:{server.port}",
                                            lenient=True)
    assert all(s == said["httpx"] for s in said.values()), said
    assert "ResponseNotRead" in said["httpx"][3]


def test_a_client_with_hooks_or_a_proxy_goes_through_httpx(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    async def kinds() -> list[type]:
        seen: list[Any] = []

        async def hook(response: httpx.Response) -> None:
            seen.append(response)
        found = []
        for carrier in ("service", "cli"):
            async with tamis_client(1.0, event_hooks={"response": [hook]},
                                    **CARRIERS[carrier]) as hooked:  # type: ignore[arg-type]
                found.append(type(exchange_for(hooked)))
        monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
        for carrier in ("service", "cli"):
            async with tamis_client(1.0, **CARRIERS[carrier]) as proxied:  # type: ignore[arg-type]
                found.append(type(exchange_for(proxied)))
        return found
    assert asyncio.run(kinds()) == [HttpxExchange] * 4


def test_the_service_carrier_is_made_once_a_client() -> None:
    async def main() -> bool:
        async with tamis_client(1.0, service=True) as client:
            first = exchange_for(client)
            return isinstance(first, AiohttpExchange) and exchange_for(client) is first
    assert asyncio.run(main())
