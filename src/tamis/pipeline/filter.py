"""Filter: drop non-answers with an auditable reason; judge every kept candidate.

Input: merged candidates and the query. Output: the kept candidates, each with its
``Verdict`` (demoted? preferred? source type), and the dropped ones with their reason and
original position.
"""

from __future__ import annotations

from dataclasses import dataclass

from tamis.models import Candidate, Dropped
from tamis.pipeline.rules import Rules, Verdict


@dataclass(frozen=True)
class Judged:
    candidate: Candidate
    verdict: Verdict


def judge_candidate(candidate: Candidate, rules: Rules, query: str) -> Verdict:
    return rules.judge(candidate.host, candidate.path, candidate.query, query)


def filter_candidates(
    candidates: list[Candidate], rules: Rules, query: str
) -> tuple[list[Judged], list[Dropped]]:
    kept: list[Judged] = []
    dropped: list[Dropped] = []
    for candidate in candidates:
        verdict = judge_candidate(candidate, rules, query)
        if verdict.drop:
            dropped.append(Dropped(url=candidate.url, reason=verdict.drop,
                                   position=candidate.first_seen, title=candidate.title,
                                   engines=candidate.engines))
        else:
            kept.append(Judged(candidate, verdict))
    return kept, dropped
