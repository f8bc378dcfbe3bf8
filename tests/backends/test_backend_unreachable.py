"""With nothing reachable, the error says so in words: which line, why, and how to configure
one. SEARXNG_URL may be the search page's URL (ending in /search); a URL without a scheme is
refused at load, naming the variable."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from loopback import LoopbackServer, Reply, free_port

from tamis.backends.ddgs import DDGSAdapter
from tamis.backends.registry import make_adapter
from tamis.errors import ConfigError
from tamis.interfaces.cli import cli
from tamis.policy.schema import LineConfig
from tamis.settings import load_config

RUST_DNS = ("DNSError: DNSError('error sending request for url (https://search.yahoo.com/"
            "search;_ylt=3brYjb?p=x) > error resolving DNS > DNS e")


class OfflineDDGS:
    def __init__(self, timeout: int = 5) -> None:
        pass

    def text(self, query: str, **kwargs: Any) -> Any:
        from ddgs.exceptions import DDGSException

        raise DDGSException(RUST_DNS)


def test_ddgs_offline_says_what_to_configure(run) -> None:
    adapter = make_adapter(LineConfig(name="ddgs"))
    assert isinstance(adapter, DDGSAdapter)
    adapter.factory = OfflineDDGS
    [answer] = run([adapter])
    message = answer.notes[-1].message
    assert answer.status == "failed"
    assert "DNSError(" not in message and "yahoo" not in message
    assert "cannot reach the public search engines" in message
    assert "SEARXNG_URL" in message and "TAVILY_API_KEY" in message


def test_cli_names_every_unreachable_line(tmp_path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n"
                      f"  - {{name: searxng, base_url: 'http://127.0.0.1:{free_port()}'}}\n"
                      f"  - {{name: mine, base_url: 'http://127.0.0.1:{free_port()}'}}\n"
                      "store: {url: 'memory:'}\n")
    result = CliRunner().invoke(cli, ["search", "x", "--no-extract", "--config", str(config)])
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("error: the search could not run: no line could be reached (line"
                           " 'searxng': cannot connect")
    assert "line 'mine': cannot connect" in line


@pytest.mark.parametrize("suffix", ["/search", "/search/", "/"])
def test_searxng_url_of_the_search_page_is_accepted(monkeypatch, suffix: str) -> None:
    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": [
            {"title": "T", "url": "https://t.example/a", "content": "c", "engine": "e"}]}))
        monkeypatch.setenv("SEARXNG_URL", server.url + suffix)
        listing = CliRunner().invoke(cli, ["backends", "--json"])
        [info] = json.loads(listing.stdout)["lines"]
        assert info["endpoint"] == server.url + "/search"
        result = CliRunner().invoke(cli, ["search", "x", "--no-extract"])
        assert result.exit_code == 0, result.output
        assert [s.path for s in server.seen] == ["/search"]


@pytest.mark.parametrize(("variable", "value"), [
    ("SEARXNG_URL", "10.1.2.3:8888"), ("SEARXNG_URL", "localhost:8888/search"),
    ("SEARXNG_URL", "ftp://u:pw@127.0.0.1/"), ("FIRECRAWL_URL", "http://127.0.0.1:70000"),
    ("SEARXNG_URL", "http://u:pw@127.0.0.1:8888"),
    ("SEARXNG_URL", "http://127.0.0.1:8888/?token=pw12345678")])
def test_a_bad_url_in_the_environment_is_refused_at_load(variable: str, value: str) -> None:
    with pytest.raises(ConfigError) as err:
        load_config(None, env={variable: value})
    message = str(err.value)
    assert message.startswith(f"environment variable {variable}: ")
    assert value not in message and "pw" not in message
