"""The CLI's warm path: with TAMIS_URL set, `tamis search` asks a running `tamis serve`
(real HTTP on 127.0.0.1) and prints what it would print itself; errors are one line that
names TAMIS_URL and never shows the token."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply, free_port
from serving import Served

import tamis
from tamis.core import Tamis
from tamis.interfaces.http_app import create_app

PROXMOX = "proxmox thin pool metadata exhaustion recovery"
DEMO = Path(tamis.__file__).parent / "demo"
TOKEN = "warm-path-token-0123456789"


@pytest.fixture
def searxng() -> Iterator[LoopbackServer]:
    def answer(request: Any) -> Reply:
        path = DEMO / f"{'-'.join(request.arg('q').lower().split())}.json"
        return Reply(json=json.loads(path.read_text()) if path.exists() else {"results": []})

    with LoopbackServer() as server:
        server.route("/search", answer)
        yield server


def config_file(tmp_path: Path, searxng: LoopbackServer) -> Path:
    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                    "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
    return path


ENTRY = "tamis.interfaces.entry"  # the console script: plain arguments skip click
CLICK = "tamis.interfaces.cli"  # the click command itself


def run(args: list[str], tmp_path: Path, module: str = ENTRY,
        **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TAMIS_", "SEARXNG_"))}
    base.update(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "cfg"),
                **env)
    return subprocess.run([sys.executable, "-m", module, *args], env=base,
                          capture_output=True, text=True, timeout=120)


def without_timings(text: str) -> dict[str, Any]:
    data = json.loads(text)
    data.pop("timing")
    data["extraction"].pop("seconds")
    for line in data["lines"]:
        line.pop("seconds")
    return data


@pytest.mark.parametrize("module", [ENTRY, CLICK])
@pytest.mark.parametrize("options", [["--no-extract"], ["--no-extract", "--explain",
                                                         "--max-results", "3"]])
def test_the_service_answer_is_what_the_cli_prints_itself(
        tmp_path: Path, searxng: LoopbackServer, options: list[str], module: str) -> None:
    config = config_file(tmp_path, searxng)
    local = run(["search", *options, "--config", str(config), PROXMOX], tmp_path)
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        remote = run(["search", *options, PROXMOX], tmp_path, module, TAMIS_URL=served.url)
    assert (remote.returncode, remote.stderr) == (local.returncode, local.stderr) == (0, "")
    assert without_timings(remote.stdout) == without_timings(local.stdout)
    # The same bytes, timings aside: the JSON is laid out as the CLI lays out its own.
    assert remote.stdout.count("\n") == local.stdout.count("\n")


@pytest.mark.parametrize("module", [ENTRY, CLICK])
def test_a_failed_search_through_the_service(tmp_path: Path, module: str) -> None:
    dead = free_port()  # the service's only line cannot be reached
    config = tmp_path / "tamis.yaml"
    config.write_text(f"backends:\n  - name: searxng\n    base_url: http://127.0.0.1:{dead}\n"
                      "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
    local = run(["search", "--no-extract", "--config", str(config), PROXMOX], tmp_path)
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        remote = run(["search", "--no-extract", PROXMOX], tmp_path, module,
                     TAMIS_URL=served.url)
    assert remote.returncode == local.returncode == 2
    assert remote.stderr == local.stderr and remote.stderr.startswith("error: the search")
    assert without_timings(remote.stdout) == without_timings(local.stdout)


def test_markdown_and_no_results_through_the_service(tmp_path: Path,
                                                     searxng: LoopbackServer) -> None:
    config = config_file(tmp_path, searxng)
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        shown = run(["search", "--no-extract", "--format", "markdown", PROXMOX], tmp_path,
                    TAMIS_URL=served.url + "/")
        empty = run(["search", "--no-extract", "nothing recorded for this"], tmp_path,
                    TAMIS_URL=served.url)
    assert shown.returncode == 0 and shown.stdout.startswith(f"# Search: {PROXMOX}\n")
    assert empty.returncode == 1 and json.loads(empty.stdout)["status"] == "no_results"


def test_the_token_is_sent_and_never_shown(tmp_path: Path, searxng: LoopbackServer) -> None:
    config = config_file(tmp_path, searxng)
    with Served(create_app(Tamis(str(config)), token=TOKEN, close_layer=True)) as served:
        refused = run(["search", "--no-extract", PROXMOX], tmp_path, TAMIS_URL=served.url,
                      TAMIS_TOKEN=TOKEN[::-1])
        answered = run(["search", "--no-extract", PROXMOX], tmp_path, TAMIS_URL=served.url,
                       TAMIS_TOKEN=TOKEN)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith(f"error: TAMIS_URL {served.url} refused the search"
                                     " (HTTP 401)")
    assert TOKEN[::-1] not in refused.stderr and len(refused.stderr.splitlines()) == 1
    assert answered.returncode == 0 and json.loads(answered.stdout)["status"] == "ok"


@pytest.mark.parametrize(("url", "says"), [
    ("http://127.0.0.1:{port}", "TAMIS_URL http://127.0.0.1:{port} could not be reached"
                                " (connection refused)"),
    ("http://agent:hunter2-password@127.0.0.1:{port}/x",
     "TAMIS_URL http://127.0.0.1:{port} could not be reached"),
    ("ftp://127.0.0.1:{port}", "TAMIS_URL must be an http:// or https:// URL"),
    ("http://127.0.0.1:99999", "TAMIS_URL is not a URL"),
])
@pytest.mark.parametrize("module", [ENTRY, CLICK])
def test_an_unusable_tamis_url_is_one_error_line(tmp_path: Path, url: str, says: str,
                                                 module: str) -> None:
    port = free_port()  # nothing listens there
    done = run(["search", "--no-extract", PROXMOX], tmp_path, module,
               TAMIS_URL=url.format(port=port), TAMIS_TOKEN=TOKEN)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: " + says.format(port=port))
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert TOKEN not in done.stderr and "hunter2" not in done.stderr


def test_a_service_that_is_not_tamis_is_named(tmp_path: Path, searxng: LoopbackServer) -> None:
    done = run(["search", "--no-extract", PROXMOX], tmp_path, TAMIS_URL=searxng.url)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"error: TAMIS_URL {searxng.url} ")
    assert len(done.stderr.splitlines()) == 1


def test_config_is_refused_with_tamis_url(tmp_path: Path, searxng: LoopbackServer) -> None:
    config = config_file(tmp_path, searxng)
    done = run(["search", "--config", str(config), PROXMOX], tmp_path,
               TAMIS_URL="http://127.0.0.1:9")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --config is not used with TAMIS_URL set")


QUICK_CASES = [
    [PROXMOX], ["--no-extract", PROXMOX], [PROXMOX, "--explain"], ["--", "-site:x.com q"],
    ["--max-results", "5", PROXMOX], ["--max-results=5", PROXMOX], ["--max-results", "05", "q"],
    ["--max-results", "0", "q"], ["--max-results", "101", "q"], ["--max-results", "+5", "q"],
    ["--max-results", " 5", "q"], ["--max-results", "x", "q"], ["--max-results"],
    ["--format", "json", "q"], ["--format=markdown", "q"], ["--format", "JSON", "q"],
    ["--time-range", "year", "q"], ["--time-range", "Year", "q"], ["--time-range=", "q"],
    ["--language", "de-DE", "--categories", "it", "--engines", "bing,brave", "q"],
    ["--language=", "q"], ["--language", "--explain", "q"], ["--safesearch", "2", "q"],
    ["--safesearch", "3", "q"], ["--pageno", "50", "q"], ["--pageno", "51", "q"],
    ["--no-extract=1", "q"], ["--config", "x.yaml", "q"], ["--help"], ["-h", "q"], [],
    ["a", "b"], ["-x", "q"], ["--no-ext", "q"], ["-"], ["--explain", "--explain", "q"],
    ["--max-results", "3", "--max-results", "4", "q"], ["--", "--help"], ["q", "--"],
]


@pytest.mark.parametrize("args", QUICK_CASES, ids=lambda a: " ".join(a) or "(none)")
def test_plain_arguments_read_as_click_reads_them(args: list[str]) -> None:
    """Whatever the quick path takes, click takes the same way (the body it would send);
    whatever it leaves to click is click's to accept or refuse."""
    import click

    from tamis.interfaces.cli import search
    from tamis.interfaces.cli_quick import quick_body

    quick = quick_body(args)
    try:
        params = search.make_context("search", list(args)).params
    except click.exceptions.Exit:  # --help
        params = None
    except click.UsageError:
        params = None
    if params is None or params["config_path"] is not None or params["fmt"] != "json":
        assert quick is None
        return
    given = {k: v for k, v in params.items() if v is not None and k not in (
        "query", "config_path", "no_extract", "explain", "fmt")}
    body = {"query": params["query"], **given, "extract": not params["no_extract"],
            "explain": params["explain"]}
    assert quick is None or quick == body
    if args in PLAIN:
        assert quick == body


