"""CLI start-up: each command imports only what it needs, and laziness changes no output.

Real processes (the CLI as agents call it) against a loopback SearXNG that answers the
recorded demo answers (src/tamis/demo). The golden comparisons are between ways of running the
same tamis (lazy vs everything imported first, uncached vs cached), not frozen bytes, so that
ranking changes elsewhere do not break them."""

from __future__ import annotations

import json
import os
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply

import tamis

DEMO = Path(tamis.__file__).parent / "demo"
QUERIES = ["proxmox thin pool metadata exhaustion recovery",
           "best practices agent context management"]
WATCHED = ("pydantic", "httpx", "asyncio", "yaml", "ssl", "tamis.core", "tamis.models",
           "click")
NEVER_FOR_A_SEARCH = ("fastapi", "starlette", "uvicorn", "mcp", "trafilatura", "tabulate",
                      "lxml", "numpy", "redis", "ddgs")
RUNNER = """
import atexit, sys
def report():
    sys.stderr.write("MODULES " + " ".join(m for m in {watched!r} if m in sys.modules) + "\\n")
atexit.register(report)
{eager}
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli  # the console script's entry point
cli()
"""
EAGER = """
import importlib, pkgutil, tamis
for info in pkgutil.walk_packages(tamis.__path__, "tamis."):
    importlib.import_module(info.name)
"""


def tamis_modules() -> list[str]:
    return [info.name for info in pkgutil.walk_packages(tamis.__path__, "tamis.")]


@pytest.fixture
def searxng() -> Iterator[LoopbackServer]:
    def answer(request: Any) -> Reply:
        path = DEMO / f"{'-'.join(request.arg('q').lower().split())}.json"
        return Reply(json=json.loads(path.read_text()) if path.exists() else {"results": []})

    with LoopbackServer() as server:
        server.route("/search", answer)
        yield server


def cli(args: list[str], env: dict[str, str], eager: bool = False,
        watched: tuple[str, ...] = WATCHED) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    code = RUNNER.format(watched=watched, eager=EAGER if eager else "")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, timeout=120)
    lines = proc.stderr.splitlines()
    modules = {m for line in lines if line.startswith("MODULES") for m in line.split()[1:]}
    proc.stderr = "\n".join(line for line in lines if not line.startswith("MODULES"))
    return proc, modules


def environment(tmp_path: Path, server: LoopbackServer, cache: str = "cache") -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("TAMIS_")}
    env.update(SEARXNG_URL=server.url, XDG_CACHE_HOME=str(tmp_path / cache),
               XDG_CONFIG_HOME=str(tmp_path / "config"))
    return env


def without_timings(text: str) -> dict[str, Any]:
    data = json.loads(text)
    data.pop("timing")
    data["extraction"].pop("seconds")
    for line in data["lines"]:
        line.pop("seconds")
    return data


def test_the_help_is_the_same_whatever_was_imported(tmp_path: Path,
                                                    searxng: LoopbackServer) -> None:
    env = environment(tmp_path, searxng)
    for args in (["--help"], ["search", "--help"], ["config", "--help"]):
        lazy, _ = cli(args, env)
        eager, _ = cli(args, env, eager=True)
        assert (lazy.returncode, lazy.stdout, lazy.stderr) == (
            eager.returncode, eager.stdout, eager.stderr), args


@pytest.mark.parametrize("explain", [False, True])
def test_lazy_and_eager_imports_print_the_same_answers(tmp_path: Path, searxng: LoopbackServer,
                                                       explain: bool) -> None:
    extra = ["--explain"] if explain else []
    for query in QUERIES:
        args = ["search", "--no-extract", *extra, query]
        lazy, _ = cli(args, environment(tmp_path, searxng, f"lazy-{query}"))
        eager, modules = cli(args, environment(tmp_path, searxng, f"eager-{query}"), eager=True)
        assert "tamis.core" in modules
        assert lazy.returncode == eager.returncode == 0, lazy.stderr
        assert without_timings(lazy.stdout) == without_timings(eager.stdout)
        assert lazy.stderr == eager.stderr == ""


@pytest.mark.parametrize("args", [["--no-extract"], ["--no-extract", "--explain"],
                                  ["--no-extract", "--max-results", "3", "--engines", "bing"]])
def test_a_cli_repeat_prints_the_first_answer_from_the_store(
        tmp_path: Path, searxng: LoopbackServer, args: list[str]) -> None:
    env = environment(tmp_path, searxng)
    for query in QUERIES if args == ["--no-extract"] else QUERIES[:1]:
        first, _ = cli(["search", *args, query], env)
        asked = len(searxng.seen)
        again, modules = cli(["search", *args, query], env)
        assert len(searxng.seen) == asked  # no line asked
        assert modules.isdisjoint({"pydantic", "httpx", "asyncio", "tamis.core"}), modules
        assert again.returncode == first.returncode == 0
        expected = first.stdout.replace('"cached": false', '"cached": true')
        assert '"cached": false' in first.stdout
        assert again.stdout == expected  # byte for byte, timings included
        markdown, modules = cli(["search", *args, "--format", "markdown", query], env)
        assert "tamis.core" not in modules and len(searxng.seen) == asked
        direct, _ = cli(["search", *args, "--format", "markdown", query],
                        environment(tmp_path, searxng, "fresh-" + "-".join(args) + query))
        assert markdown.stdout.split("\n", 3)[3] == direct.stdout.split("\n", 3)[3]
        assert markdown.stdout.split("\n", 3)[:2] == direct.stdout.split("\n", 3)[:2]


