"""Filter: drop non-answers with an auditable reason; judge every kept candidate.

Input: merged candidates and the query. Output: the query's intent, the kept candidates, each
with its ``Verdict`` (demoted? preferred? named by the query? source type), and the dropped
ones with their reason and original position. The intent decides which non-answer rules
apply (``policy.intent``); it is computed once, from the query and the hosts in the engines'
order, so it never depends on the order answers arrived in.
"""

from __future__ import annotations

import heapq

from tamis.models import Candidate, Dropped
from tamis.pipeline.intent import QueryIntent
from tamis.pipeline.rules import Rules, Verdict

SEARCH_PAGE_REASONS = ("search_or_shopping_query", "path_pattern:/search?", "ad_click")
LAST_RESORT = "last resort"  # kept_by of search pages returned because nothing else was


class Judged:
    """A kept candidate and what the policy says of it (never changed once made; a plain
    class: a frozen one costs three times as much to build, once per result, and a dataclass
    0.5-1 ms to create at import)."""

    __slots__ = ("candidate", "verdict")

    def __init__(self, candidate: Candidate, verdict: Verdict) -> None:
        self.candidate = candidate
        self.verdict = verdict

    def __repr__(self) -> str:
        return f"Judged({self.candidate!r}, {self.verdict!r})"


def _engine_rank(c: Candidate) -> tuple[int, int, str]:
    return min(c.positions.values()) if c.positions else 10**6, -len(c.positions), c.key


def engine_order(candidates: list[Candidate], first: int | None = None) -> list[Candidate]:
    """Best engine position first; ties on the URL key (never on arrival). ``first``: only
    the first so many (what ``sorted(...)[:first]`` gives, without sorting them all)."""
    if first is None:
        return sorted(candidates, key=_engine_rank)
    # nsmallest(first, candidates, key=_engine_rank): whole keys only for the candidates
    # whose best position can be among the first (no better than the first-th best)
    best = [min(p.values()) if (p := c.positions) else 10**6 for c in candidates]
    if first <= 0 or not best:
        return []
    cut = heapq.nsmallest(first, best)[-1]
    ranks = [(b, -len(c.positions), c.key, i)
             for i, (c, b) in enumerate(zip(candidates, best, strict=True)) if b <= cut]
    return [candidates[r[3]] for r in heapq.nsmallest(first, ranks)]


def judge_candidate(candidate: Candidate, rules: Rules, query: str,
                    intent: QueryIntent | None = None) -> Verdict:
    return rules.judge(candidate.host, candidate.path, candidate.query, query, intent,
                       candidate.title)


def query_intent(candidates: list[Candidate], rules: Rules, query: str) -> QueryIntent:
    # detect_intent reads the first ``first_hosts`` hosts only
    first = engine_order(candidates, rules.intent_words.first_hosts)
    return rules.intent(query, [c.host for c in first])


def filter_candidates(
    candidates: list[Candidate], rules: Rules, query: str,
    intent: QueryIntent | None = None,
) -> tuple[list[Judged], list[Dropped]]:
    if intent is None:
        intent = query_intent(candidates, rules, query)
    kept: list[Judged] = []
    dropped: list[Dropped] = []
    search_pages: list[Judged] = []
    new = object.__new__
    for candidate, verdict in zip(candidates, rules.judge_all(candidates, query, intent),
                                  strict=True):
        if verdict.drop:
            dropped.append(Dropped(url=candidate.url, reason=verdict.drop,
                                   position=candidate.first_seen, title=candidate.title,
                                   engines=candidate.engines))
            if verdict.drop in SEARCH_PAGE_REASONS and verdict.drop != "ad_click":
                search_pages.append(Judged(candidate, verdict._replace(
                    drop=None, kept_by=f"{LAST_RESORT}: {verdict.drop}")))
        else:
            judged = new(Judged)  # Judged(candidate, verdict), set on a bare instance
            judged.candidate = candidate
            judged.verdict = verdict
            kept.append(judged)
    if (not kept and search_pages and rules.search_pages_last_resort
            and all(d.reason in SEARCH_PAGE_REASONS for d in dropped)):
        # Every result is a search-engine page: the engine's own titles and snippets beat an
        # empty answer (the notes say so, see all_dropped_note).
        return search_pages, []
    return kept, dropped


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
