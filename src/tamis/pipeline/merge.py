"""Normalise and merge: raw hits from every line -> one Candidate per page.

Every choice here is independent of the order hits arrived in: the URL shown, the title and
the snippet are picked by a fixed rule over all variants, so shuffled answers merge the same.
"""

from __future__ import annotations

from tamis.models import Candidate, Dropped, RawHit
from tamis.pipeline.url_batch import Cleaned, clean_urls
from tamis.pipeline.urls import Unwrapper, registrable_domain
from tamis.text import NOT_PLAIN, clean_text

_new = object.__new__
_Seen = tuple[RawHit, Cleaned, int, int, float]  # hit, its URL, index, line order, weight


class _Acc:
    """Every variant of one page seen so far (one per dedupe key)."""

    __slots__ = ("first_seen", "host", "key", "lines", "orders", "path", "positions",
                 "published", "query", "snippets", "titles", "urls", "variants", "weights")

    def __init__(self, clean: Cleaned, first_seen: int) -> None:
        self.key, self.host, self.path, self.query = clean[1], clean[2], clean[3], clean[4]
        self.first_seen = first_seen
        self.urls: set[str] = set()
        self.titles: set[str] = set()
        self.snippets: set[str] = set()
        self.positions: dict[str, int] = {}
        self.lines: dict[str, int] = {}
        self.orders: set[int] = set()
        self.weights: dict[str, float] = {}
        self.variants: set[str] = set()
        self.published: set[str] = set()

    def add(self, hit: RawHit, clean: Cleaned, index: int, order: int, weight: float,
            max_chars: int) -> None:
        self.urls.add(clean[0])
        self.variants.add(hit.url[:2000])
        title = clean_text(hit.title, 300)
        if title:
            self.titles.add(title)
        snippet = clean_text(hit.snippet, max_chars)
        if snippet:
            self.snippets.add(snippet)
        positions = self.positions
        for label, pos in _pairs(hit.engines, hit.positions):
            positions[label] = min(pos, positions.get(label, pos))
        best_line = min(hit.positions) if hit.positions else index
        self.lines[hit.line] = min(best_line, self.lines.get(hit.line, best_line))
        self.orders.add(order)
        self.weights[hit.line] = weight
        if hit.published:
            self.published.add(hit.published)

    def candidate(self) -> Candidate:
        """The page: every choice a fixed rule over all its variants (never arrival)."""
        urls = self.urls
        url = (next(iter(urls)) if len(urls) == 1 else
               min(urls, key=lambda u: (not u.startswith("https:"), len(u), u)))
        return Candidate(
            key=self.key,
            url=url,
            title=_longest(self.titles) or self.host,
            snippet=_longest(self.snippets),
            host=self.host,
            domain=registrable_domain(self.host),
            path=self.path,
            query=self.query,
            engines=sorted(self.positions),
            positions=dict(sorted(self.positions.items())),
            lines=dict(sorted(self.lines.items())),
            line_orders=sorted(self.orders),
            weights=dict(sorted(self.weights.items())),
            first_seen=self.first_seen,
            variants=sorted(self.variants),
            published=min(self.published) if self.published else None,
        )


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
    # every hit of each page, by dedupe key: its index, or the list of them (a page seen
    # more than once); hits[index - 1] and cleaned[index - 1] are the hit and its URL
    pages: dict[str, int | list[int]] = {}
    cleaned: list = clean_urls([entry[0].url for entry in hits], tracking, unwrapper)
    invalid: list[Dropped] = []
    for index, clean in enumerate(cleaned, start=1):
        if type(clean) is not tuple:  # InvalidURL
            hit = hits[index - 1][0]
            invalid.append(Dropped(url=hit.url[:300], reason=f"invalid_url:{clean}",
                                   position=index, title=clean_text(hit.title, 200),
                                   engines=sorted(set(hit.engines))))
            continue
        if clean[5]:
            hit = hits[index - 1][0]
            invalid.append(Dropped(url=clean[0][:300], reason="ad_click", position=index,
                                   title=clean_text(hit.title, 200),
                                   engines=sorted(set(hit.engines))))
            continue
        key = clean[1]
        seen = pages.get(key)
        if seen is None:  # a page seen once is its one index, not a list of it
            pages[key] = index
        elif type(seen) is int:
            pages[key] = [seen, index]
        else:
            seen.append(index)
    return _candidates(hits, cleaned, pages, max_chars), invalid


