"""What one command or setting alone uses is an extra (``pip install 'tamis[dupes]'``): with
its package missing, the command says in one ``error:`` line which extra to install, exit 2,
no traceback; the default jobs need none of them.

A package is made missing in a subprocess by a finder on ``sys.meta_path`` that refuses it,
as Python refuses a package that is not installed (nothing is uninstalled)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply

HERE = Path(__file__).parent
EXTRAS_MODULES = ("numpy", "redis", "re2", "fastapi", "prometheus_client", "httptools",
                  "uvloop")
RUNNER = """
import sys
from importlib.abc import MetaPathFinder

class NotInstalled(MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {missing!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled())
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli
cli()
"""


def tamis(missing: tuple[str, ...], *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("TAMIS_", "SEARXNG_"))}
    return subprocess.run([sys.executable, "-c", RUNNER.format(missing=missing), *args],
                          capture_output=True, text=True, timeout=120, env={**environ, **env})


def assert_names_the_extra(proc: subprocess.CompletedProcess[str], line: str) -> None:
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == f"error: {line}\n"


def test_dupes_without_numpy(tmp_path: Path) -> None:
    nodes = tmp_path / "nodes.jsonl"
    nodes.write_text('{"id": 1, "title": "a", "body": "b"}\n')
    proc = tamis(("numpy",), "dupes", "--jsonl", str(nodes))
    assert_names_the_extra(proc, "tamis dupes needs numpy: pip install 'tamis[dupes]'")
    assert proc.stdout == ""


@pytest.mark.parametrize("missing", ["fastapi", "prometheus_client"])
def test_serve_without_its_extra(tmp_path: Path, missing: str) -> None:
    proc = tamis((missing,), "serve", "--port", "0", XDG_CACHE_HOME=str(tmp_path))
    package = missing.replace("_", "-")
    assert_names_the_extra(proc, f"tamis serve needs {package}: pip install 'tamis[serve]'")


def test_a_redis_store_without_redis(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("store: {url: 'redis://127.0.0.1:9'}\n")
    proc = tamis(("redis",), "search", "--no-extract", "--config", str(config), "a query")
    assert_names_the_extra(proc, "a redis:// store needs redis: pip install 'tamis[redis]'")


def test_a_community_list_regex_rule_without_re2(tmp_path: Path) -> None:
    listfile = HERE / "lists" / "data" / "so-copies.ublacklist.txt"  # holds a regex rule
    config = tmp_path / "tamis.yaml"
    config.write_text(
        f"backends:\n  - {{name: searxng, type: replay, path: '{HERE / 'lists' / 'recordings'}'}}\n"
        f"store: {{url: 'memory:'}}\npolicy:\n  lists:\n"
        f"    - {{name: so-copies, source: '{listfile}', action: drop}}\n")
    proc = tamis(("re2",), "search", "--no-extract", "--config", str(config), "a query")
    assert_names_the_extra(
        proc, "a community list's regex rules needs google-re2: pip install 'tamis[lists]'")


def test_the_default_jobs_need_no_extra(tmp_path: Path) -> None:
    answer = {"results": [{"url": "https://example.org/a", "title": "An answer",
                           "engine": "bing"}]}
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path)}
    with LoopbackServer() as server:
        server.route("/search", Reply(json=answer))
        found = tamis(EXTRAS_MODULES, "search", "--no-extract", "an answer",
                      SEARXNG_URL=server.url, **env)
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout)["status"] == "ok"
    assert tamis(EXTRAS_MODULES, "--help").returncode == 0
    assert tamis(EXTRAS_MODULES, "demo").returncode == 0


def test_the_mcp_server_needs_no_extra() -> None:
    code = RUNNER.split("sys.argv")[0].format(missing=EXTRAS_MODULES) + (
        "from tamis.interfaces.http_auth import TokenGuard\n"
        "from tamis.interfaces.mcp_server import build_server\n"
        "server = build_server()\n"
        "TokenGuard(server.streamable_http_app(host='127.0.0.1'), 'a-token-of-16-chars')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
