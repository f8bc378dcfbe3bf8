"""A corpus of configs that cannot work (tests/policy/bad_configs/): each is refused at load,
by `tamis config check`, `tamis search`, `tamis backends` and `tamis serve` alike, with ONE
`error:` line naming the file, the line and the key, and exit 2. Each file's first line says
what its error must contain."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback import free_port

from tamis.interfaces.cli import cli

CORPUS = sorted((Path(__file__).parent / "bad_configs").glob("*.yaml"))


def expected(path: Path) -> str:
    first = path.read_text().splitlines()[0]
    assert first.startswith("# expect: ")
    return first.removeprefix("# expect: ")


@pytest.mark.parametrize("path", CORPUS, ids=[p.stem for p in CORPUS])
def test_every_bad_config_is_one_error_line(path: Path) -> None:
    for args in (["config", "check", str(path)], ["search", "x", "--config", str(path)],
                 ["backends", "--config", str(path)]):
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stdout == ""
        lines = result.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"error: {path}"), result.stderr
        assert expected(path) in lines[0], lines[0]
        assert "Traceback" not in result.stderr


@pytest.mark.parametrize("name", ["type_unknown", "url_ftp", "url_no_scheme",
                                  "url_missing_searxng", "min_backends_too_many"])
def test_serve_refuses_to_start_on_a_bad_config(name: str) -> None:
    path = next(p for p in CORPUS if p.stem == name)
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "serve", "--config",
                           str(path), "--port", str(free_port())],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.count("\n") == 1 and expected(path) in proc.stderr
