"""read_url and ``tamis read``: one page under a budget, paged with next_start."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from extract_support import PageServer, article_of_size, page, run

from tamis.extract import read_url
from tamis.interfaces.cli_read import read
from tamis.policy.schema import ExtractionConfig


def test_paging_through_a_page(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/read/long", article_of_size(5000, seed=21, title="Long read"))
    first = run(lambda client: read_url(url, config=config, client=client, max_chars=2000))
    assert first.status == "truncated" and first.truncated
    assert first.title == "Long read" and first.chars == len(first.content) <= 2000
    assert first.next_start is not None and first.total_chars > 2000
    pieces = [first.content]
    start = first.next_start
    while start is not None:
        answer = run(lambda client, s=start: read_url(url, config=config, client=client,
                                                      max_chars=2000, start=s))
        assert answer.start == start and answer.chars <= 2000
        pieces.append(answer.content)
        start = answer.next_start
    assert answer.status == "ok" and not answer.truncated
    whole = run(lambda client: read_url(url, config=config, client=client, max_chars=100000))
    assert " ".join(" ".join(pieces).split()) == " ".join(whole.content.split())


def test_read_with_a_query_is_focused(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/read/thread", page("xenforo.html"))
    answer = run(lambda client: read_url(url, config=config, client=client, max_chars=400,
                                         query="seventeen guests booted"))
    assert "seventeen guests" in answer.content and len(answer.content) <= 400
    assert answer.status == "truncated" and answer.next_start is None


def test_read_refuses_private_addresses(config: ExtractionConfig) -> None:
    config.allow_private_hosts = []
    answer = run(lambda client: read_url("http://127.0.0.1:9/x", config=config, client=client))
    assert answer.status == "failed:PrivateAddress" and answer.exit_code == 2


def write_config(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.yaml"
    path.write_text(text)
    return str(path)


LOOPBACK_CONFIG = "cache: {enabled: false}\nextraction: {allow_private_hosts: ['127.0.0.1']}\n"


def test_cli_read_json(server: PageServer, tmp_path: Path) -> None:
    url = server.add("/cli/article", article_of_size(3000, seed=22, title="CLI article"))
    config = write_config(tmp_path, LOOPBACK_CONFIG)
    outcome = CliRunner().invoke(read, [url, "--config", config, "--max-chars", "1000"])
    assert outcome.exit_code == 0, outcome.output
    answer = json.loads(outcome.stdout)
    assert answer["title"] == "CLI article" and answer["status"] == "truncated"
    assert answer["chars"] <= 1000 and answer["next_start"] and answer["schema_version"]
    again = CliRunner().invoke(read, [url, "--config", config, "--start",
                                      str(answer["next_start"]), "--format", "markdown"])
    assert again.exit_code == 0
    assert again.stdout.startswith("# CLI article\n") and "status: " in again.stdout


def test_cli_read_exit_codes(server: PageServer, tmp_path: Path) -> None:
    config = write_config(tmp_path, LOOPBACK_CONFIG)
    blocked = server.add("/cli/blocked", page("challenge.html"), status=503)
    outcome = CliRunner().invoke(read, [blocked, "--config", config])
    assert outcome.exit_code == 1 and json.loads(outcome.stdout)["status"] == "blocked"
    outcome = CliRunner().invoke(read, [server.url("/cli/missing"), "--config", config])
    assert outcome.exit_code == 2 and json.loads(outcome.stdout)["status"] == "failed:HTTP404"


def test_cli_read_config_error_is_one_line(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(read, ["http://example.com/", "--config",
                                        str(tmp_path / "missing.yaml")])
    assert outcome.exit_code == 2
    assert outcome.stdout == ""
    lines = outcome.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "not found" in lines[0]
    bad = write_config(tmp_path, "extraction: {top_n: many}\n")
    outcome = CliRunner().invoke(read, ["http://example.com/", "--config", bad])
    assert outcome.exit_code == 2 and len(outcome.stderr.strip().splitlines()) == 1
    assert "Traceback" not in outcome.output


def test_cli_read_with_the_cache(server: PageServer, tmp_path: Path) -> None:
    url = server.add("/cli/cached", article_of_size(1500, seed=23))
    store = tmp_path / "store.sqlite3"
    config = write_config(tmp_path, f"store: {{url: '{store}'}}\n"
                                    "extraction: {allow_private_hosts: ['127.0.0.1']}\n")
    for _ in range(2):
        assert CliRunner().invoke(read, [url, "--config", config]).exit_code == 0
    assert len(server.hits_for("/cli/cached")) == 1
