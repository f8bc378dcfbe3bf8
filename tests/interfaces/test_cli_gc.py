"""The console script's `tamis search` loads its modules with the garbage collector off (the
collections find nothing there), then searches with it on and start-up's objects frozen; a
search run inside another program (the click command, in-process) leaves its collector as
it was."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from loopback import LoopbackServer, Reply

from tamis.interfaces.cli import cli

FIXTURE = (Path(__file__).parents[1] / "fixtures" / "searxng"
           / "proxmox-thin-pool-metadata-exhaustion-recovery.json")
QUERY = "proxmox thin pool metadata exhaustion recovery"
RUNNER = """
import atexit, gc, json, sys
def report():
    sys.stderr.write("GC " + json.dumps({
        "collections": sum(s["collections"] for s in gc.get_stats()),
        "frozen": gc.get_freeze_count(), "enabled": gc.isenabled()}) + "\\n")
atexit.register(report)
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.entry import main
main()
"""


def test_the_console_script_loads_without_collecting(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.route("/search", Reply(json=json.loads(FIXTURE.read_text())))
        env = {k: v for k, v in os.environ.items() if not k.startswith("TAMIS_")}
        env.update(SEARXNG_URL=server.url, XDG_CACHE_HOME=str(tmp_path / "cache"),
                   XDG_CONFIG_HOME=str(tmp_path / "config"))
        done = subprocess.run([sys.executable, "-c", RUNNER, "search", "--no-extract", QUERY],
                              capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "ok"
    report = json.loads(next(line for line in done.stderr.splitlines()
                             if line.startswith("GC "))[3:])
    assert report["enabled"] and report["frozen"] > 10_000, report
    # About 95 with the collector on throughout; ~40 with it off while the modules load (the
    # rest: the search itself, and the network backend httpx imports at its first request).
    assert report["collections"] < 55, report


def test_a_search_in_another_program_leaves_its_collector_alone(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    with LoopbackServer() as server:
        server.route("/search", Reply(json=json.loads(FIXTURE.read_text())))
        config.write_text(f"backends:\n  - name: searxng\n    base_url: {server.url}\n"
                          "store: {url: 'memory:'}\n")
        frozen = gc.get_freeze_count()
        result = CliRunner().invoke(cli, ["search", QUERY, "--config", str(config),
                                          "--no-extract"])
    assert result.exit_code == 0, result.output
    # nothing frozen here (a frozen object freed since makes the count smaller, never larger)
    assert gc.isenabled() and gc.get_freeze_count() <= frozen
