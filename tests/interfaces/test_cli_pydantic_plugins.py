"""`tamis search` does not look for pydantic plugins (reading every installed package's
metadata), unless PYDANTIC_DISABLE_PLUGINS says otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from loopback import LoopbackServer, Reply

RUNNER = """
import atexit, sys
def report():
    from pydantic.plugin import _loader
    sys.stderr.write("PLUGINS " + ("looked" if _loader._plugins is not None else "not") + "\\n")
atexit.register(report)
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli
cli()
"""


@pytest.mark.parametrize(("setting", "looked"), [(None, "not"), ("", "looked")])
def test_a_search_loads_no_pydantic_plugin(tmp_path: Path, setting: str | None,
                                           looked: str) -> None:
    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": [
            {"url": "https://example.org/a", "title": "An answer", "engine": "bing"}]}))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("TAMIS_", "SEARXNG_", "PYDANTIC_"))}
        env.update(SEARXNG_URL=server.url, XDG_CACHE_HOME=str(tmp_path / "cache"),
                   XDG_CONFIG_HOME=str(tmp_path / "config"))
        if setting is not None:
            env["PYDANTIC_DISABLE_PLUGINS"] = setting
        done = subprocess.run([sys.executable, "-c", RUNNER, "search",
                               "--no-extract", "an answer"], env=env, capture_output=True,
                              text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "ok"
    assert f"PLUGINS {looked}" in done.stderr.splitlines()
