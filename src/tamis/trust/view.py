"""``tamis compare`` and the web page: raw backend order beside tamis order.

The before/after table of mission.md section 5 as a command: every raw result in the order
the lines returned it (config order, then position), what tamis did with it (its rank and
how far it moved, merged into another, demoted and why, dropped and why), and the tamis
order beside it. The query is ranked in full (every kept result), and the cut an agent sees
(``max_results``) is marked.
"""

from __future__ import annotations

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
