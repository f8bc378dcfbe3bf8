"""Rank: the engines' own order, moved a bounded number of places by evidence.

Every result starts where the engines put it. Each piece of evidence moves it some places down
(a penalty) or up (a bonus), in ``policy.ranking``'s units of places:

- ``relevance``: up to ``relevance_places`` up for the result whose own text best matches the
  query (BM25 over the answer's results, pipeline/relevance.py), less for the others;
- ``phrase``: ``phrase_places`` up when the query quotes a phrase and the result carries it;
- ``off_topic``: ``off_topic_places`` down when the result carries none of the query's words
  while others do;
- ``kind``: the places of its page kind (``policy.page_kinds``: a shop, a sign-in page, a bare
  homepage...) unless the query asks for that kind;
- ``dynamic``: ``dynamic_places`` down for a URL with a query string (a listing, a search, an
  app's view: less often the page that answers);
- ``no_snippet``: ``no_snippet_places`` down when the engine gave no text for the result;
- ``named``: ``named_places`` up for the front page of the one site the query names;
- ``prefer``: ``prefer_places`` up for a preferred host (a primary source);
- ``multi_engine``: ``multi_engine_places`` up for each engine beyond the first that found it;
- ``same_site``: ``same_site_places`` down for a site's second page when it would stand in the
  first ``same_site_top`` places (the top stays varied).

No part moves a result more than ``max_places`` and all penalties together move it at most that
far: evidence re-orders, it never hides a result the engines put first. The score is the engines'
evidence at the moved positions: ``engine_weight * sum(line weight / log2(position + shift + 1))``
over the engines that returned it (1000 at position 1, 631 at 2, 289 at 10). A result of a
demoted host (a content farm, ``demote_domains``) moves down ``demote_places`` and never stands
above a result of a preferred host (our users' rule: a content farm never outranks a primary
source). Ties break on the best line order in the config, then the best position, then the URL:
never arrival order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from tamis.models import Candidate, ScoreParts
from tamis.pipeline.filter import Judged
from tamis.pipeline.paths import front_page
from tamis.pipeline.query import ParsedQuery, parse_query
from tamis.pipeline.relevance import TextMatch, text_match
from tamis.policy.schema import Ranking

# Past the first place (moved up by evidence) an engine's vote keeps rising, at the slope it
# has at the first place, but less and less, never beyond 1 + that slope: results moved that
# far keep their order (never one tie), and one engine's vote never outweighs two engines'
# agreement near the top.
_SLOPE_AT_FIRST = 1 / (2 * math.log(2))  # of 1 / log2(p + 1) at p = 1


def decay(position: float) -> float:
    """The weight of an engine's position: 1 at 1, 0.63 at 2, 0.5 at 3, 0.29 at 10; past
    the first place, between 1 and 1.72."""
    if position >= 1:
        return 1.0 / math.log2(position + 1)
    return 1.0 + _SLOPE_AT_FIRST * (1 - math.exp(position - 1))


@dataclass(slots=True)
class Ranked:
    """A ranked result: its judged candidate, the places each part moved it, its score."""

    judged: Judged
    places: dict[str, float] = field(default_factory=dict)  # part: places (+ down, - up)
    shift: float = 0.0  # the places it moved, all parts together, within the bound
    fusion: float = 0.0  # the engines' evidence at their own positions
    total: float = 0.0
    tier: str = "normal"

    @property
    def candidate(self) -> Candidate:
        return self.judged.candidate

    def order_key(self) -> tuple[bool, float, int, int, str]:
        c = self.judged.candidate
        best = min(c.positions.values(), default=0)
        return (-self.total, min(c.line_orders, default=0), best, c.key)

    def parts(self, weights: Ranking) -> ScoreParts:
        verdict = self.judged.verdict
        return ScoreParts(fusion=round(self.fusion, 4), places=dict(self.places),
                          shift=round(self.shift, 4),
                          total=self.total, tier=self.tier,  # type: ignore[arg-type]
                          demote_reason=verdict.demoted, kept_by=verdict.kept_by)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What is known of one result before any weight applies (``gather``)."""

    judged: Judged
    match: TextMatch
    named_front: bool  # the front page of the one site the query names


def rank(judged: list[Judged], query: str | ParsedQuery, weights: Ranking) -> list[Ranked]:
    parsed = parse_query(query) if isinstance(query, str) else query
    return order(gather(judged, parsed), weights, vary=not parsed.sites)


