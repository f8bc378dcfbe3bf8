"""A query holding a lone surrogate (a JSON ``\\ud800`` escape, or command-line bytes that are
not UTF-8) is searched with U+FFFD in its place through every door: the CLI (with and without
the answer cache), ``POST /v1/search``, MCP over stdio and the CLI through ``TAMIS_URL``. No
door crashes, answers 500, or leaves the call unanswered. The same holds for every other string
of a search (``--language``, ``--categories``, ``--engines``; ``include_domains``...)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import httpx
import pytest
from loopback import LoopbackServer, Reply
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app

ASKED = "thin \ud800 pool"
SEARCHED = "thin \ufffd pool"
ANSWER = {"results": [{"url": "https://forum.example.org/threads/thin-pool.1/",
                       "title": "Thin pool metadata", "content": "thin pool", "engine": "bing"}]}


@pytest.fixture
def searxng() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.route("/search", Reply(json=ANSWER))
        yield server


def config_file(tmp_path: Path, searxng: LoopbackServer, *, cache: bool) -> Path:
    path = tmp_path / "tamis.yaml"
    store = f"{{url: '{tmp_path / 'store.sqlite'}'}}" if cache else "{url: 'memory:'}"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                    f"cache: {{enabled: {str(cache).lower()}}}\nstore: {store}\n")
    return path


def cli(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[bytes]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TAMIS_", "SEARXNG_"))}
    base.update(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "cfg"),
                **env)
    argv = [os.fsencode(a) for a in args]  # a surrogate here is a byte that is not UTF-8
    return subprocess.run([os.fsencode(sys.executable), b"-m", b"tamis.interfaces.cli", *argv],
                          env=base, capture_output=True, timeout=120)


def asked_of_the_backend(searxng: LoopbackServer) -> list[str]:
    return [request.arg("q") for request in searxng.requests_to("/search")]


@pytest.mark.parametrize("cache", [False, True])
def test_the_cli_searches_a_query_holding_bytes_that_are_not_utf8(
        tmp_path: Path, searxng: LoopbackServer, cache: bool) -> None:
    config = config_file(tmp_path, searxng, cache=cache)
    query = os.fsdecode(b"thin \xff pool")  # '\udcff': how Python reads that byte of argv
    for _ in range(2 if cache else 1):  # with the cache, the repeat is the stored answer
        done = cli(["search", "--no-extract", "--config", str(config), query], tmp_path)
        assert done.returncode == 0, done.stderr.decode()
        assert done.stderr == b""
        answer = json.loads(done.stdout)
        assert answer["query"] == SEARCHED
        assert answer["results"][0]["url"] == ANSWER["results"][0]["url"]
    assert asked_of_the_backend(searxng) == [SEARCHED]


@pytest.mark.parametrize("option", ["--language", "--categories", "--engines"])
def test_the_cli_passes_on_an_option_holding_bytes_that_are_not_utf8(
        tmp_path: Path, searxng: LoopbackServer, option: str) -> None:
    config = config_file(tmp_path, searxng, cache=True)
    done = cli(["search", "--no-extract", "--config", str(config),
                option, os.fsdecode(b"de\xff"), "thin pool"], tmp_path)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stderr == b""
    asked = searxng.requests_to("/search")[0]
    assert asked.arg(option.lstrip("-")) == "de\ufffd"


@pytest.mark.parametrize("field", ["language", "categories", "engines", "include_domains",
                                   "exclude_domains"])
def test_post_v1_search_answers_a_json_lone_surrogate_in_any_field(
        tmp_path: Path, searxng: LoopbackServer, field: str) -> None:
    value = '["thin\\ud800.org"]' if field.endswith("_domains") else '"de\\ud800"'
    layer = Tamis(str(config_file(tmp_path, searxng, cache=True)))
    with Served(create_app(layer, close_layer=True)) as served:
        body = f'{{"query": "thin pool", "extract": false, "{field}": {value}}}'
        reply = httpx.post(served.url + "/v1/search", content=body,
                           headers={"Content-Type": "application/json"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["query"] == "thin pool"  # include_domains: none of the results' site


def test_post_v1_search_answers_a_json_lone_surrogate(tmp_path: Path,
                                                      searxng: LoopbackServer) -> None:
    layer = Tamis(str(config_file(tmp_path, searxng, cache=False)))
    with Served(create_app(layer, close_layer=True)) as served:
        reply = httpx.post(served.url + "/v1/search", content='{"query": "thin \\ud800 pool",'
                           ' "extract": false}', headers={"Content-Type": "application/json"})
    assert reply.status_code == 200, reply.text
    assert reply.json()["query"] == SEARCHED
    assert asked_of_the_backend(searxng) == [SEARCHED]


def test_the_cli_through_tamis_url(tmp_path: Path, searxng: LoopbackServer) -> None:
    layer = Tamis(str(config_file(tmp_path, searxng, cache=False)))
    with Served(create_app(layer, close_layer=True)) as served:
        done = cli(["search", "--no-extract", os.fsdecode(b"thin \xff pool")], tmp_path,
                   TAMIS_URL=served.url)
    assert done.returncode == 0, done.stderr.decode()
    assert json.loads(done.stdout)["query"] == SEARCHED


def lines_within(stream: IO[bytes], count: int, seconds: float) -> list[bytes]:
    """Up to ``count`` lines of a pipe, as many as came within ``seconds``."""
    got: list[bytes] = []
    done = threading.Thread(target=lambda: got.extend(stream.readline() for _ in range(count)),
                            daemon=True)
    done.start()
    done.join(seconds)
    return list(got)


def test_mcp_over_stdio_answers_the_call(tmp_path: Path, searxng: LoopbackServer) -> None:
    # The SDK's client cannot send a lone surrogate (it encodes as it writes), an agent's
    # JSON can: the JSON-RPC lines are written here as such a client writes them.
    config = config_file(tmp_path, searxng, cache=False)
    calls = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "web_search", "arguments": {"query": ASKED, "extract": False}}},
    ]
    with subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "mcp", "--config",
                           str(config)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as server:
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(json.dumps(c).encode() + b"\n" for c in calls))
        server.stdin.flush()
        answers = [json.loads(line) for line in lines_within(server.stdout, 2, 60)]
        server.stdin.close()
        server.wait(timeout=60)
    assert len(answers) == 2, f"the call was not answered: {answers}"
    called = answers[1]
    assert called["id"] == 2 and not called["result"]["isError"], called
    assert called["result"]["structuredContent"]["query"] == SEARCHED