def test_a_changed_config_file_or_environment_is_not_the_stored_answer(
        tmp_path: Path, searxng: LoopbackServer) -> None:
    env = environment(tmp_path, searxng)
    config = tmp_path / "tamis.yaml"
    config.write_text("max_results: 4\n")
    args = ["search", "--no-extract", "--config", str(config), QUERIES[0]]
    first, _ = cli(args, env)
    assert len(json.loads(first.stdout)["results"]) == 4
    config.write_text("max_results: 2\n")
    changed, modules = cli(args, env)
    assert "tamis.core" in modules
    assert len(json.loads(changed.stdout)["results"]) == 2
    with LoopbackServer() as other:
        other.route("/search", Reply(json={"results": []}))
        moved, _ = cli(args, {**env, "SEARXNG_URL": other.url})
        assert json.loads(moved.stdout)["status"] == "no_results" and len(other.seen) == 1
    config.write_text("max_results: [2\n")  # now broken: the error, never a stored answer
    broken, _ = cli(args, env)
    assert broken.returncode == 2 and broken.stdout == ""
    assert broken.stderr.startswith(f"error: {config}, line 2: not valid YAML")


def test_every_module_still_imports_on_its_own() -> None:
    code = "import importlib, sys; [importlib.import_module(m) for m in sys.argv[1:]]"
    proc = subprocess.run([sys.executable, "-c", code, *tamis_modules()], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


CONFIG_BUILT = """
import atexit, sys
import tamis.policy.loader as loader
validated = []
check = loader._validate
loader._validate = lambda *args: validated.append(1) or check(*args)
atexit.register(lambda: sys.stderr.write(f"CONFIG_BUILT {bool(validated)}\\n"))
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli
cli()
"""


def run(args: list[str], env: dict[str, str]) -> tuple[subprocess.CompletedProcess[str], str]:
    """The CLI in a process, and whether it validated the config (no snapshot)."""
    proc = subprocess.run([sys.executable, "-c", CONFIG_BUILT, *args], capture_output=True,
                          text=True, env=env, timeout=120)
    built = [x for x in proc.stderr.splitlines() if x.startswith("CONFIG_BUILT")]
    return proc, built[-1]


def test_a_new_query_reads_the_validated_config_from_the_store(
        tmp_path: Path, searxng: LoopbackServer) -> None:
    """A CLI call for a new query, after another with the same files: the config comes from
    its snapshot (not validated again) and prints what a fresh store prints."""
    config = tmp_path / "tamis.yaml"
    config.write_text("max_results: 4\npolicy: {ranking: {demote_places: 3}}\n")
    env = environment(tmp_path, searxng)
    first, built = run(["search", "--no-extract", "--config", str(config), "other"], env)
    assert first.returncode == 1 and built == "CONFIG_BUILT True"  # no results
    for query, explain in ((QUERIES[0], []), (QUERIES[1], ["--explain"])):
        args = ["search", "--no-extract", *explain, "--config", str(config), query]
        again, built = run(args, env)
        assert built == "CONFIG_BUILT False", again.stderr
        fresh, _ = run(args, environment(tmp_path, searxng, f"fresh-{query}"))
        assert again.returncode == fresh.returncode == 0
        assert without_timings(again.stdout) == without_timings(fresh.stdout)
        assert len(json.loads(again.stdout)["results"]) == 4


def test_a_search_imports_neither_views_nor_servers_nor_a_yaml_parser(
        tmp_path: Path, searxng: LoopbackServer) -> None:
    """The servers, page extraction, the other commands' packages: never for a ranking-only
    search; PyYAML only to read a user's config file."""
    watched = (*NEVER_FOR_A_SEARCH, "yaml")
    env = environment(tmp_path, searxng)
    for query in (QUERIES[0], QUERIES[1]):  # the first call, then one with the store made
        proc, modules = cli(["search", "--no-extract", query], env, watched=watched)
        assert proc.returncode == 0, proc.stderr
        assert modules == set(), modules
    config = tmp_path / "tamis.yaml"
    config.write_text("max_results: 3\n")
    proc, modules = cli(["search", "--no-extract", "--config", str(config), QUERIES[0]], env,
                        watched=watched)
    assert proc.returncode == 0 and modules == {"yaml"}, modules


# Standard library modules an uncached ranking-only search does without: argparse (tamis's
# command line is click's), the resolver's thread and the IDNA codec (a backend at
# an IP address is not looked up).
NOT_FOR_A_SEARCH = ("argparse", "concurrent.futures.thread", "encodings.idna")


def test_a_search_imports_no_argparse_or_resolver_thread(
        tmp_path: Path, searxng: LoopbackServer) -> None:
    """Once the store holds the validated config (the first call validates it)."""
    env = environment(tmp_path, searxng)
    assert cli(["search", "--no-extract", "the store is made"], env)[0].returncode == 1
    for query in QUERIES:
        proc, modules = cli(["search", "--no-extract", query], env, watched=NOT_FOR_A_SEARCH)
        assert proc.returncode == 0, proc.stderr
        assert modules == set(), modules


def test_after_the_answers_expire_a_call_still_needs_no_config_model(
        tmp_path: Path, searxng: LoopbackServer) -> None:
    """The fingerprint note (config inputs -> the effective config's hash) outlives the
    answers' TTL: it cannot go stale, and without it the config is dumped to be hashed."""
    import time

    config = tmp_path / "tamis.yaml"
    config.write_text("cache: {ttl_seconds: 1}\n")
    env = environment(tmp_path, searxng)
    args = ["search", "--no-extract", "--config", str(config)]
    first, built = run([*args, QUERIES[0]], env)
    assert first.returncode == 0 and built == "CONFIG_BUILT True"
    time.sleep(1.5)  # the answer is gone: the next call searches again
    again, built = run([*args, QUERIES[0]], env)
    assert '"cached": false' in again.stdout and built == "CONFIG_BUILT False", again.stderr
    assert without_timings(again.stdout) == without_timings(first.stdout)
