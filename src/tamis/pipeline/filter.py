"""Filter: drop proven non-answers with an auditable reason; judge every kept candidate.

Input: merged candidates and the query. Output: the query's intent, the kept candidates, each
with its ``Verdict`` (demoted? preferred? named by the query? its page kind and whether the
query asks for it), and the dropped ones with their reason and original position.

Never empty, never hide: only a proven non-answer (a search-results page, a cart, an ad, a
parked domain) or a result the query's own operators exclude (``-site:``, ``site:``, ``-word``)
is dropped. An operator that would exclude every result is not applied (the engines answered
something else than what was asked: their answer beats none). And when most of the answer is
of one page kind (every result a shop, every result a homepage), the answer says what the
query is after: that kind is not moved down.
"""

from __future__ import annotations

import heapq
import re
from typing import NamedTuple

from tamis.models import Candidate, Dropped
from tamis.pipeline.intent import QueryIntent, host_labels
from tamis.pipeline.query import ParsedQuery, fold, parse_query
from tamis.pipeline.rules import KIND_REASON, Rules, Verdict
from tamis.pipeline.urls import host_matches

SEARCH_PAGE_REASONS = ("search_or_shopping_query", "path_pattern:/search?", "ad_click")
LAST_RESORT = "last resort"  # kept_by of search pages returned because nothing else was
_WORD = re.compile(r"[^\W_]+")
MAJORITY_OF = 8  # the first results (engine order) whose kinds say what the query is after


class Judged(NamedTuple):
    """A kept candidate and what the policy says of it."""

    candidate: Candidate
    verdict: Verdict


def _engine_rank(c: Candidate) -> tuple[int, int, str]:
    return min(c.positions.values(), default=10**6), -len(c.positions), c.key


def engine_order(candidates: list[Candidate], first: int | None = None) -> list[Candidate]:
    """Best engine position first; ties on the URL key (never on arrival). ``first``: only
    that many, picked without sorting the rest."""
    if first is None:
        return sorted(candidates, key=_engine_rank)
    return heapq.nsmallest(first, candidates, key=_engine_rank)


def query_intent(candidates: list[Candidate], rules: Rules, query: str) -> QueryIntent:
    # detect_intent reads the first ``first_hosts`` hosts only
    first = engine_order(candidates, rules.intent_words.first_hosts)
    return rules.intent(query, [c.host for c in first])


def excluded_by(c: Candidate, query: ParsedQuery) -> str | None:
    """The operator of the query that excludes this result, or None."""
    for site in query.excluded_sites:
        if host_matches(c.host, frozenset({site})):
            return f"query_operator:-site:{site}"
    if query.sites and not host_matches(c.host, frozenset(query.sites)):
        return f"query_operator:site:{query.sites[0]}"
    if query.excluded_words:
        labels = set(host_labels(c.host))
        title = set(_WORD.findall(fold(c.title)))
        for word in query.excluded_words:
            if fold(word) in labels or fold(word) in title:
                return f"query_operator:-{word}"
    return None


def filter_candidates(
    candidates: list[Candidate], rules: Rules, query: str,
    intent: QueryIntent | None = None,
) -> tuple[list[Judged], list[Dropped]]:
    # the first results in the engines' order, picked once for the intent and the majority
    first_hosts = rules.intent_words.first_hosts
    first = engine_order(candidates, max(first_hosts, MAJORITY_OF) if intent is None
                         else MAJORITY_OF)
    if intent is None:  # query_intent
        intent = rules.intent(query, [c.host for c in first[:first_hosts]])
    kept: list[Judged] = []
    dropped: list[Dropped] = []
    search_pages: list[Judged] = []
    verdicts = _majority_kinds(candidates, rules.judge_all(candidates, query, intent),
                               first[:MAJORITY_OF])
    parsed = parse_query(query)
    operators = parsed.excluded_sites or parsed.sites or parsed.excluded_words
    excluded = ([excluded_by(c, parsed) for c in candidates] if operators
                else [None] * len(candidates))
    if all(excluded):  # the operators would leave nothing: the engines' answer beats none
        excluded = [None] * len(candidates)
    for candidate, verdict, operator in zip(candidates, verdicts, excluded, strict=True):
        reason = verdict.drop or operator
        if reason:
            dropped.append(_dropped(candidate, reason))
            if reason in SEARCH_PAGE_REASONS and reason != "ad_click":
                search_pages.append(Judged(candidate, verdict._replace(
                    drop=None, kept_by=f"{LAST_RESORT}: {reason}")))
        else:
            kept.append(Judged(candidate, verdict))
    if (not kept and search_pages and rules.search_pages_last_resort
            and all(d.reason in SEARCH_PAGE_REASONS for d in dropped)):
        # Every result is a search-engine page: the engine's own titles and snippets beat an
        # empty answer (the notes say so, see all_dropped_note).
        return search_pages, []
    return kept, dropped


def _dropped(c: Candidate, reason: str) -> Dropped:
    return Dropped(url=c.url, reason=reason, position=c.first_seen, title=c.title,
                   engines=c.engines)


def _majority_kinds(candidates: list[Candidate], verdicts: list[Verdict],
                    first_results: list[Candidate]) -> list[Verdict]:
    """When half or more of the first results (``first_results``: the first
    ``MAJORITY_OF`` in engine order) are of one page kind, that kind is what the query is
    after: its pages keep their places, and none is dropped as a non-answer of the kind
    (``kept_by``: "most of the answer is ...")."""
    first = {c.key for c in first_results}
    counts: dict[str, int] = {}
    seen = 0
    for c, v in zip(candidates, verdicts, strict=True):
        if c.key in first and (v.drop is None or v.drop.startswith(f"{KIND_REASON}:")):
            seen += 1
            if v.kind:
                counts[v.kind] = counts.get(v.kind, 0) + 1
    wanted = {kind for kind, n in counts.items() if 2 * n >= seen}
    if not wanted:
        return verdicts
    return [v._replace(kept_by=f"most of the answer is {v.kind}",
                       drop=None if v.drop == f"{KIND_REASON}:{v.kind}" else v.drop)
            if v.kind in wanted and not v.kept_by else v for v in verdicts]


def all_dropped_note(kept: list[Judged], dropped: list[Dropped]) -> str | None:
    """When every result was a search page (or an ad), the answer says so, not silently []."""
    if kept and all((j.verdict.kept_by or "").startswith(LAST_RESORT) for j in kept):
        return (f"every result ({len(kept)}) was a search-engine page: returned as the"
                " engine gave them (policy.non_answer.search_pages_last_resort), since nothing"
                " else answered; try other engines or rephrase")
    if kept or not dropped or not all(d.reason in SEARCH_PAGE_REASONS for d in dropped):
        return None
    return (f"every result ({len(dropped)}) was a search-engine page or an ad, not a page that"
            " answers: all dropped (see --explain); try other engines or rephrase")