def gather(judged: list[Judged], query: ParsedQuery) -> list[Evidence]:
    matches = text_match([j.candidate for j in judged], query)
    # The named-site bonus goes to a site only when the query names one site: "Code 9"
    # naming code9.com.au, thecode9project.org and code9security.com names none of them.
    fronts = [j.verdict.named and front_page(j.candidate.path, j.candidate.query)
              for j in judged]
    one_site = len({j.candidate.domain for j, front in zip(judged, fronts, strict=True)
                    if front}) == 1
    return [Evidence(j, match, front and one_site)
            for j, match, front in zip(judged, matches, fronts, strict=True)]


def order(evidence: list[Evidence], weights: Ranking, vary: bool = True) -> list[Ranked]:
    """The results in their final order. ``vary``: apply ``same_site_places`` (not for a
    ``site:`` query, whose results are all one site's)."""
    ranked = []
    for e in evidence:
        item = Ranked(e.judged, _places(e, weights))
        verdict = e.judged.verdict
        item.tier = ("demoted" if verdict.demoted
                     else "primary" if verdict.preferred else "normal")
        _score(item, weights)
        ranked.append(item)
    ranked.sort(key=Ranked.order_key)
    if vary and weights.same_site_places > 0 and _vary(ranked, weights):
        ranked.sort(key=Ranked.order_key)
    return _below_primary(ranked)


def _below_primary(ranked: list[Ranked]) -> list[Ranked]:
    """Every demoted result that stands above a primary one, moved to just below the last
    primary result (in its order): a content farm never outranks a primary source."""
    last = max((i for i, r in enumerate(ranked) if r.tier == "primary"), default=0)
    above = [r for r in ranked[:last] if r.tier == "demoted"]
    if not above:
        return ranked
    return ([r for r in ranked[:last + 1] if r.tier != "demoted"] + above
            + ranked[last + 1:])


def _places(e: Evidence, w: Ranking) -> dict[str, float]:
    """The places each piece of evidence moves this result (only the parts that move it)."""
    c, verdict, match = e.judged.candidate, e.judged.verdict, e.match
    places = {
        "relevance": -w.relevance_places * match.bm25,
        "title": -w.title_places * match.title,
        "address": -w.address_places * match.address,
        "phrase": -w.phrase_places if match.phrase else 0.0,
        "off_topic": w.off_topic_places if match.off_topic and not verdict.named_part else 0.0,
        "kind": verdict.moved_as(w.kind_places),
        "dynamic": w.dynamic_places if c.query else 0.0,
        "no_snippet": w.no_snippet_places if not c.snippet.strip() else 0.0,
        "named": -w.named_places if e.named_front else 0.0,
        "prefer": -w.prefer_places if verdict.preferred and verdict.prefer_counts else 0.0,
        "demote": w.demote_places if verdict.demoted else 0.0,
        "multi_engine": -w.multi_engine_places * max(0, len(c.engines) - 1),
    }
    return {part: round(_bounded(value, w.max_places), 4)
            for part, value in places.items() if value}


def _bounded(value: float, bound: float) -> float:
    return max(-bound, min(bound, value))


def _score(item: Ranked, w: Ranking) -> None:
    """The shift (penalties together at most ``max_places`` down, bonuses at most that far
    up) and the engines' evidence at the shifted positions."""
    down = sum(v for v in item.places.values() if v > 0)
    up = sum(v for v in item.places.values() if v < 0)
    item.shift = _bounded(down, w.max_places) + _bounded(up, w.max_places)
    c = item.judged.candidate
    fusion = total = 0.0
    for label in sorted(c.positions):
        line_weight = c.weights.get(label.partition(":")[0], 1.0)
        fusion += line_weight * decay(c.positions[label])
        total += line_weight * decay(c.positions[label] + item.shift)
    item.fusion = w.engine_weight * fusion
    item.total = round(w.engine_weight * total, 4)


def _vary(ranked: list[Ranked], w: Ranking) -> bool:
    """A site (registrable domain) whose second page stands in the first ``same_site_top``
    places moves each page after its first down ``same_site_places``: a second page of one
    site keeps a top place only when its evidence is clearly better. Preferred sources and
    the site the query names may repeat. True when a score changed."""
    seen: set[str] = set()
    repeating = set()
    for item in ranked[: w.same_site_top]:
        site = item.candidate.domain
        if site in seen:
            repeating.add(site)
        seen.add(site)
    changed = False
    first: set[str] = set()
    for item in ranked:
        site = item.candidate.domain
        verdict = item.judged.verdict
        if site in first and site in repeating and not (verdict.preferred
                                                         or verdict.named_part):
            item.places["same_site"] = _bounded(w.same_site_places, w.max_places)
            _score(item, w)
            changed = True
        first.add(site)
    return changed
