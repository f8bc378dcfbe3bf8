"""The ``tamis`` console script: answers ``tamis --help``, ``-h`` and ``--version`` without
importing click (about two thirds of their CPU), everything else through the click CLI; and
``tamis search`` with plain arguments without click too (``cli_quick``).

The top-level help is click's own rendering, saved in ``cli_help.txt`` beside this file
(``python -m tamis.interfaces.entry --write-help`` writes it again; a test checks that it is
what click prints). It is used only where click would print it the same: a terminal at least
80 columns wide, or no terminal. Standard library only.
"""

from __future__ import annotations

import os
import sys

HELP_FILE = os.path.join(os.path.dirname(__file__), "cli_help.txt")  # no pathlib: it costs
WIDE_ENOUGH = 80  # click wraps help at min(columns, 80) - 2


def _columns() -> int:
    """The terminal width as click's formatter (``shutil.get_terminal_size``) finds it."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
        if columns <= 0:
            columns = 80
    return columns


def quick_answer(args: list[str]) -> str | None:
    """What click would print for these arguments, when it is known without click."""
    from tamis.version import __version__

    if args == ["--version"]:
        return f"tamis, version {__version__}\n"
    if args in (["--help"], ["-h"]) and _columns() >= WIDE_ENOUGH:
        try:
            with open(HELP_FILE, encoding="utf-8") as file:
                return file.read()
        except OSError:
            return None
    return None


def main() -> None:
    answer = quick_answer(sys.argv[1:])
    if answer is not None:
        sys.stdout.write(answer)
        sys.stdout.flush()
        return
    if sys.argv[1:2] == ["search"]:
        from tamis.interfaces.cli_quick import main as quick_search

        quick_search(sys.argv[2:])  # exits, unless the arguments need click to read them
    from tamis.interfaces.cli import main as cli_main

    cli_main()


def click_help() -> str:
    """The top-level help as the click CLI prints it, 80 columns wide (a real process:
    click's test runner forces its own width)."""
    import subprocess

    env = {**os.environ, "COLUMNS": str(WIDE_ENOUGH)}
    return subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "--help"], env=env,
                          capture_output=True, text=True, check=True).stdout


if __name__ == "__main__":  # pragma: no cover
    if sys.argv[1:] == ["--write-help"]:
        with open(HELP_FILE, "w", encoding="utf-8") as file:
            file.write(click_help())
        print(f"wrote {HELP_FILE}")
    else:
        main()
