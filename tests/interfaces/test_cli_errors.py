"""Every error of the `tamis` command is one `error:` line and exit 2 (usage errors too, not
click's three-line usage); a closed pipe is not an error; one config file may hold every
section, `dupes:` included."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DEMO = Path(__file__).parents[2] / "src" / "tamis" / "demo"


def tamis(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *args],
                          capture_output=True, text=True, timeout=60, cwd=cwd)


@pytest.mark.parametrize(("args", "expected"), [
    (["search"], "error: Missing argument 'QUERY'. (see 'tamis search --help')"),
    (["search", "x", "--max-results", "0"], "error: Invalid value for '--max-results'"),
    (["search", "x", "--bogus"], "error: No such option '--bogus'"),
    (["bogus"], "error: No such command 'bogus'. (see 'tamis --help')"),
    (["search", "x", "--config", "{tmp}"], "is a directory"),
    (["backends", "--config", "{tmp}"], "is a directory"),
    (["check", "--config", "{tmp}"], "is a directory"),
    (["config", "check", "{tmp}"], "is a directory"),
    (["search", "x", "--config", "/etc/passwd/x"], "error: /etc/passwd/x: cannot read"),
    (["search", "x", "--config", "{tmp}/binary.yaml"], "binary.yaml: cannot read"),
    (["check", "--slow", "-1"], "error: Invalid value for '--slow'"),
    (["search", "x", "--config", "/dev/zero"], "error: /dev/zero: not a regular file"),
    (["config", "check", "{tmp}/fifo"], "fifo: not a regular file"),  # would wait for a writer
    (["dupes", "--jsonl", "{tmp}/n.jsonl", "--config", "/dev/zero"], "not a regular file"),
])
def test_every_error_is_one_line(tmp_path: Path, args: list[str], expected: str) -> None:
    (tmp_path / "binary.yaml").write_bytes(b"\xff\xfe\x00bad")
    (tmp_path / "n.jsonl").write_text('{"id": 1, "title": "t", "notes": "body"}\n')
    os.mkfifo(tmp_path / "fifo")
    proc = tamis(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: ") and expected in lines[0], lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize("args", [["check", "--replay", str(DEMO)], ["schema"],
                                  ["compare", "x", "--replay", str(DEMO)], ["--help"]])
def test_a_closed_pipe_is_not_an_error(args: list[str]) -> None:
    """`tamis check ... | head`: the reader goes away before tamis writes."""
    proc = subprocess.Popen([sys.executable, "-m", "tamis.interfaces.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    code = proc.wait(timeout=60)
    assert "error" not in err.lower() and "Traceback" not in err, err
    assert code != 2


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("args", [["--help"], ["search", "--help"], ["schema"],
                                  ["explain-url", "https://x.org/"]])
def test_output_that_cannot_be_written_is_one_error_line(args: list[str]) -> None:
    """A full disk (/dev/full) or a closed stdout (``>&-``): the answer is lost, so exit 2
    with one line saying so; never a traceback, never exit 0."""
    with open("/dev/full", "w") as full:
        disk = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *args],
                              stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    closed = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", *args],
                            stderr=subprocess.PIPE, text=True, timeout=60,
                            preexec_fn=lambda: os.close(1))
    assert (disk.returncode, disk.stderr) == (
        2, "error: the output could not be written: No space left on device\n")
    assert (closed.returncode, closed.stderr) == (
        2, "error: stdout is closed: the output could not be written\n")


def test_a_dupes_section_is_accepted_by_every_command(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("backends:\n  - {name: searxng, type: replay, path: '" + str(DEMO)
                      + "'}\nstore: {url: 'memory:'}\ndupes:\n  min_body_chars: 10\n")
    proc = tamis("search", "proxmox thin pool metadata exhaustion recovery", "--no-extract",
                 "--config", str(config))
    assert proc.returncode == 0, proc.stderr
    assert tamis("config", "check", str(config)).returncode == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("dupes:\n  min_body_chars: 0\n")
    proc = tamis("config", "check", str(bad))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (f"error: {bad}, line 1: key 'dupes': min_body_chars: Input"
                                   " should be greater than or equal to 1")
