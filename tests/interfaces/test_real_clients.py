"""Real clients of the compatible endpoints against a real `tamis serve` (a subprocess on
127.0.0.1, two workers, TAMIS_TOKEN set): mcp-searxng (node, HTTP Basic auth), tavily-python
(search and extract), LangChain's SearxSearchWrapper and TavilySearch.

A client that is not installed is skipped with the reason, and fails instead when CI is set
(.ci/run installs them: the npm package mcp-searxng, the Python ones in the dev extras).
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, Reply, free_port

PROXMOX = "proxmox thin pool metadata exhaustion recovery"
PAGE = ("<html><head><title>Thin pools</title></head><body><article><h1>Thin pools</h1>"
        + "".join(f"<p>Step {i}: metadata exhaustion is fixed by extending the metadata"
                  f" volume of pool {i}.</p>" for i in range(20))
        + "</article></body></html>")


def need(what: str, found: bool, install: str) -> None:
    if found:
        return
    message = f"{what} is not installed ({install}); this real-client test needs it"
    if os.environ.get("CI"):
        pytest.fail(f"CI is set and {message}", pytrace=False)
    pytest.skip(message)


def need_module(name: str, install: str) -> None:
    import importlib.util

    need(f"the Python package {name}", importlib.util.find_spec(name) is not None, install)


@dataclass
class Service:
    url: str
    token: str
    pages: str


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    tmp = tmp_path_factory.mktemp("real-clients")
    token = secrets.token_urlsafe(24)
    with LoopbackServer(FakeSearXNG()) as searxng, \
            LoopbackServer(lambda req: Reply(body=PAGE, content_type="text/html")) as pages:
        config = tmp / "tamis.yaml"
        config.write_text(
            f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
            f"store: {{url: '{tmp / 'store.sqlite3'}'}}\n"
            "extraction: {allow_private_hosts: ['127.0.0.1']}\n")
        port = free_port()
        env = {**os.environ, "TAMIS_TOKEN": token}
        proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", "serve",
                                 "--port", str(port), "--config", str(config),
                                 "--workers", "2"],
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + 60
            while True:
                if proc.poll() is not None:
                    raise AssertionError(f"tamis serve exited: {proc.stderr.read()}")
                try:
                    if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise AssertionError("tamis serve did not start")
                time.sleep(0.1)
            yield Service(url, token, pages.url)
        finally:
            proc.terminate()
            proc.wait(timeout=20)


def mcp_searxng() -> list[str] | None:
    program = shutil.which("mcp-searxng")
    return [program] if program else None


@pytest.mark.anyio
async def test_mcp_searxng_with_basic_auth(service: Service) -> None:
    command = mcp_searxng()
    need("mcp-searxng (node)", command is not None and shutil.which("node") is not None,
         "npm install -g mcp-searxng")
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=command[0], args=command[1:], env={
        "PATH": os.environ.get("PATH", ""), "SEARXNG_URL": service.url,
        "AUTH_USERNAME": "agent", "AUTH_PASSWORD": service.token})
    async with Client(params) as client:
        found = await client.call_tool("searxng_web_search", {"query": PROXMOX})
        info = await client.call_tool("searxng_instance_info", {})
    text = found.content[0].text
    assert not found.is_error, text
    assert "URL: https://forum.proxmox.com/" in text
    assert "www.amazon.com" not in text  # tamis's cleaning, through the client
    assert service.token not in text
    printed = [float(x) for x in re.findall(r"Relevance Score: ([0-9.]+)", text)]
    assert printed == sorted(printed, reverse=True) and 0 < max(printed) < 50  # searx's scale
    info_text = info.content[0].text
    assert not info.is_error and '"available": true' in info_text, info_text


def test_tavily_python_search_and_extract(service: Service) -> None:
    need_module("tavily", "pip install tavily-python")
    from tavily import TavilyClient

    client = TavilyClient(api_key=service.token, api_base_url=service.url)
    answer = client.search(PROXMOX, max_results=3)
    assert len(answer["results"]) == 3
    assert answer["results"][0]["url"].startswith("https://forum.proxmox.com/")
    many = client.search(PROXMOX, max_results=80)  # over serve.max_results: clamped
    assert 3 < len(many["results"]) <= 50
    page = service.pages + "/thin-pools"
    extracted = client.extract(urls=[page, "http://127.0.0.1:9/nothing-here"])
    assert [r["url"] for r in extracted["results"]] == [page]
    assert "metadata exhaustion" in extracted["results"][0]["raw_content"]
    assert [f["url"] for f in extracted["failed_results"]] == ["http://127.0.0.1:9/nothing-here"]
    assert extracted["failed_results"][0]["error"].startswith("failed:")
    wrong = TavilyClient(api_key="tvly-not-the-token", api_base_url=service.url)
    with pytest.raises(Exception) as refused:
        wrong.search(PROXMOX)
    assert "token" in str(refused.value).lower()


def test_langchain_searx_search_wrapper_on_the_root(service: Service) -> None:
    need_module("langchain_community", "pip install langchain-community")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from langchain_community.utilities import SearxSearchWrapper

        wrapper = SearxSearchWrapper(searx_host=service.url,
                                     headers={"Authorization": f"Bearer {service.token}"})
    results = wrapper.results(PROXMOX, num_results=3)
    assert len(results) == 3
    assert results[0]["link"].startswith("https://forum.proxmox.com/")
    assert results[0]["engines"] and results[0]["category"] == "general"
    assert "metadata" in wrapper.run(PROXMOX).lower()


def test_langchain_tavily_search(service: Service) -> None:
    need_module("langchain_tavily", "pip install langchain-tavily")
    from langchain_tavily import TavilySearch

    tool = TavilySearch(max_results=4, tavily_api_key=service.token,
                        api_base_url=service.url)
    answer = tool.invoke({"query": PROXMOX})
    assert isinstance(answer, dict), answer
    assert len(answer["results"]) == 4
    assert answer["results"][0]["url"].startswith("https://forum.proxmox.com/")


def test_the_clients_are_exercised_in_ci() -> None:
    """CI installs every client (.ci/run): a missing one there is a failure, not a skip."""
    ci = Path(__file__).parents[2] / ".ci" / "run"
    text = ci.read_text()
    assert "mcp-searxng" in text
    assert "'.[dev]'" in text
