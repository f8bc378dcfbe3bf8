"""Ranking: demoted below everything, explainable parts, ties that never depend on arrival."""

from __future__ import annotations

import random

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.relevance import bm25_scores, tokens
from tamis.pipeline.rules import Rules
from tamis.settings import load_config

POLICY = load_config(None).config.policy


def hit(url: str, title: str, engines: dict[str, int], line: str = "searxng") -> RawHit:
    return RawHit(url=url, title=title, line=line, engines=[f"{line}:{e}" for e in engines],
                  positions=list(engines.values()))


def ranked_urls(hits: list[RawHit], query: str) -> list[str]:
    candidates, _ = merge([(h, 0, 1.0) for h in hits],
                          tracking_params=POLICY.normalise.tracking_params, max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), query)
    return [r.candidate.url for r in rank(kept, query, POLICY.ranking)]


def test_demoted_ranks_below_everything_whatever_its_engines() -> None:
    hits = [
        hit("https://medium.com/@x/thin-pool", "thin pool metadata thin pool metadata",
            {"bing": 1, "brave": 1, "duckduckgo": 1, "yandex": 1, "google": 1}),
        hit("https://unknown.example/notes", "unrelated", {"bing": 40}),
    ]
    assert ranked_urls(hits, "thin pool metadata")[-1].startswith("https://medium.com")


def test_scores_are_explained_by_their_parts() -> None:
    candidates, _ = merge([(hit("https://github.com/a/b", "thin pool", {"bing": 1, "brave": 2}),
                            0, 1.0)], tracking_params=[], max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), "thin pool metadata error")
    parts = rank(kept, "thin pool metadata error", POLICY.ranking)[0].parts
    assert parts.prefer == 100 and parts.multi_engine == 25 and parts.demote == 0
    # bing 1 and brave 2: 1000 / log2(2) + 1000 / log2(3); the best relevance gets the weight
    assert parts.fusion == 1630.9298 and parts.relevance == 40
    assert parts.total == round(1630.9298 + 40 + 100 + 25, 4) and parts.tier == "primary"


def test_order_is_the_same_for_any_arrival_order() -> None:
    hits = [hit(f"https://site{i}.example/page", "same title", {"bing": 3}) for i in range(12)]
    expected = ranked_urls(hits, "title")
    for seed in range(5):
        shuffled = hits[:]
        random.Random(seed).shuffle(shuffled)
        assert ranked_urls(shuffled, "title") == expected
    assert expected == sorted(expected)  # a full tie falls back to the URL key


def test_bm25_prefers_documents_with_the_query_terms() -> None:
    docs = [tokens("thin pool metadata recovery"), tokens("cooking pasta"), tokens("pool")]
    scores = bm25_scores("thin pool metadata", docs)
    assert scores[0] > scores[2] > scores[1] == 0


def test_line_weight_scales_that_lines_votes() -> None:
    heavy = hit("https://heavy.example/a", "same words", {"x": 1}, line="heavy")
    light = hit("https://light.example/a", "same words", {"x": 1}, line="light")
    candidates, _ = merge([(light, 0, 1.0), (heavy, 1, 3.0)],
                          tracking_params=[], max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), "words")
    ranked = rank(kept, "words", POLICY.ranking)
    assert [r.candidate.host for r in ranked] == ["heavy.example", "light.example"]
    assert ranked[0].parts.fusion == 3000 and ranked[1].parts.fusion == 1000
