"""``tamis compare`` and the web page: raw backend order beside tamis order.

The before/after table of mission.md section 5 as a command: every raw result in the order
the lines returned it (config order, then position), what tamis did with it (its rank and
how far it moved, merged into another, demoted and why, dropped and why), and the tamis
order beside it. The query is ranked in full (every kept result), and the cut an agent sees
(``max_results``) is marked.
"""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from tamis.core import Tamis
from tamis.models import Result, SearchResponse
from tamis.pipeline.compare import Comparison, RawRow, compare

FULL_RANKING = 100


async def compare_query(layer: Tamis, query: str, *, extract: bool = False
                        ) -> tuple[Comparison, SearchResponse]:
    """Rank ``query`` in full with explain on, and compare it with the raw order."""
    response, answers = await layer.search_detailed(query, extract=extract, explain=True,
                                                    max_results=FULL_RANKING)
    return compare(answers, response, layer.config.policy.normalise.tracking_params), response


def view_payload(comparison: Comparison, response: SearchResponse, *, returned: int,
                 config: str) -> dict[str, Any]:
    """The JSON of ``tamis compare --json`` (and the core of ``GET /ui/compare``)."""
    return {
        "query": comparison.query,
        "config": config,
        "returned": returned,
        "comparison": asdict(comparison),
        "response": response.model_dump(mode="json"),
    }


def move_text(moved: int | None) -> str:
    if moved is None:
        return ""
    if moved > 0:
        return f" ↑{moved}"
    if moved < 0:
        return f" ↓{-moved}"
    return " ="


def what_tamis_did(row: RawRow, by_rank: dict[int, Result]) -> str:
    """One raw row's fate in words: 'rank 3 ↑5', 'demoted to rank 12 (demote_domains:x)'."""
    if row.fate.startswith("rank") and row.tamis_rank is not None:
        result = by_rank.get(row.tamis_rank)
        parts = result.explain if result is not None else None
        if result is not None and (result.source_type == "content-farm"
                                   or (parts is not None and parts.tier == "demoted")):
            reason = parts.demote_reason if parts else None
            if reason and reason.startswith("demote_domains:"):
                reason = "demote_domains"  # the host is in the raw column already
            why = f" ({reason})" if reason else ""
            return f"demoted to rank {row.tamis_rank}{why}"
        return f"rank {row.tamis_rank}{move_text(row.moved)}"
    return row.fate


def print_comparison(comparison: Comparison, response: SearchResponse, *, returned: int,
                     config: str) -> None:
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    console = Console()
    if not console.is_terminal and not os.environ.get("COLUMNS"):
        console.width = 120  # piped or captured: wide enough for the table
    by_rank = {r.rank: r for r in response.results}
    lines = ", ".join(f"{x.line} {x.status} ({x.results} results, {x.seconds:.2f} s)"
                      for x in response.lines)
    table = Table(title=f"“{escape(comparison.query)}”", title_justify="left",
                  caption=f"config: {escape(config)}; lines: {escape(lines) or 'none'}",
                  caption_justify="left")
    # Fixed widths: one line per row, long hosts and reasons cut with an ellipsis.
    room = max(console.width - 15, 45)  # 4 columns: 5 borders and 2 spaces of padding each
    raw_width, fate_width = min(30, room * 28 // 100), min(42, room * 36 // 100)
    tamis_width = min(40, room - raw_width - fate_width)
    table.add_column("#", justify="right", width=2, no_wrap=True)
    for header, width in (("raw order (as returned)", raw_width), ("what tamis did", fate_width),
                          ("tamis order", tamis_width)):
        table.add_column(header, width=width, no_wrap=True, overflow="ellipsis")
    for i in range(max(len(comparison.raw), len(comparison.tamis))):
        raw = comparison.raw[i] if i < len(comparison.raw) else None
        tam = comparison.tamis[i] if i < len(comparison.tamis) else None
        fate = what_tamis_did(raw, by_rank) if raw else ""
        style = ("red" if fate.startswith("dropped") else "yellow" if fate.startswith("demoted")
                 else "dim" if fate.startswith(("merged", "below")) else "")
        right = ""
        if tam is not None:
            right = f"{escape(tam.host)} [dim]({tam.source_type})[/dim]"
            if tam.rank > returned:
                right = f"[dim]{escape(tam.host)} ({tam.source_type})[/dim]"
        table.add_row(str(i + 1), escape(raw.host) if raw else "",
                      f"[{style}]{escape(fate)}[/{style}]" if style else escape(fate), right)
    console.print(table)
    kept = len(comparison.tamis)
    console.print(f"{len(comparison.raw)} raw results -> {kept} kept (an agent gets the top"
                  f" {min(returned, kept)}: max_results), {comparison.dropped} dropped,"
                  f" {comparison.merged} merged duplicates", highlight=False)
    for note in response.notes:
        if note.kind in ("unresponsive_engine", "line_failed", "line_timeout",
                         "no_usable_key", "info"):
            console.print(f"note: {escape(note.source)}: {escape(note.message)}",
                          highlight=False)
