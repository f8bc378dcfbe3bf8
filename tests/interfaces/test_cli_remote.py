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
        name = f"{'-'.join(request.arg('q').lower().split())}.json"
        path = DEMO / name if len(name) < 200 else None  # a long query names no recording
        return Reply(json=json.loads(path.read_text()) if path and path.exists()
                     else {"results": []})

    with LoopbackServer() as server:
        server.route("/search", answer)
        yield server


def config_file(tmp_path: Path, searxng: LoopbackServer) -> Path:
    path = tmp_path / "tamis.yaml"
    path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                    "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
    return path


def run(args: list[str], tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TAMIS_", "SEARXNG_"))}
    base.update(XDG_CACHE_HOME=str(tmp_path / "cache"), XDG_CONFIG_HOME=str(tmp_path / "cfg"),
                **env)
    return subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *args], env=base,
                          capture_output=True, text=True, timeout=120)


def without_timings(text: str) -> dict[str, Any]:
    data = json.loads(text)
    data.pop("timing")
    data["extraction"].pop("seconds")
    for line in data["lines"]:
        line.pop("seconds")
    return data


@pytest.mark.parametrize("options", [["--no-extract"], ["--no-extract", "--explain",
                                                         "--max-results", "3"]])
def test_the_service_answer_is_what_the_cli_prints_itself(
        tmp_path: Path, searxng: LoopbackServer, options: list[str]) -> None:
    config = config_file(tmp_path, searxng)
    local = run(["search", *options, "--config", str(config), PROXMOX], tmp_path)
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        remote = run(["search", *options, PROXMOX], tmp_path, TAMIS_URL=served.url)
    assert (remote.returncode, remote.stderr) == (local.returncode, local.stderr) == (0, "")
    assert without_timings(remote.stdout) == without_timings(local.stdout)
    # The same bytes, timings aside: the JSON is laid out as the CLI lays out its own.
    assert remote.stdout.count("\n") == local.stdout.count("\n")


def test_a_failed_search_through_the_service(tmp_path: Path) -> None:
    dead = free_port()  # the service's only line cannot be reached
    config = tmp_path / "tamis.yaml"
    config.write_text(f"backends:\n  - name: searxng\n    base_url: http://127.0.0.1:{dead}\n"
                      "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
    local = run(["search", "--no-extract", "--config", str(config), PROXMOX], tmp_path)
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        remote = run(["search", "--no-extract", PROXMOX], tmp_path,
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
def test_an_unusable_tamis_url_is_one_error_line(tmp_path: Path, url: str, says: str) -> None:
    port = free_port()  # nothing listens there
    done = run(["search", "--no-extract", PROXMOX], tmp_path,
               TAMIS_URL=url.format(port=port), TAMIS_TOKEN=TOKEN)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: " + says.format(port=port))
    assert len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    assert TOKEN not in done.stderr and "hunter2" not in done.stderr


@pytest.mark.parametrize("token", [TOKEN + "\n", f"{TOKEN}\r\nX-Injected: 1", f" {TOKEN}"])
def test_an_unsendable_token_is_one_error_line(tmp_path: Path, token: str) -> None:
    done = run(["search", "--no-extract", PROXMOX], tmp_path,
               TAMIS_URL=f"http://127.0.0.1:{free_port()}", TAMIS_TOKEN=token)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: environment variable TAMIS_TOKEN: its value")
    assert len(done.stderr.splitlines()) == 1 and TOKEN not in done.stderr


@pytest.mark.parametrize(("body", "says"), [
    ("[" * 100_000 + "]" * 100_000, "did not answer as a tamis service"),
    (json.dumps({"schema_version": "1.0", "status": "failed", "results": [], "lines": [5]}),
     "answered in a shape this tamis cannot read"),
    (json.dumps({"schema_version": "1.0", "status": "ok", "results": [5], "lines": []}),
     "answered in a shape this tamis cannot read")])
@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_an_answer_tamis_cannot_read_is_one_error_line(tmp_path: Path, body: str, says: str,
                                                       fmt: str) -> None:
    with LoopbackServer() as server:
        server.route("/v1/search", Reply(body=body))
        done = run(["search", "--format", fmt, PROXMOX], tmp_path, TAMIS_URL=server.url)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith(f"error: TAMIS_URL {server.url} {says}"), done.stderr
    assert len(done.stderr.splitlines()) == 1


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


@pytest.mark.parametrize(("args", "encoding"), [
    (["--no-extract", PROXMOX], "utf-8"),
    (["--explain", "--no-extract", "--max-results=2", PROXMOX], "utf-8"),
    (["--no-extract", "nothing \u00e9t\u00e9"], "utf-8"),
    (["--no-extract", "\u00e9t\u00e9"], "ascii"),
    (["--no-extract", "--", "-site:x.com q"], "utf-8"),  # "--": a query may start with "-"
    (["  "], "utf-8"), (["--no-extract", "x" * 2000], "utf-8")])
def test_a_search_prints_one_answer_or_one_error(tmp_path: Path, searxng: LoopbackServer,
                                                args: list[str], encoding: str) -> None:
    """No TAMIS_URL: the command searches itself; JSON on stdout whatever the terminal's
    encoding, or one ``error:`` line (an empty or overlong query)."""
    done = run(["search", *args], tmp_path, SEARXNG_URL=searxng.url,
               PYTHONIOENCODING=encoding)
    if done.returncode == 2:
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1
        assert done.stderr.startswith("error: ")
        return  # the query was refused
    assert done.stderr == "" and done.returncode in (0, 1)
    assert json.loads(done.stdout)["query"] == args[-1].strip()


def test_a_service_that_trickles_its_answer_is_given_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A byte every 50 ms, forever: each read is quick, the answer never ends. The whole
    answer has the deadline, not each read."""
    from loopback import trickling

    from tamis.errors import SearchFailed
    from tamis.interfaces import cli_remote

    monkeypatch.setattr(cli_remote, "TIMEOUT_SECONDS", 0.5)
    with trickling() as url, pytest.raises(SearchFailed, match=r"did not answer within 0\.5 s"):
        cli_remote.search(url, {"query": PROXMOX})
