"""The MCP server, driven by the official SDK's real client."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply
from mcp import Client, StdioServerParameters

from tamis.core import Tamis
from tamis.interfaces.demo import recordings_dir
from tamis.interfaces.mcp_server import build_server
from tamis.policy.schema import LineConfig
from tamis.settings import load_config

PROXMOX = "proxmox thin pool metadata exhaustion recovery"
pytestmark = pytest.mark.anyio


def replay_layer(**extraction: object) -> Tamis:
    config = load_config(None, overrides={
        "store": {"url": "memory:"},
        "extraction": {"allow_private_hosts": ["127.0.0.1"], **extraction},
    }).config
    config = config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})
    return Tamis(config)


async def test_tools_are_listed_with_descriptions_for_a_model() -> None:
    async with Client(build_server(layer=replay_layer())) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert set(tools) == {"web_search", "read_url"}
    assert "Use this first" in tools["web_search"].description
    assert "Use this when a search result looks right" in tools["read_url"].description
    params = tools["web_search"].input_schema["properties"]
    assert {"query", "max_results", "extract", "budget", "time_range", "language",
            "categories"} <= set(params)
    assert tools["web_search"].output_schema is not None


async def test_lite_mode_has_query_only_schemas() -> None:
    async with Client(build_server(layer=replay_layer(), lite=True)) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
    assert list(tools["web_search"].input_schema["properties"]) == ["query"]
    assert list(tools["read_url"].input_schema["properties"]) == ["url"]


async def test_web_search_returns_structured_content_and_text() -> None:
    async with Client(build_server(layer=replay_layer())) as client:
        result = await client.call_tool("web_search", {"query": PROXMOX, "extract": False,
                                                       "max_results": 4})
    assert not result.is_error
    data = result.structured_content
    assert data["query"] == PROXMOX and len(data["results"]) == 4
    assert data["results"][0]["host"] == "forum.proxmox.com"
    text = result.content[0].text
    assert text.startswith(f"Results for {PROXMOX!r}:")
    assert "[1] " in text and "(forum)" in text


async def test_read_url_reads_a_page() -> None:
    page = ("<html><head><title>Recovering thin pools</title></head><body><article>"
            "<h1>Recovering thin pools</h1>" + "".join(
                f"<p>Step {i}: run lvconvert --repair on pool {i}.</p>" for i in range(30))
            + "</article></body></html>")
    with LoopbackServer(lambda req: Reply(body=page, content_type="text/html")) as pages:
        async with Client(build_server(layer=replay_layer())) as client:
            result = await client.call_tool("read_url", {"url": pages.url + "/a",
                                                         "max_chars": 300})
    assert not result.is_error
    assert result.structured_content["status"] == "truncated"
    assert "lvconvert --repair" in result.content[0].text
    assert "call read_url with start=" in result.content[0].text


async def test_errors_are_tool_errors_and_the_server_keeps_serving() -> None:
    async with Client(build_server(layer=replay_layer())) as client:
        bad = await client.call_tool("read_url", {"url": "ftp://example.com/file"})
        assert bad.is_error
        assert "could not read ftp://example.com/file" in bad.content[0].text
        empty = await client.call_tool("web_search", {"query": "   "})
        assert empty.is_error and "the query is empty" in empty.content[0].text
        invalid = await client.call_tool("web_search", {"query": "x", "max_results": 0})
        assert invalid.is_error
        still = await client.call_tool("web_search", {"query": PROXMOX, "extract": False})
        assert not still.is_error


async def test_every_line_failing_is_a_tool_error(tmp_path: Path) -> None:
    config = load_config(None, overrides={"store": {"url": "memory:"}}).config
    config = config.model_copy(update={"backends": [
        LineConfig(name="searxng", base_url="http://127.0.0.1:9")]})
    async with Client(build_server(layer=Tamis(config))) as client:
        result = await client.call_tool("web_search", {"query": "x"})
    text = result.content[0].text  # the one failure reason, as the CLI says it
    assert result.is_error and text.endswith(
        "web_search: the search could not run: no line could be reached (line 'searxng':"
        " cannot connect: ConnectError: All connection attempts failed (after one retry))")


async def test_stdio_server_through_a_subprocess(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{recordings_dir()}'}}\n"
        "store: {url: 'memory:'}\n")
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "tamis.interfaces.cli", "mcp", "--config", str(config)])
    async with Client(params) as client:
        result = await client.call_tool("web_search", {"query": PROXMOX, "extract": False})
    assert not result.is_error
    assert json.dumps(result.structured_content["results"][0]["host"]) == '"forum.proxmox.com"'


async def test_streamable_http_server_through_a_subprocess(tmp_path: Path) -> None:
    import subprocess
    import time

    import httpx
    from loopback import free_port

    config = tmp_path / "tamis.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{recordings_dir()}'}}\n"
        "store: {url: 'memory:'}\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "mcp", "--http",
                             "--port", str(port), "--config", str(config)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        for _ in range(300):
            try:
                httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            tools = {t.name for t in (await client.list_tools()).tools}
            result = await client.call_tool("web_search", {"query": PROXMOX, "extract": False})
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert tools == {"web_search", "read_url"}
    assert not result.is_error and result.structured_content["status"] == "ok"


async def test_streamable_http_server_takes_the_token_as_bearer_or_basic(
        tmp_path: Path) -> None:
    import base64
    import os
    import subprocess
    import time

    import httpx
    from loopback import free_port

    token = "mcp-test-token-0123456789abcdef"
    config = tmp_path / "tamis.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{recordings_dir()}'}}\n"
        "store: {url: 'memory:'}\n")
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "mcp", "--http",
                             "--port", str(port), "--config", str(config)],
                            env={**os.environ, "TAMIS_TOKEN": token},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        for _ in range(300):
            try:
                denied = httpx.get(url, timeout=0.5)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        basic = "Basic " + base64.b64encode(f"agent:{token}".encode()).decode()
        wrong = "Basic " + base64.b64encode(b"agent:wrong").decode()
        refused = httpx.get(url, headers={"Authorization": wrong}, timeout=5)
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}
        accepted = httpx.post(url, json=initialize, timeout=10, headers={
            "Authorization": basic, "Accept": "application/json, text/event-stream"})
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    assert denied.status_code == refused.status_code == 401
    assert token not in denied.text
    assert accepted.status_code == 200 and "serverInfo" in accepted.text


# A lone surrogate is legal as a JSON escape and cannot be encoded as UTF-8 (issue 16 item 7:
# it used to end the MCP server, and every later request went unanswered).
SURROGATE_ANSWER = ('{"query": "x", "results": [{"url": "https://bad.example/a\\ud800",'
                    ' "title": "Bad \\ud800 title", "content": "text \\udfff", "engine": "bing",'
                    ' "engines": ["bing"], "positions": [1]}, {"url": "https://good.example/b",'
                    ' "title": "Good title", "content": "fine", "engine": "bing",'
                    ' "engines": ["bing"], "positions": [2]}]}')


async def test_a_lone_surrogate_in_an_answer_never_stops_the_server() -> None:
    with LoopbackServer() as searx:
        searx.route("/search", Reply(body=SURROGATE_ANSWER, content_type="application/json"))
        config = load_config(None, overrides={"store": {"url": "memory:"}}).config
        config = config.model_copy(update={"backends": [
            LineConfig(name="searxng", base_url=searx.url)]})
        async with Client(build_server(layer=Tamis(config))) as client:
            first = await client.call_tool("web_search", {"query": "x", "extract": False})
            again = await client.call_tool("web_search", {"query": "x y", "extract": False})
    for result in (first, again):
        assert not result.is_error
        text = json.dumps(result.structured_content, ensure_ascii=False)
        text.encode("utf-8")  # encodable: no lone surrogate left
        assert "good.example" in text and "\ufffd" in text
