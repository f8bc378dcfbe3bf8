"""Filter: drop non-answers with an auditable reason; judge every kept candidate.

Input: merged candidates and the query. Output: the query's intent, the kept candidates, each
with its ``Verdict`` (demoted? preferred? named by the query? source type), and the dropped
ones with their reason and original position. The intent decides which non-answer rules
apply (``policy.intent``); it is computed once, from the query and the hosts in the engines'
order, so it never depends on the order answers arrived in.
"""

from __future__ import annotations

from dataclasses import dataclass

from tamis.models import Candidate, Dropped
from tamis.pipeline.intent import QueryIntent
from tamis.pipeline.rules import Rules, Verdict


@dataclass(frozen=True, slots=True)
class Judged:
    candidate: Candidate
    verdict: Verdict


def engine_order(candidates: list[Candidate]) -> list[Candidate]:
    """Best engine position first; ties on the URL key (never on arrival)."""
    return sorted(candidates, key=lambda c: (min(c.positions.values(), default=10**6),
                                             -len(c.positions), c.key))


def judge_candidate(candidate: Candidate, rules: Rules, query: str,
                    intent: QueryIntent | None = None) -> Verdict:
    return rules.judge(candidate.host, candidate.path, candidate.query, query, intent)


def query_intent(candidates: list[Candidate], rules: Rules, query: str) -> QueryIntent:
    return rules.intent(query, [c.host for c in engine_order(candidates)])


def filter_candidates(
    candidates: list[Candidate], rules: Rules, query: str,
    intent: QueryIntent | None = None,
) -> tuple[list[Judged], list[Dropped]]:
    if intent is None:
        intent = query_intent(candidates, rules, query)
    kept: list[Judged] = []
    dropped: list[Dropped] = []
    for candidate in candidates:
        verdict = judge_candidate(candidate, rules, query, intent)
        if verdict.drop:
            dropped.append(Dropped(url=candidate.url, reason=verdict.drop,
                                   position=candidate.first_seen, title=candidate.title,
                                   engines=candidate.engines))
        else:
            kept.append(Judged(candidate, verdict))
    return kept, dropped


SEARCH_PAGE_REASONS = ("search_or_shopping_query", "path_pattern:/search?", "ad_click")


def all_dropped_note(kept: list[Judged], dropped: list[Dropped]) -> str | None:
    """When every result was a search page (or an ad), the answer says so, not silently []."""
    if kept or not dropped or not all(d.reason in SEARCH_PAGE_REASONS for d in dropped):
        return None
    return (f"every result ({len(dropped)}) was a search-engine page or an ad, not a page that"
            " answers: all dropped (see --explain); try other engines or rephrase")
