"""Rank: a deterministic, explainable score built from evidence, in this order.

score = engine + agreement + named + prefer + relevance + off_topic + demote, where

1. engine: what the engines said. Every (engine, position) pair adds
   ``engine_weight * line weight * decay(position)``; decay is ``1 / log2(position + 1)``
   (the discount of nDCG: 1, 0.63, 0.5, 0.43 ... 0.29 at 10), so an engine's first results
   stay on top unless other evidence is strong. agreement: ``multi_engine_bonus`` per engine
   beyond the first (results several engines found independently are more likely real).
2. named: ``named_bonus`` for the front page of a site the query names (``logitech`` ->
   logitech.com/): the result the query asks for is never buried (see intent.name_match).
3. prefer: ``prefer_bonus`` for a preferred host: bounded, it re-orders comparable results
   (about two places near the top) and never outweighs the engines' own top answers.
4. relevance: BM25 of title + snippet + URL words, scaled so the best gets
   ``relevance_weight``: a tie-breaker. off_topic: ``-off_topic_penalty`` when a result
   shares no word with the query while others do.

Demoted results form a lower tier: they sort below every other result whatever the weights
(our users' rule). Ties break on (best line order in config, best position, URL key): never
on arrival order.
"""

from __future__ import annotations

import math
import re
from itertools import repeat
from operator import itemgetter, truediv

from tamis.models import Candidate, ScoreParts
from tamis.pipeline.filter import Judged
from tamis.pipeline.relevance import _bm25_counted, _Terms, tokens
from tamis.policy.schema import Ranking


def decay(position: int) -> float:
    """The weight of an engine's position: 1 at 1, 0.63 at 2, 0.5 at 3, 0.29 at 10."""
    return 1.0 / math.log2(max(position, 1) + 1)


_TOTAL = itemgetter(1)  # of an order key (rank's keys)
# decay(0..100), looked up per (engine, pos): decay(0) and decay(1) are 1 / log2(2), the rest
# 1 / log2(p + 1) as decay computes it, in C loops (101 calls of decay: 0.25M instructions
# at import, in every CLI process; test_rank_counts compares the two)
_DECAYS = (1.0, *map(truediv, repeat(1.0), map(math.log2, range(2, 102))))
_DECAY_OF = dict(enumerate(_DECAYS))  # the same, by position: no range test (a miss: KeyError)
# 1.5 * 2**52: for |y| < 2**51, (y + it) - it is y rounded to an integer (round half even)
_TO_INTEGER = 6755399441055744.0


def engine_evidence(candidate: Candidate) -> float:
    """The sum over its labels, in label order (two terms add the same either way round)."""
    total = 0.0
    positions, weights = candidate.positions, candidate.weights
    for label in positions if len(positions) <= 2 else sorted(positions):
        position = positions[label]
        total += weights.get(label.partition(":")[0], 1.0) * (
            _DECAYS[position] if 0 <= position <= 100 else decay(position))
    return total


class Parts:
    """Score parts while ranking (cheap); ``model()`` gives the ScoreParts users see. (Plain
    classes here: a dataclass costs 0.5-1 ms to create at import, in every CLI process.)"""

    FIELDS = ("fusion", "relevance", "prefer", "multi_engine", "named", "off_topic", "demote",
              "total", "tier", "same_site", "demote_reason", "kept_by")
    __slots__ = ("demote", "demote_reason", "fusion", "kept_by", "multi_engine", "named",
                 "off_topic", "prefer", "relevance", "same_site", "tier", "total")

    def __init__(self, fusion: float, relevance: float, prefer: float, multi_engine: float,
                 named: float, off_topic: float, demote: float, total: float, tier: str,
                 same_site: float, demote_reason: str | None, kept_by: str | None) -> None:
        self.fusion = fusion  # the engines' evidence (position decay, line weights)
        self.relevance = relevance
        self.prefer = prefer
        self.multi_engine = multi_engine
        self.named = named
        self.off_topic = off_topic
        self.demote = demote
        self.total = total
        self.tier = tier
        self.same_site = same_site
        self.demote_reason = demote_reason
        self.kept_by = kept_by

    def __repr__(self) -> str:
        return "Parts(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.FIELDS) + ")"

    def model(self) -> ScoreParts:
        return ScoreParts(fusion=self.fusion, relevance=self.relevance, prefer=self.prefer,
                          multi_engine=self.multi_engine, named=self.named,
                          off_topic=self.off_topic, same_site=self.same_site,
                          demote=self.demote,
                          total=self.total, tier=self.tier,  # type: ignore[arg-type]
                          demote_reason=self.demote_reason, kept_by=self.kept_by)


