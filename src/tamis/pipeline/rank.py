"""Rank: a deterministic, explainable score, and a stable order.

score = fusion + relevance + prefer + multi_engine - demote, where

- fusion: reciprocal rank fusion over every (engine, position) pair, each weighted by its
  line's ``weight``, scaled so the best candidate gets ``fusion_weight``;
- relevance: BM25 of title + snippet against the query, scaled so the best gets
  ``relevance_weight``;
- prefer: ``prefer_bonus`` for a preferred host; multi_engine: ``multi_engine_bonus`` per
  engine beyond the first; demote: ``demote_penalty`` for a demoted host.

Demoted results form a lower tier: they sort below every other result whatever the weights.
Ties break on (best line order in config, best position, URL key): never on arrival order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from tamis.models import Candidate, ScoreParts
from tamis.pipeline.filter import Judged
from tamis.policy.schema import Ranking

STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "what",
    "when", "where", "which", "who", "why", "with", "you", "your",
})
_WORD = re.compile(r"[a-z0-9]+")


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS and len(w) > 1]


def bm25_scores(query: str, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Plain BM25 over a small set of short documents (titles + snippets)."""
    terms = sorted(set(tokens(query)))
    if not docs or not terms:
        return [0.0] * len(docs)
    n = len(docs)
    avg = sum(len(d) for d in docs) / n or 1.0
    df = {t: sum(1 for d in docs if t in d) for t in terms}
    scores = []
    for doc in docs:
        tf = Counter(doc)
        score = 0.0
        for t in terms:
            f = tf.get(t, 0)
            if not f:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avg))
        scores.append(score)
    return scores


def rrf(candidate: Candidate, k: float) -> float:
    total = 0.0
    for label in sorted(candidate.positions):
        line = label.split(":", 1)[0]
        total += candidate.weights.get(line, 1.0) / (k + candidate.positions[label])
    return total


@dataclass(slots=True)
class Parts:
    """Score parts while ranking (cheap); ``model()`` gives the ScoreParts users see."""

    fusion: float
    relevance: float
    prefer: float
    multi_engine: float
    demote: float
    total: float
    tier: str
    demote_reason: str | None

    def model(self) -> ScoreParts:
        return ScoreParts(fusion=self.fusion, relevance=self.relevance, prefer=self.prefer,
                          multi_engine=self.multi_engine, demote=self.demote,
                          total=self.total, tier=self.tier,  # type: ignore[arg-type]
                          demote_reason=self.demote_reason)


@dataclass(slots=True)
class Ranked:
    judged: Judged
    parts: Parts

    @property
    def candidate(self) -> Candidate:
        return self.judged.candidate


def _r(x: float) -> float:
    return round(x, 4)


def rank(judged: list[Judged], query: str, weights: Ranking) -> list[Ranked]:
    # Work in a canonical order so every float sum is computed the same way every run.
    items = sorted(judged, key=lambda j: j.candidate.key)
    fusion = [rrf(j.candidate, weights.rrf_k) for j in items]
    relevance = bm25_scores(query, [tokens(f"{j.candidate.title} {j.candidate.snippet}")
                                    for j in items])
    fmax = max(fusion, default=0.0) or 1.0
    rmax = max(relevance, default=0.0) or 1.0
    ranked = []
    for j, f, r in zip(items, fusion, relevance, strict=True):
        v = j.verdict
        fusion = _r(weights.fusion_weight * f / fmax)
        rel = _r(weights.relevance_weight * r / rmax)
        prefer = _r(weights.prefer_bonus if v.preferred else 0.0)
        multi = _r(weights.multi_engine_bonus * max(0, len(j.candidate.engines) - 1))
        demote = _r(-weights.demote_penalty if v.demoted else 0.0)
        total = _r(fusion + rel + prefer + multi + demote)
        tier = "demoted" if v.demoted else ("primary" if v.preferred else "normal")
        ranked.append(Ranked(j, Parts(fusion, rel, prefer, multi, demote, total, tier,
                                      v.demoted)))

    def order(item: Ranked) -> tuple[int, float, int, int, str]:
        c = item.candidate
        return (
            1 if item.parts.tier == "demoted" else 0,
            -item.parts.total,
            min(c.line_orders, default=0),
            min(c.positions.values(), default=0),
            c.key,
        )

    return sorted(ranked, key=order)
