"""Normalise and merge: raw hits from every line -> one Candidate per page.

Every choice here is independent of the order hits arrived in: the URL shown, the title and
the snippet are picked by a fixed rule over all variants, so shuffled answers merge the same.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from tamis.models import Candidate, Dropped, RawHit
from tamis.pipeline.urls import CleanURL, InvalidURL, Unwrapper, clean_url, registrable_domain
from tamis.text import clean_text


def _candidate(group: list[tuple[int, CleanURL]], hits: list[tuple[RawHit, int, float]],
               title_of: Callable[[str], str], snippet_of: Callable[[str], str]) -> Candidate:
    """One page from every hit of it (``group``: each hit's 1-based index and clean URL):
    every choice a fixed rule over all its variants, never their arrival order."""
    first_seen, clean = group[0]
    if len(group) == 1:  # most pages: one line returned it once, there is nothing to choose
        hit, order, weight = hits[first_seen - 1]
        url, variants, line_orders = clean.url, [hit.url[:2000]], [order]
        title, snippet = title_of(hit.title), snippet_of(hit.snippet)
        published = hit.published or None
        positions = dict(sorted(zip(hit.engines, hit.positions, strict=True)))  # each engine once
        lines = {hit.line: min(hit.positions) if hit.positions else first_seen}
        weights = {hit.line: weight}
    else:
        seen = [hits[index - 1] for index, _ in group]  # (hit, line order, line weight)
        url = min({c.url for _, c in group}, key=_url_preference)
        variants = sorted({hit.url[:2000] for hit, _, _ in seen})
        line_orders = sorted({order for _, order, _ in seen})
        title = _longest({title_of(hit.title) for hit, _, _ in seen})
        snippet = _longest({snippet_of(hit.snippet) for hit, _, _ in seen})
        published = min((hit.published for hit, _, _ in seen if hit.published), default=None)
        positions = _best_positions([hit for hit, _, _ in seen])
        best_by_line: dict[str, int] = {}
        for (index, _), (hit, _, _) in zip(group, seen, strict=True):
            best = min(hit.positions) if hit.positions else index
            best_by_line[hit.line] = min(best, best_by_line.get(hit.line, best))
        lines = dict(sorted(best_by_line.items()))
        weights = dict(sorted({hit.line: weight for hit, _, weight in seen}.items()))
    return Candidate(
        key=clean.key,
        url=url,
        title=title or clean.host,
        snippet=snippet,
        host=clean.host,
        domain=registrable_domain(clean.host),
        path=clean.path,
        query=clean.query,
        engines=list(positions),
        positions=positions,
        lines=lines,
        line_orders=line_orders,
        weights=weights,
        first_seen=first_seen,
        variants=variants,
        published=published,
    )


def _best_positions(hits: list[RawHit]) -> dict[str, int]:
    """The best (lowest) position of each provenance label, in label order."""
    best: dict[str, int] = {}
    for hit in hits:
        for label, position in zip(hit.engines, hit.positions, strict=False):  # RawHit: parallel
            if label not in best or position < best[label]:
                best[label] = position
    return best if len(best) < 2 else dict(sorted(best.items()))


def _url_preference(url: str) -> tuple[bool, int, str]:
    """Of a page's URLs, the one shown: https first, then the shortest, then the first in
    code-point order."""
    return not url.startswith("https:"), len(url), url


def _longest(values: set[str]) -> str:
    """The longest text, ties to the first in code-point order ("" when all are empty)."""
    return min(values, key=lambda v: (-len(v), v))


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

    # One answer often repeats a URL, a title, a snippet (several engines and lines, the
    # pages of one site): each distinct one is cleaned once.
    @cache
    def cleaned(url: str) -> CleanURL | InvalidURL:
        try:
            return clean_url(url, tracking, unwrapper)
        except InvalidURL as exc:
            return exc

    @cache
    def title_of(title: str) -> str:
        return clean_text(title, 300)

    @cache
    def snippet_of(snippet: str) -> str:
        return clean_text(snippet, max_chars)

    # each page's first hit (1-based index), by dedupe key, in first-seen order; and the
    # later hits of the pages seen more than once (each page's group is made as it is read)
    pages: dict[str, int] = {}
    again: dict[str, list[tuple[int, CleanURL]]] = {}
    invalid: list[Dropped] = []
    for index, (hit, _, _) in enumerate(hits, start=1):
        clean = cleaned(hit.url)
        if isinstance(clean, InvalidURL) or clean.ad:
            url, reason = ((hit.url, f"invalid_url:{clean}") if isinstance(clean, InvalidURL)
                           else (clean.url, "ad_click"))
            invalid.append(Dropped(url=url[:300], reason=reason, position=index,
                                   title=clean_text(hit.title, 200),
                                   engines=sorted(set(hit.engines))))
            continue
        if clean.key in pages:
            again.setdefault(clean.key, []).append((index, clean))
        else:
            pages[clean.key] = index
    return [_candidate([(first, cleaned(hits[first - 1][0].url)), *again.get(key, ())], hits,
                       title_of, snippet_of) for key, first in pages.items()], invalid
