"""Normalise and merge: raw hits from every line -> one Candidate per page.

Every choice here is independent of the order hits arrived in: the URL shown, the title and
the snippet are picked by a fixed rule over all variants, so shuffled answers merge the same.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tamis.models import Candidate, Dropped, RawHit
from tamis.pipeline.urls import InvalidURL, Unwrapper, clean_url, registrable_domain
from tamis.text import clean_text


@dataclass
class _Acc:
    key: str
    host: str
    path: str
    query: str
    urls: set[str] = field(default_factory=set)
    titles: set[str] = field(default_factory=set)
    snippets: set[str] = field(default_factory=set)
    positions: dict[str, int] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    orders: set[int] = field(default_factory=set)
    weights: dict[str, float] = field(default_factory=dict)
    first_seen: int = 0
    variants: set[str] = field(default_factory=set)
    published: set[str] = field(default_factory=set)


def _longest(values: set[str]) -> str:
    if len(values) == 1:
        return next(iter(values))
    return min(values, key=lambda v: (-len(v), v)) if values else ""


def merge(
    hits: list[tuple[RawHit, int, float]],
    *,
    tracking_params: list[str],
    max_chars: int,
    unwrapper: Unwrapper | None = None,
) -> tuple[list[Candidate], list[Dropped]]:
    """Fold hits that are the same page. ``hits`` are (hit, line order, line weight).

    Returns candidates in raw first-seen order, and the hits whose URL is not a web page
    (or is an engine's paid ad click, ``ad_click``).
    """
    tracking = tuple(p.lower() for p in tracking_params)
    accs: dict[str, _Acc] = {}
    invalid: list[Dropped] = []
    for index, (hit, order, weight) in enumerate(hits, start=1):
        try:
            clean = clean_url(hit.url, tracking, unwrapper)
        except InvalidURL as exc:
            invalid.append(Dropped(url=hit.url[:300], reason=f"invalid_url:{exc}",
                                   position=index, title=clean_text(hit.title, 200),
                                   engines=sorted(set(hit.engines))))
            continue
        if clean.ad:
            invalid.append(Dropped(url=clean.url[:300], reason="ad_click", position=index,
                                   title=clean_text(hit.title, 200),
                                   engines=sorted(set(hit.engines))))
            continue
        acc = accs.get(clean.key)
        if acc is None:
            acc = accs[clean.key] = _Acc(key=clean.key, host=clean.host, path=clean.path,
                                            query=clean.query, first_seen=index)
        acc.urls.add(clean.url)
        acc.variants.add(hit.url[:2000])
        title = clean_text(hit.title, 300)
        if title:
            acc.titles.add(title)
        snippet = clean_text(hit.snippet, max_chars)
        if snippet:
            acc.snippets.add(snippet)
        for label, pos in zip(hit.engines, hit.positions, strict=True):
            acc.positions[label] = min(pos, acc.positions.get(label, pos))
        best_line = min(hit.positions) if hit.positions else index
        acc.lines[hit.line] = min(best_line, acc.lines.get(hit.line, best_line))
        acc.orders.add(order)
        acc.weights[hit.line] = weight
        if hit.published:
            acc.published.add(hit.published)
    candidates = []
    for acc in sorted(accs.values(), key=lambda a: a.first_seen):
        url = (next(iter(acc.urls)) if len(acc.urls) == 1 else
               min(acc.urls, key=lambda u: (not u.startswith("https:"), len(u), u)))
        candidates.append(Candidate(
            key=acc.key,
            url=url,
            title=_longest(acc.titles) or acc.host,
            snippet=_longest(acc.snippets),
            host=acc.host,
            domain=registrable_domain(acc.host),
            path=acc.path,
            query=acc.query,
            engines=sorted(acc.positions),
            positions={k: acc.positions[k] for k in sorted(acc.positions)},
            lines={k: acc.lines[k] for k in sorted(acc.lines)},
            line_orders=sorted(acc.orders),
            weights={k: acc.weights[k] for k in sorted(acc.weights)},
            first_seen=acc.first_seen,
            variants=sorted(acc.variants),
            published=min(acc.published) if acc.published else None,
        ))
    return candidates, invalid
