"""`Tamis` is the only door: `tamis read`, MCP and the compatibility endpoints go through the
core's client, limits and failure reason, not their own."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from loopback import LoopbackServer, Reply
from serving import Served

from tamis.core import Tamis
from tamis.errors import RequestRejected, TamisError
from tamis.interfaces.cli_read import read
from tamis.interfaces.http_app import create_app
from tamis.limits import MAX_QUERY_CHARS, check_budget, check_max_results, check_query

ARTICLE = ("<html><head><title>Thin pools</title></head><body><article><h1>Thin pools</h1>"
           + "".join(f"<p>Step {i}: metadata exhaustion is fixed by extending the metadata"
                     f" volume of pool {i} before it fills again.</p>" for i in range(60))
           + "</article></body></html>")


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "tamis.yaml"
    path.write_text(text)
    return str(path)


@pytest.fixture
def pages():
    with LoopbackServer() as server:
        server.route("/first", Reply(status=302, content_type="text/html", body="", headers={
            "Location": "/article", "Set-Cookie": "tracker=agent-42; Path=/"}))
        server.route("/article", Reply(content_type="text/html", body=ARTICLE))
        yield server


def test_tamis_read_keeps_no_cookie_and_sends_the_user_agent(pages, tmp_path: Path) -> None:
    config = write_config(tmp_path, "cache: {enabled: false}\nstore: {url: 'memory:'}\n"
                                    "extraction: {allow_private_hosts: ['127.0.0.1']}\n")
    outcome = CliRunner().invoke(read, [pages.url + "/first", "--config", config])
    assert outcome.exit_code == 0, outcome.output
    assert json.loads(outcome.stdout)["title"] == "Thin pools"
    article = pages.requests_to("/article")
    assert article and article[0].header("cookie") is None  # the redirect's cookie stays
    assert article[0].header("user-agent").startswith("tamis/")


def test_tamis_read_budget_is_the_configs_as_for_mcp(pages, tmp_path: Path) -> None:
    config = write_config(tmp_path, "cache: {enabled: false}\nstore: {url: 'memory:'}\n"
                                    "extraction: {allow_private_hosts: ['127.0.0.1'],"
                                    " total_chars: 300}\n")
    outcome = CliRunner().invoke(read, [pages.url + "/article", "--config", config])
    assert outcome.exit_code == 0, outcome.output
    answer = json.loads(outcome.stdout)
    assert answer["status"] == "truncated" and answer["chars"] <= 300


def test_the_limits_are_checked_in_one_place() -> None:
    assert check_query("  a query ") == "a query"
    with pytest.raises(RequestRejected, match=r"^the query is empty$"):
        check_query("   ")
    with pytest.raises(RequestRejected, match=f"longer than {MAX_QUERY_CHARS} characters$"):
        check_query("x" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(RequestRejected, match=r"longer than 5 characters \(serve.x\)"):
        check_query("x" * 6, max_chars=5, setting="serve.x")
    with pytest.raises(RequestRejected, match="over the limit of 3"):
        check_max_results(4, 3)
    assert check_max_results(None, 3) is None and check_budget(0) == 0
    with pytest.raises(RequestRejected, match="cannot be negative"):
        check_budget(-1)
    assert issubclass(RequestRejected, TamisError)


@pytest.mark.anyio
async def test_the_core_applies_them_whatever_the_door(tmp_path: Path) -> None:
    config = write_config(tmp_path, "backends: [{name: s, base_url: 'http://127.0.0.1:9'}]\n"
                                    "store: {url: 'memory:'}\n")
    async with Tamis(config) as layer:  # rejected before any line is asked
        with pytest.raises(RequestRejected, match="longer than 2000"):
            await layer.search("y" * 2001, extract=False)
        with pytest.raises(RequestRejected, match="cannot be negative"):
            await layer.search("y", extract=False, budget=-1)


def test_a_compatible_endpoint_says_why_the_search_failed_as_the_cli_does(
        tmp_path: Path) -> None:
    config = write_config(tmp_path, "backends:\n  - {name: searxng, base_url: "
                                    "'http://127.0.0.1:9'}\ncache: {enabled: false}\n"
                                    "store: {url: 'memory:'}\n")
    with Served(create_app(Tamis(config), close_layer=True)) as served:
        answer = httpx.get(served.url + "/search", params={"q": "x", "format": "json"})
    assert answer.status_code == 502
    error = answer.json()["error"]
    assert error.startswith("the search could not run: no line could be reached (line "
                            "'searxng': cannot connect")