class Ranked:
    """A ranked result: its judged candidate, its score parts and the tie-break. The parts
    are kept as a tuple (``values``, in ``Parts.FIELDS`` order) and made a ``Parts`` when
    first read: an answer reads the parts of the results it returns, not of all it ranked."""

    __slots__ = ("_parts", "judged", "tie", "values")

    def __init__(self, judged: Judged, values: tuple, tie: tuple[int, int, str] = (0, 0, "")
                 ) -> None:
        self.judged = judged
        self.values = values
        self.tie = tie  # best line order, best position, URL key
        self._parts: Parts | None = None

    def __repr__(self) -> str:
        return f"Ranked({self.judged!r}, {self.parts!r}, {self.tie!r})"

    @property
    def parts(self) -> Parts:
        parts = self._parts
        if parts is None:
            parts = self._parts = Parts(*self.values)
        return parts

    @property
    def candidate(self) -> Candidate:
        return self.judged.candidate


def _r(x: float) -> float:
    return round(x, 4)


_INDEX = re.compile(r"^(index|default|home|main)\.[a-z]{2,5}$")


def front_page(c: Candidate) -> bool:
    """A site's front door: ``/``, ``/en/``, ``/index.html``, ``/en/index.html``."""
    if c.query:
        return False
    segments = [s for s in c.path.split("/") if s]
    if segments and _INDEX.match(segments[-1].lower()):
        segments.pop()
    return len(segments) == 0 or (len(segments) == 1 and len(segments[0]) <= 5)


def rank(judged: list[Judged], query: str, weights: Ranking) -> list[Ranked]:
    # Every sum is one result's own (in label or term order) and the final order is a whole
    # key (its ties in the order given): the order of ``judged`` changes no figure and no
    # place, so it is not sorted first (``tests/pipeline/test_rank.py`` shuffles it).
    items = judged
    terms = sorted(set(tokens(query)))
    relevance = (_bm25_counted(terms, _Terms(terms).docs([j.candidate for j in items]))
                 if terms and items else [0.0] * len(items))
    rmax = max(relevance, default=0.0) or 1.0
    # Off topic: no query word in title, snippet or URL, while other results have some.
    # (a score is never below 0 nor NaN: those above 0 are those that are not 0)
    guard = weights.off_topic_penalty > 0 and len(relevance) - relevance.count(0.0) >= 2
    # The named-site bonus goes to a site only when the query names one site: "Code 9"
    # naming code9.com.au, thecode9project.org and code9security.com names none of them.
    named_sites = {j.candidate.domain for j in items if j.verdict.named and front_page(j.candidate)}
    # The parts that are one of two values, rounded once per search.
    prefer_bonus, named_bonus = _r(weights.prefer_bonus), _r(weights.named_bonus)
    off_topic, demote_penalty = _r(-weights.off_topic_penalty), _r(-weights.demote_penalty)
    multi_bonus: dict[int, float] = {}
    engine_weight, relevance_weight = weights.engine_weight, weights.relevance_weight
    ranked = []
    rounded: dict[float, float] = {}
    line_of: dict[str, str] = {}  # engine label: its line ("searxng:bing": "searxng")
    decay_of = _DECAY_OF
    new = object.__new__
    keys: list[tuple[bool, float, tuple[int, int, str]]] = []
    for j, r in zip(items, relevance, strict=True):
        # the verdict's fields read once (a NamedTuple's, by position: Verdict's order)
        _, demoted, preferred, _, named_site, _, prefer_counts, kept_by = j.verdict
        c = j.candidate
        positions = c.positions
        # engine_evidence(c), the same sum in the same order, each label's line split once
        x = 0.0
        if positions:
            weights_of = c.weights
            if len(positions) == 1:
                (best,) = positions.values()  # min of one, without a call
            else:
                best = min(positions.values())
            try:
                for label, position in (positions.items() if len(positions) <= 2
                                        else sorted(positions.items())):
                    x += weights_of.get(line_of[label], 1.0) * decay_of[position]
            except KeyError:  # a label met first, or a position beyond the table
                x = _evidence(positions, weights_of, line_of)
        # _r by _round4 inline: the engine part and the total worked out (they seldom repeat:
        # a memo's look-ups cost more than they save), the relevance, which repeats (results
        # counted alike), rounded once a value (0 is never looked up: a memo would give -0.0
        # for 0.0, and round keeps either zero as it is)
        x = engine_weight * x
        if x:  # (round(x, 4) of 0.0 or -0.0 is itself)
            y = x * 1e4
            n = y + _TO_INTEGER - _TO_INTEGER
            engine = (n / 1e4 if n and -0.4999 < y - n < 0.4999 and -1e9 < y < 1e9
                      else round(x, 4))
        else:
            engine = x
        x = relevance_weight * r / rmax
        rel = rounded.get(x) if x else x
        if rel is None:
            y = x * 1e4
            n = y + _TO_INTEGER - _TO_INTEGER
            rel = rounded[x] = (n / 1e4 if n and -0.4999 < y - n < 0.4999 and -1e9 < y < 1e9
                                else round(x, 4))
        prefer = prefer_bonus if preferred and prefer_counts else 0.0
        others = len(c.engines) - 1 if c.engines else 0
        multi = multi_bonus.get(others)
        if multi is None:
            multi = multi_bonus[others] = _r(weights.multi_engine_bonus * others)
        named = named_bonus if named_site and front_page(c) and len(named_sites) == 1 else 0.0
        off = off_topic if guard and r == 0 and not named_site else 0.0
        demote = demote_penalty if demoted else 0.0
        x = engine + rel + prefer + multi + named + off + demote
        if x:
            y = x * 1e4
            n = y + _TO_INTEGER - _TO_INTEGER
            total = (n / 1e4 if n and -0.4999 < y - n < 0.4999 and -1e9 < y < 1e9
                     else round(x, 4))
        else:
            total = x
        if demoted:
            tier, last = "demoted", True
        else:
            tier, last = "primary" if preferred else "normal", False
        orders = c.line_orders  # (min of one item: the item, without a call)
        tie = (orders[0] if len(orders) == 1 else min(orders) if orders else 0,
               best if positions else 0, c.key)
        item = new(Ranked)  # Ranked(j, values, tie): the fields set on a bare instance
        item.judged = j
        item.values = (engine, rel, prefer, multi, named, off, demote, total, tier, 0.0,
                       demoted, kept_by)
        item.tie = tie
        item._parts = None
        ranked.append(item)
        keys.append((last, -total, tie))  # _order(ranked[-1])
    if math.isnan(sum(map(_TOTAL, keys))):  # a NaN total (or inf - inf): ties by key order
        ranked, keys = _by_candidate_key(ranked, keys)
    ranked = _sorted(ranked, keys)
    if weights.same_site_penalty > 0 and _vary(ranked, weights.same_site_penalty,
                                                weights.same_site_top):
        ranked = _sorted(ranked, [_order(item) for item in ranked])
    return ranked


