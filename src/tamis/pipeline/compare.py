"""Compare: raw backend order beside tamis order, with the fate of every raw result.

A pure function of the lines' raw answers and the response computed from them (with
``explain`` on, so that drops carry their reasons). Used by ``tamis demo`` and
``tamis compare``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tamis.models import LineAnswer, SearchResponse
from tamis.pipeline.urls import InvalidURL, clean_url


@dataclass(slots=True, kw_only=True)
class RawRow:
    position: int
    url: str
    host: str
    engines: list[str]
    fate: str  # "rank 3", "dropped: <reason>", "merged into rank 1", "demoted to rank 14"
    tamis_rank: int | None = None
    moved: int | None = None  # raw position - tamis rank (positive: moved up)


@dataclass(slots=True, kw_only=True)
class TamisRow:
    rank: int
    url: str
    host: str
    source_type: str
    raw_position: int
    score: float


@dataclass(slots=True, kw_only=True)
class Comparison:
    query: str
    raw: list[RawRow]
    tamis: list[TamisRow]
    dropped: int
    merged: int


def compare(answers: list[LineAnswer], response: SearchResponse,
            tracking: list[str]) -> Comparison:
    track = tuple(t.lower() for t in tracking)

    def key(url: str) -> str | None:
        try:
            return clean_url(url, track).key
        except InvalidURL:
            return None

    ranks = {key(r.url): r for r in response.results}
    drops = {key(d.url): d for d in response.dropped or []}
    drops_by_pos = {d.position: d for d in response.dropped or []}
    seen: dict[str | None, int] = {}
    raw: list[RawRow] = []
    first_position: dict[str, int] = {}
    index = 0
    for answer in answers:
        for hit in answer.hits:
            index += 1
            k = key(hit.url)
            host = (hit.url.split("//", 1)[-1].split("/", 1)[0]).lower()
            result = ranks.get(k)
            tamis_rank = None
            if k is not None and k in seen:
                target = ranks.get(k)
                fate = (f"merged into rank {target.rank}" if target
                        else f"merged with raw #{seen[k]}")
                tamis_rank = target.rank if target else None
            elif result is not None:
                tamis_rank = result.rank
                kind = " (demoted)" if result.source_type == "content-farm" else ""
                fate = f"rank {result.rank}{kind}"
            elif k in drops:
                fate = f"dropped: {drops[k].reason}"
            elif k is None and index in drops_by_pos:
                fate = f"dropped: {drops_by_pos[index].reason}"
            else:
                fate = "below the cut (max_results)"
            if k is not None:
                seen.setdefault(k, index)
                first_position.setdefault(k, index)
            raw.append(RawRow(position=index, url=hit.url, host=host, engines=hit.engines,
                              fate=fate, tamis_rank=tamis_rank,
                              moved=(index - tamis_rank) if tamis_rank and k in ranks
                              and seen[k] == index else None))
    tamis = [TamisRow(rank=r.rank, url=r.url, host=r.host, source_type=r.source_type,
                      raw_position=first_position.get(key(r.url) or "", 0), score=r.score)
             for r in response.results]
    merged = sum(1 for row in raw if row.fate.startswith("merged"))
    return Comparison(query=response.query, raw=raw, tamis=tamis,
                      dropped=len(response.dropped or []), merged=merged)