def _fold(seen: list[_Seen], max_chars: int) -> Candidate:
    acc = _Acc(seen[0][1], seen[0][2])
    for hit, clean, index, order, weight in seen:
        acc.add(hit, clean, index, order, weight, max_chars)
    return acc.candidate()


def _candidates(hits: list[tuple[RawHit, int, float]], cleaned: list,
                pages: dict[str, int | list[int]], max_chars: int) -> list[Candidate]:
    """One candidate per page (``pages``: each page's hit index, or the list of them), in
    first-seen order (a key's first hit creates it). A page seen once (most pages) is built
    here, what ``_fold`` gives without the sets (``_single``; test_merge_fast compares)."""
    candidates = []
    domains: dict[str, str] = {}
    titles: dict[str, str] = {}  # raw title: clean_text of it
    snippets: dict[str, str] = {}
    for index in pages.values():
        if type(index) is not int:
            candidates.append(_fold([(hits[i - 1][0], cleaned[i - 1], i, hits[i - 1][1],
                                      hits[i - 1][2]) for i in index], max_chars))
            continue
        hit, order, weight = hits[index - 1]
        clean = cleaned[index - 1]
        engines, found = hit.engines, hit.positions
        n = len(engines)
        if n == 1 and len(found) == 1:  # one engine (most hits): nothing to sort
            positions = {engines[0]: found[0]}
            best = found[0]
        elif n == 2 and len(found) == 2:  # two: one comparison sorts them
            first, second = engines
            at_first, at_second = found
            best = at_first if at_first <= at_second else at_second
            positions = ({first: at_first, second: at_second} if first < second else
                         {second: at_second, first: at_first} if second < first else
                         {first: best})
        else:
            positions = dict(sorted(_pairs(engines, found)))  # labels differ: sorted by label
            if len(positions) < len(engines):  # a label twice: its best position
                positions = {}
                for label, pos in _pairs(engines, found):
                    positions[label] = min(pos, positions.get(label, pos))
                positions = dict(sorted(positions.items()))
            best = min(found) if found else index
        url, key, host, path, query, _ = clean
        # clean_text of title and snippet, once per distinct text (pages of one site, an
        # engine's repeated snippet); skipped where it provably returns the text as it is
        # (ASCII, no tag, entity or control, single spaces only, within its cap): most texts
        title = titles.get(raw := hit.title)
        if title is None:
            title = titles[raw] = raw if (
                raw and raw.isascii() and len(raw) <= 300 and "  " not in raw
                and 1 not in raw.encode("ascii").translate(NOT_PLAIN)
                and raw[0] != " " != raw[-1]) else clean_text(raw, 300)
        snippet = snippets.get(raw := hit.snippet)
        if snippet is None:
            snippet = snippets[raw] = raw if (
                raw and raw.isascii() and len(raw) <= max_chars and "  " not in raw
                and 1 not in raw.encode("ascii").translate(NOT_PLAIN)
                and raw[0] != " " != raw[-1]) else clean_text(raw, max_chars)
        # Candidate(...) with its fields set one by one on a bare instance: the dataclass's
        # __init__ call costs more than the sixteen stores (test_merge_fast: the same one)
        c = _new(Candidate)
        c.key = key
        c.url = url
        c.title = title or host
        c.snippet = snippet
        c.host = host
        domain = domains.get(host)  # registrable_domain(host), asked once a host
        if domain is None:
            domain = domains[host] = registrable_domain(host)
        c.domain = domain
        c.path = path
        c.query = query
        c.engines = list(positions)  # (sorted)
        c.positions = positions
        c.lines = {hit.line: best}
        c.line_orders = [order]
        c.weights = {hit.line: weight}
        c.first_seen = index
        c.variants = [hit.url[:2000]]
        c.published = hit.published or None
        candidates.append(c)
    return candidates


def _single(hit: RawHit, clean: Cleaned, index: int, order: int, weight: float,
            max_chars: int) -> Candidate:
    """``_fold`` of a page seen once (most pages), without the sets: what ``_candidates``
    makes of it."""
    return _candidates([(hit, order, weight)] * index, [clean] * index, {clean[1]: index},
                       max_chars)[0]


def _pairs(engines: list[str], found: list[int]) -> zip[tuple[str, int]]:
    """(engine label, position) pairs of a hit's engines and positions; ``zip(strict=True)``'s
    error, at a third of its cost."""
    if len(engines) != len(found):
        longer = "longer" if len(found) > len(engines) else "shorter"
        raise ValueError(f"zip() argument 2 is {longer} than argument 1")
    return zip(engines, found)  # noqa: B905 (lengths checked: a keyword costs)