def _evidence(positions: dict[str, int], weights: dict[str, float], line_of: dict[str, str]
              ) -> float:
    """``engine_evidence`` of these positions and line weights, filling ``line_of``."""
    total = 0.0
    for label in positions if len(positions) <= 2 else sorted(positions):
        position = positions[label]
        line = line_of.get(label)
        if line is None:
            line = line_of[label] = label.partition(":")[0]
        total += weights.get(line, 1.0) * (
            _DECAYS[position] if 0 <= position <= 100 else decay(position))
    return total


def _round4(x: float) -> float:
    """``round(x, 4)``, fewer instructions (``rank`` has it inline): ``y`` = ``x * 10**4`` is
    within half an ulp of the exact product, so when it lies clearly between two halves
    (|y - n| < 0.4999, |y| < 10**9) the nearest integer ``n`` of ``y`` is that of the exact
    product, which is what ``round`` rounds to, and ``n / 10**4`` (IEEE division, correctly
    rounded) is the double nearest ``n * 10**-4``, which is what ``round`` returns. A zero
    is itself; what rounds to 0 and near ties are left to ``round`` (the sign of a zero)."""
    if not x:
        return x  # 0.0 or -0.0: round keeps it
    y = x * 1e4
    n = y + _TO_INTEGER - _TO_INTEGER
    return n / 1e4 if n and -0.4999 < y - n < 0.4999 and -1e9 < y < 1e9 else round(x, 4)


def _by_candidate_key(ranked: list[Ranked], keys: list[tuple[bool, float, tuple[int, int, str]]]
                      ) -> tuple[list[Ranked], list[tuple[bool, float, tuple[int, int, str]]]]:
    """Both lists in the order of their candidates' keys (what ``rank`` sorted its input by
    before: the same answer when a total is NaN and no key orders it)."""
    order = sorted(range(len(ranked)), key=lambda i: ranked[i].candidate.key)
    return [ranked[i] for i in order], [keys[i] for i in order]


def _order(item: Ranked) -> tuple[bool, float, tuple[int, int, str]]:
    """Demoted last, best total first, then the tie-break (never arrival order)."""
    values = item.values
    return values[8] == "demoted", -values[7], item.tie


def _sorted(ranked: list[Ranked], keys: list[tuple[bool, float, tuple[int, int, str]]]
            ) -> list[Ranked]:
    """``sorted(ranked, key=_order)`` with each item's key given (``keys[i]``: its key)."""
    return [ranked[i] for i in sorted(range(len(ranked)), key=keys.__getitem__)]


def _vary(ranked: list[Ranked], penalty: float, top: int) -> bool:
    """A site (registrable domain) with a second page in the first ``top`` places loses
    ``penalty`` on every page after its first: a second page of the same site keeps a top
    place only when its evidence is clearly better. Preferred sources, and the site the query
    names, may repeat. The order within a site never changes, so a ``site:`` query keeps the
    engine's order. True when a total changed."""
    seen: set[str] = set()
    repeating: set[str] = set()
    for i, item in enumerate(ranked):
        site = item.candidate.domain
        if site in seen and i < top:
            repeating.add(site)
        seen.add(site)
    if not repeating:
        return False
    changed = False
    first: set[str] = set()
    for item in ranked:
        site = item.candidate.domain
        verdict = item.judged.verdict
        if site in first and site in repeating and not (verdict.preferred
                                                         or verdict.named_part):
            values = item.values  # (read before any Parts is made of them)
            same_site = _r(-penalty)
            item.values = (*values[:7], _r(values[7] + same_site), values[8], same_site,
                           *values[10:])
            changed = True
        first.add(site)
    return changed
