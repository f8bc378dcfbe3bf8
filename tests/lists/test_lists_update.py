"""``tamis lists update`` against a real list server on 127.0.0.1: 200, 304, a change, 500,
a body over the size cap, a timeout; the copy searches use, and a list never fetched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback import LoopbackServer, Reply, Request

from tamis.interfaces.cli import cli
from tamis.policy.lists.load import forget
from tamis.policy.lists.storage import copy_path, lists_dir, read_meta

LIST_V1 = "! Title: farms\n||farm-one.example^\n||farm-two.example^\n"
LIST_V2 = "! Title: farms\n||farm-one.example^\n||farm-three.example^\n||farm-four.example^\n"


class ListServer:
    """Serves one list with an ETag and answers conditional GETs with 304."""

    def __init__(self) -> None:
        self.body = LIST_V1
        self.etag = '"v1"'
        self.status = 200
        self.hang = False
        self.huge = False
        self.html = False

    def __call__(self, request: Request) -> Reply:
        if self.hang:
            return Reply(hang=True)
        if self.status != 200:
            return Reply(status=self.status, body="oops", content_type="text/plain")
        if self.html:
            return Reply(body="<!DOCTYPE html><html><body>Sign in</body></html>",
                         content_type="text/html")
        if self.huge:
            return Reply(body=b"||x.example^\n" * 200_000, content_type="text/plain")
        if request.header("if-none-match") == self.etag:
            return Reply(status=304, body=b"", headers={"ETag": self.etag})
        return Reply(body=self.body, content_type="text/plain",
                     headers={"ETag": self.etag,
                              "Last-Modified": "Tue, 01 Dec 2026 06:00:00 GMT"})


# A line that is never asked: these tests are about lists, not searches.
NO_LINE = "backends:\n  - {name: searxng, base_url: 'http://127.0.0.1:9'}"


@pytest.fixture
def served(tmp_path: Path):
    app = ListServer()
    with LoopbackServer(app) as server:
        config = tmp_path / "config.yaml"
        config.write_text(
            f"{NO_LINE}\n"
            "policy:\n  lists:\n"
            f"    - {{name: farms, source: '{server.url}/farms.txt', action: demote,"
            " max_bytes: 100000}\n")
        forget()
        yield app, server, config


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_fetch_then_304_then_change(served) -> None:
    app, server, config = served
    code, out, err = run("lists", "update", "--config", str(config))
    assert code == 0, err
    assert out.startswith("farms: fetched 2 rules (ublock, ")
    assert copy_path("farms").read_text() == LIST_V1
    meta = read_meta("farms")
    assert meta["etag"] == '"v1"' and meta["sha256"] and meta["bytes"] == len(LIST_V1)

    code, out, _ = run("lists", "update", "--config", str(config))
    assert code == 0 and out.strip() == "farms: not modified (304), 2 rules"
    conditional = server.seen[-1]
    assert conditional.header("if-none-match") == '"v1"'
    assert conditional.header("if-modified-since") == "Tue, 01 Dec 2026 06:00:00 GMT"

    app.body, app.etag = LIST_V2, '"v2"'
    code, out, _ = run("lists", "update", "--config", str(config))
    assert code == 0 and out.startswith("farms: updated: 3 rules (+2 -1) (ublock, ")
    assert copy_path("farms").read_text() == LIST_V2


@pytest.mark.parametrize("trouble, says", [
    ("500", "failed: HTTP 500"),
    ("huge", "failed: the list is over the size cap (max_bytes 100,000)"),
    ("hang", "failed: timed out"),
    ("html", "failed: the server answered an HTML page, not a list"),
])
def test_a_failed_fetch_keeps_the_previous_copy(served, trouble: str, says: str) -> None:
    app, _server, config = served
    assert run("lists", "update", "--config", str(config))[0] == 0
    before = copy_path("farms").read_bytes()
    meta = read_meta("farms")
    app.status = 500 if trouble == "500" else 200
    app.huge = trouble == "huge"
    app.hang = trouble == "hang"
    app.html = trouble == "html"
    app.etag = '"changed"'  # so no 304 hides the trouble
    # Only the hanging server should meet the timeout, however loaded the machine is.
    timeout = "0.5" if trouble == "hang" else "30"
    code, out, err = run("lists", "update", "--config", str(config), "--timeout", timeout)
    assert code == 1
    assert out.startswith(f"farms: {says}") and "; kept the previous copy (" in out
    assert err.strip() == "error: 1 of 1 lists could not be fetched: farms"
    assert copy_path("farms").read_bytes() == before
    assert read_meta("farms") == meta
    leftovers = [p.name for p in lists_dir().iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_a_list_never_fetched_is_a_note_not_a_failure(served) -> None:
    _app, server, config = served
    code, out, _ = run("config", "check", str(config))
    assert code == 0
    assert "# list farms: never fetched; run `tamis lists update` to fetch it" in out
    code, out, _ = run("backends", "--config", str(config), "--json")
    assert code == 0
    [state] = json.loads(out)["lists"]
    assert state["state"] == "never_fetched" and state["age"] == "never fetched"
    assert server.seen == []  # neither command fetched anything

    run("lists", "update", "--config", str(config))
    code, out, _ = run("backends", "--config", str(config))
    assert code == 0
    assert "list farms (demote): 2 rules (ublock); fetched copy 0 s old" in out \
        or "list farms (demote): 2 rules (ublock); fetched copy 1 s old" in out


def test_update_names_an_unknown_list(served) -> None:
    _app, _server, config = served
    code, _out, err = run("lists", "update", "--config", str(config), "nope")
    assert code == 2
    assert err.strip() == (f"error: {config}: no list named 'nope' in policy.lists"
                           " (known: farms)")


def test_bad_lines_are_reported_with_source_and_line(served) -> None:
    app, server, config = served
    app.body = "||ok.example^\n||bad..example^\n"
    code, out, _ = run("lists", "update", "--config", str(config))
    assert code == 0
    assert f"  skipped {server.url}/farms.txt:2: 'bad..example' is not a host name:" \
           " ||bad..example^" in out
    code, out, _ = run("lists", "show", "--config", str(config))
    assert code == 0 and ":2: 'bad..example' is not a host name" in out


def test_searching_never_fetches_and_uses_the_fetched_copy(served, tmp_path: Path) -> None:
    import asyncio

    from tamis.core import Tamis

    _app, server, config = served
    recordings = tmp_path / "rec"
    recordings.mkdir()
    (recordings / "farm-query.json").write_text(json.dumps({"results": [
        {"url": "https://farm-one.example/a", "title": "Farm query answer one",
         "content": "farm query", "engine": "bing", "engines": ["bing"], "positions": [1]},
        {"url": "https://honest.example/a", "title": "Farm query answer two",
         "content": "farm query", "engine": "bing", "engines": ["bing"], "positions": [2]},
    ]}))
    config.write_text(config.read_text().replace(
        NO_LINE, f"backends:\n  - {{name: searxng, type: replay, path: '{recordings}'}}"))

    async def go():  # type: ignore[no-untyped-def]
        async with Tamis(config) as layer:
            return await layer.search("farm query", extract=False, explain=True)

    before = asyncio.run(go())
    assert [r.host for r in before.results] == ["farm-one.example", "honest.example"]
    assert [n.source for n in before.notes] == ["list:farms"]
    run("lists", "update", "--config", str(config))
    fetches = len(server.seen)
    forget()
    after = asyncio.run(go())
    assert [r.host for r in after.results] == ["honest.example", "farm-one.example"]
    assert after.results[1].explain and after.results[1].explain.demote_reason == \
        "list:farms:2"
    assert len(server.seen) == fetches  # the search read the copy, fetched nothing


def test_the_parsed_form_is_cached_on_the_list_hash(tmp_path: Path, monkeypatch) -> None:
    from tamis.policy.lists import load as load_module
    from tamis.policy.lists.storage import lists_dir
    from tamis.policy.schema import ListEntry

    listfile = tmp_path / "l.txt"
    listfile.write_text("||one.example^\n")
    entry = ListEntry(name="l", source=str(listfile))
    parses = []
    real = load_module.parse_list
    monkeypatch.setattr(load_module, "parse_list",
                        lambda *a: parses.append(a) or real(*a))
    forget()
    load_module.load_lists([entry])
    forget()
    matcher, _ = load_module.load_lists([entry])  # a new process would do this: from cache
    assert len(parses) == 1 and matcher is not None
    assert len(list((lists_dir() / "parsed").iterdir())) == 1
    listfile.write_text("||one.example^\n||two.example^\n")
    forget()
    matcher, [status] = load_module.load_lists([entry])
    assert len(parses) == 2 and status.rules == 2  # new text, new hash: parsed again


def test_a_token_in_the_list_url_never_shows(tmp_path: Path) -> None:
    app = ListServer()
    app.body = "||ok.example^\n||bad..example^\n"
    with LoopbackServer(app) as server:
        secret_url = server.url.replace("http://", "http://reader:hunter2@") + \
            "/farms.txt?token=s3cr3t"
        config = tmp_path / "config.yaml"
        config.write_text(f"policy:\n  lists:\n    - {{name: farms, source: '{secret_url}'}}\n")
        forget()
        outputs = [run("lists", "update", "--config", str(config))]
        outputs.append(run("lists", "show", "--config", str(config), "--json"))
        outputs.append(run("backends", "--config", str(config), "--json"))
        app.status = 500
        app.etag = '"new"'
        outputs.append(run("lists", "update", "--config", str(config)))
    server.stop()
    outputs.append(run("lists", "update", "--config", str(config)))  # connection refused
    stored = "".join(p.read_text("utf-8", "replace") for p in lists_dir().rglob("*")
                     if p.is_file())
    for _code, out, err in outputs:
        for secret in ("hunter2", "s3cr3t"):
            assert secret not in out and secret not in err
    assert "hunter2" not in stored and "s3cr3t" not in stored
    assert "reader:" not in outputs[0][1] and ":2: 'bad..example'" in outputs[0][1]


@pytest.mark.parametrize("source, why", [
    ("http://reader:hunter2@[::1/farms.txt?token=s3cr3t",
     "is not a valid URL (check the brackets around an IPv6 address)"),
    ("https://example.org:http/farms.txt", "has a bad port: it must be a number from 1 to 65535"),
    ("https://example.org/farms\\x01.txt", "holds a control character"),
    ("https://xn--a.example/farms.txt",
     "has a host label 'xn--a' that is not valid punycode (xn--)"),
])
def test_a_list_url_httpx_cannot_request_is_one_config_error_line(
        tmp_path: Path, source: str, why: str) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f'{NO_LINE}\npolicy:\n  lists:\n    - {{name: farms, source: "{source}"}}\n')
    for command in (["lists", "update"], ["lists", "show"]):
        code, out, err = run(*command, "--config", str(config))
        assert (code, out) == (2, "")
        assert err == f"error: {config}, line 5: key 'policy.lists.0.source': {why}\n"


def test_a_list_that_trickles_in_forever_times_out(tmp_path: Path) -> None:
    """A server that sends a byte every 50 ms, forever: each read beats the timeout, the
    whole download does not; the update ends, saying so."""
    from loopback import trickling

    from tamis.policy.lists.update import update_lists
    from tamis.policy.schema import ListEntry

    forget()
    with trickling() as url:
        [result] = update_lists([ListEntry(name="slow", source=url + "/slow.txt")], timeout=0.2)
    assert result.failed and "timed out" in result.message, result.message


def test_a_bad_line_is_shown_without_its_terminal_sequences(tmp_path: Path) -> None:
    """A list line that retitles the terminal (OSC 0) or clears it: shown escaped."""
    listed = tmp_path / "farms.txt"
    listed.write_text("||good.example^\n||bad\x1b]0;owned\x07.example^\n\x1b[2J||x\n")
    config = tmp_path / "config.yaml"
    config.write_text(f"{NO_LINE}\npolicy:\n  lists:\n    - {{name: farms, source: '{listed}'}}\n")
    forget()
    result = CliRunner().invoke(cli, ["lists", "show", "--config", str(config)], color=True)
    assert result.exit_code == 0, result.output
    assert "||bad\\x1b]0;owned\\x07.example^" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