PLAIN = [*QUICK_CASES[:7], *(QUICK_CASES[i] for i in (13, 16, 19, 22, 24, 35, 36))]


@pytest.mark.parametrize(("args", "encoding"), [
    (["--no-extract", PROXMOX], "utf-8"),
    (["--explain", "--no-extract", "--max-results=2", PROXMOX], "utf-8"),
    (["--no-extract", "nothing \u00e9t\u00e9"], "utf-8"),
    (["--no-extract", "\u00e9t\u00e9"], "ascii"),
    (["  "], "utf-8"), (["--no-extract", "x" * 2000], "utf-8")])
def test_the_quick_path_searches_as_the_click_command(tmp_path: Path, searxng: LoopbackServer,
                                                      args: list[str], encoding: str) -> None:
    """No TAMIS_URL: the console script searches itself, without click, the same way."""
    env = {"SEARXNG_URL": searxng.url, "PYTHONIOENCODING": encoding}
    quick = run(["search", *args], tmp_path / "quick", ENTRY, **env)
    clicked = run(["search", *args], tmp_path / "click", CLICK, **env)
    assert (quick.returncode, quick.stderr) == (clicked.returncode, clicked.stderr)
    if clicked.stdout:
        assert without_timings(quick.stdout) == without_timings(clicked.stdout)
    assert quick.stdout.count("\n") == clicked.stdout.count("\n")
