"""Tables for a person at a terminal (``tamis demo``, ``check``, ``compare``), drawn by tabulate.

Colour goes in through ``click.style``; ``click.echo`` drops it when the output is not a
terminal, so a piped or captured table is plain text. (Not rich: with rich installed,
``import httpx`` imports httpx's own command-line tool and rich with it, on every search.)
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from tamis.text import cut

if TYPE_CHECKING:
    from tamis.models import SearchResponse
    from tamis.pipeline.compare import Comparison

PIPED_WIDTH = 120  # piped or captured: wide enough for every table here
MIN_WRAP = 30  # a wrapped column keeps a few words a line, however narrow the screen

# What a cell's colour says: dropped, demoted, passed, set aside.
STYLES = {"red": {"fg": "red"}, "yellow": {"fg": "yellow"}, "green": {"fg": "green"},
          "dim": {"dim": True}}


def screen_width() -> int:
    """The terminal's columns (or COLUMNS); ``PIPED_WIDTH`` when there is no terminal."""
    return shutil.get_terminal_size((PIPED_WIDTH, 24)).columns


def styled(text: str, style: str) -> str:
    """``text`` in one of ``STYLES`` ("" leaves it plain)."""
    return click.style(text, **STYLES[style]) if style and text else text


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = (),
          fit: int | None = None, title: str = "") -> str:
    """The rows under their headers, boxed. ``right``: the columns aligned right (numbers);
    ``fit``: the column whose text wraps onto more lines when the table is wider than the
    screen (never narrower than ``MIN_WRAP``)."""
    from tabulate import tabulate  # here: `tamis --help` imports this module, never prints one

    def render(wrap: int | None) -> str:
        return tabulate(rows, headers=list(headers), tablefmt="mixed_outline",
                        colalign=["right" if i in right else "left" for i in range(len(headers))],
                        maxcolwidths=[wrap if i == fit else None for i in range(len(headers))],
                        disable_numparse=True)

    def overflow(text: str) -> int:
        return max(len(click.unstyle(line)) for line in text.splitlines()) - screen_width()

    text, wrap = render(None), None
    if fit is not None:
        wrap = max(len(click.unstyle(row[fit])) for row in [headers, *rows])
        while overflow(text) > 0 and wrap > MIN_WRAP:  # words wrap short of the width asked
            wrap = max(wrap - overflow(text), MIN_WRAP)
            text = render(wrap)
    return f"{title}\n{text}" if title else text


def print_comparison(comparison: Comparison, response: SearchResponse, *, returned: int,
                     config: str) -> None:
    """``tamis compare`` and ``tamis demo`` for a person: the raw order, what tamis did with
    each result, the tamis order; past the top an agent gets (``returned``), dimmed."""
    from tamis.trust.view import what_tamis_did

    by_rank = {r.rank: r for r in response.results}
    # Fixed widths: one line per row, long hosts and reasons cut with an ellipsis.
    room = max(screen_width() - 18, 45)  # 4 columns: 5 borders, 2 spaces of padding each
    raw_width, fate_width = min(30, room * 28 // 100), min(42, room * 36 // 100)
    tamis_width = min(40, room - raw_width - fate_width)
    rows = []
    for i in range(max(len(comparison.raw), len(comparison.tamis))):
        raw = comparison.raw[i] if i < len(comparison.raw) else None
        tam = comparison.tamis[i] if i < len(comparison.tamis) else None
        fate = what_tamis_did(raw, by_rank) if raw else ""
        style = ("red" if fate.startswith("dropped") else "yellow" if fate.startswith("demoted")
                 else "dim" if fate.startswith(("merged", "below")) else "")
        right = ""
        if tam is not None:  # past the cut an agent gets (max_results): dimmed
            right = styled(cut(f"{tam.host} ({tam.source_type})", tamis_width),
                           "dim" if tam.rank > returned else "")
        rows.append([str(i + 1), cut(raw.host, raw_width) if raw else "",
                     styled(cut(fate, fate_width), style), right])
    headers = [cut(header, width) for header, width in (
        ("#", 3), ("raw order (as returned)", raw_width), ("what tamis did", fate_width),
        ("tamis order", tamis_width))]
    click.echo(table(headers, rows, right=[0], title=f"“{comparison.query}”"))
    lines = ", ".join(f"{x.line} {x.status} ({x.results} results, {x.seconds:.2f} s)"
                      for x in response.lines)
    click.echo(f"config: {config}; lines: {lines or 'none'}")
    kept = len(comparison.tamis)
    click.echo(f"{len(comparison.raw)} raw results -> {kept} kept (an agent gets the top"
               f" {min(returned, kept)}: max_results), {comparison.dropped} dropped,"
               f" {comparison.merged} merged duplicates")
    for note in response.notes:
        if note.kind in ("unresponsive_engine", "line_failed", "line_timeout",
                         "no_usable_key", "info"):
            click.echo(f"note: {note.source}: {note.message}")
