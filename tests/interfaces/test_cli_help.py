"""Every ``tamis`` command answers ``--help`` (the lazy group imports each one by name:
a command whose module cannot be imported shows up here), and ``tamis --help`` imports
none of the heavy packages the commands use inside their bodies."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tamis.interfaces.cli import cli

HEAVY = ("fastapi", "uvicorn", "mcp", "trafilatura", "httpx", "starlette", "numpy", "redis",
         "lxml", "tabulate", "tamis.core")
REPORT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write(
    "LOADED " + " ".join(m for m in {heavy!r} if m in sys.modules) + "\\n"))
sys.argv = ["tamis", *sys.argv[1:]]
from tamis.interfaces.cli import cli
cli()
"""


def command_paths(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path under ``group``, through ``list_commands`` and ``get_command``
    (lazy commands are not in ``group.commands``)."""
    ctx = click.Context(group)
    paths = []
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None, name
        paths.append((*path, name))
        if isinstance(command, click.Group):
            paths.extend(command_paths(command, (*path, name)))
    return paths


PATHS = command_paths(cli)


def test_the_commands_are_the_ones_users_know() -> None:
    assert {p[0] for p in PATHS} == {
        "backends", "check", "compare", "config", "demo", "dupes", "explain-url", "lists",
        "mcp", "read", "schema", "search", "serve"}


@pytest.mark.parametrize("path", PATHS, ids=" ".join)
def test_every_command_answers_help(path: tuple[str, ...]) -> None:
    result = CliRunner().invoke(cli, [*path, "--help"], prog_name="tamis")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"Usage: tamis {' '.join(path)} ")
    assert result.stderr == ""


def test_the_top_level_help_lists_every_command() -> None:
    result = CliRunner().invoke(cli, ["--help"], prog_name="tamis")
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:\n", 1)[1]
    assert [line.split()[0] for line in listed.splitlines() if line[2:3].strip()] == sorted(
        {p[0] for p in PATHS})


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--version"], ["search", "--help"],
                                  ["serve", "--help"], ["mcp", "--help"], ["read", "--help"]],
                         ids=" ".join)
def test_help_imports_no_heavy_package(args: list[str]) -> None:
    proc = subprocess.run([sys.executable, "-c", REPORT.format(heavy=HEAVY), *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: tamis" if args != ["--version"] else "tamis, version")
    loaded = [line for line in proc.stderr.splitlines() if line.startswith("LOADED")]
    assert loaded == ["LOADED "], loaded


@pytest.mark.parametrize("path", [[], ["config"], ["lists"]], ids=" ".join)
def test_a_group_given_no_command_shows_its_help(path: list[str]) -> None:
    """`tamis` alone, or `tamis config`: the help as --help lays it out (on stderr, exit 2:
    no command ran), not squeezed into one error line."""
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *path],
                          capture_output=True, text=True, timeout=60)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr.startswith(f"Usage: tamis {' '.join(path)}".rstrip() + " [OPTIONS]")
    assert "\nCommands:\n" in proc.stderr


def test_the_readme_shows_the_real_help() -> None:
    readme = Path(__file__).parents[2] / "README.md"
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "--help"],
                          capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COLUMNS": "80"})
    assert f"$ tamis --help\n{proc.stdout}```" in readme.read_text(encoding="utf-8"), (
        "README.md: paste the output of COLUMNS=80 tamis --help")
