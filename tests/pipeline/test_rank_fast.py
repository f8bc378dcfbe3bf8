"""The ranking's own fast paths give what the plain steps give: ``_round4`` (inline in
``rank``) is ``round(x, 4)``; the engine evidence summed inline (a table by position, a label
met first or a position beyond the table left to the plain sum) is ``engine_evidence``; and
``rank`` no longer sorts its input first: any input order gives the same ranking."""

from __future__ import annotations

import math
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Candidate
from tamis.pipeline.filter import Judged
from tamis.pipeline.rank import _r, _round4, engine_evidence, rank
from tamis.pipeline.verdict import Verdict
from tamis.settings import load_config

RANKING = load_config(None).config.policy.ranking


def same(a: float, b: float) -> bool:
    return repr(a) == repr(b)  # -0.0 is not 0.0 here, and NaN is NaN


@settings(max_examples=2000, deadline=None)
@given(st.floats(allow_nan=True, allow_infinity=True))
def test_round4_is_round_for_any_float(x: float) -> None:
    assert same(_round4(x), round(x, 4))


@settings(max_examples=2000, deadline=None)
@given(st.integers(-10**9, 10**9),
       st.sampled_from([0.5, 0.49999, 0.50001, 0.4999, 0.5001, 0, 1e-9]))
def test_round4_is_round_at_and_near_ties(n: int, frac: float) -> None:
    for x in ((n + frac) / 1e4, (n - frac) / 1e4, n / 1e4 + frac * 1e-4, -(n + frac) / 1e4):
        assert same(_round4(x), round(x, 4)), x
        assert same(_round4(x), _r(x))


def test_round4_on_what_a_ranking_adds() -> None:
    rng = random.Random(5)
    for _ in range(20000):
        x = rng.choice([1000.0, 40.0, 1.0]) * rng.random() * rng.choice([1, 3, 7, 100])
        assert same(_round4(x), round(x, 4))
        assert same(_round4(-x), round(-x, 4))
    assert same(_round4(-0.00001), -0.0) and same(_round4(0.00001), 0.0)


def judged(i: int, positions: dict[str, int], title: str = "thin pool", demoted: bool = False,
           weights: dict[str, float] | None = None) -> Judged:
    c = Candidate(key=f"k{i % 7}.example/{i}", url=f"https://k{i % 7}.example/{i}",
                  title=title, snippet=f"snippet {i}", host=f"k{i % 7}.example",
                  domain=f"k{i % 7}.example", path=f"/{i}", query="",
                  engines=sorted(positions), positions=dict(sorted(positions.items())),
                  lines={"searxng": 1}, line_orders=[[i % 3], [2, 0], []][i % 3 if i % 4 else 0],
                  weights=weights if weights is not None else {"searxng": 1.0, "tavily": 0.5},
                  first_seen=i)
    verdict = Verdict(None, "demote_domains:x" if demoted else None, None, "web")
    return Judged(c, verdict)


labels = st.sampled_from(["searxng:bing", "searxng:brave", "tavily", "x:y", "searxng:google"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(labels, st.integers(-2, 130), max_size=4), min_size=1,
                max_size=12), st.randoms())
def test_engine_parts_are_the_plain_sum_and_input_order_changes_nothing(
        found: list[dict[str, int]], rng: random.Random) -> None:
    items = [judged(i, p, title=["thin pool", "cooking", "pool pool"][i % 3],
                    demoted=i % 5 == 4, weights=[None, {"searxng": 2.0}, {}][i % 3])
             for i, p in enumerate(found)]
    ranked = rank(items, "thin pool", RANKING)
    for r in ranked:
        x = RANKING.engine_weight * engine_evidence(r.candidate)
        assert same(r.parts.fusion, round(x, 4))
        assert math.isclose(r.parts.total, round(sum(
            getattr(r.parts, f) for f in ("fusion", "relevance", "prefer", "multi_engine",
                                          "named", "off_topic", "demote", "same_site")), 4),
            abs_tol=1e-3)
        c = r.candidate
        assert r.tie == (min(c.line_orders, default=0), min(c.positions.values(), default=0),
                         c.key)
    expected = [(r.candidate.key, r.values) for r in ranked]
    for order in (sorted(items, key=lambda j: j.candidate.key), items[::-1],
                  rng.sample(items, len(items))):
        assert [(r.candidate.key, r.values) for r in rank(order, "thin pool", RANKING)] \
            == expected


def test_rank_reads_the_verdict_fields_in_their_order() -> None:
    """rank unpacks a Verdict by position: its fields must stay in this order."""
    assert Verdict._fields == ("drop", "demoted", "preferred", "source_type", "named",
                               "named_part", "prefer_counts", "kept_by")
    item = judged(0, {"searxng:bing": 1})
    item.verdict = Verdict(None, None, "python.org", "official", True, True, True, "k")
    (ranked,) = rank([item], "thin pool", RANKING)
    assert ranked.parts.prefer == _r(RANKING.prefer_bonus) and ranked.parts.tier == "primary"
    assert ranked.parts.kept_by == "k" and ranked.parts.demote == 0.0
