"""The ranking keeps each result's score parts as a tuple and makes a ``Parts`` of them when
first read, and sorts on keys made in its one pass: the order is still the plain definition
(demoted last, best total first, then the tie-break) of the parts users see."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import Parts, Ranked, _order, _r, _sorted, rank
from tamis.pipeline.rules import Rules
from tamis.settings import load_config

POLICY = load_config(None).config.policy

hosts = st.sampled_from(["a.example", "docs.a.example", "b.example", "medium.com",
                         "github.com", "proxmox.com", "forum.proxmox.com"])
paths = st.sampled_from(["/", "/x", "/thin-pool", "/a/b", "/en/", "/pool/metadata"])
engines = st.dictionaries(st.sampled_from(["bing", "brave", "google"]),
                          st.integers(1, 12), min_size=1, max_size=3)
titles = st.sampled_from(["thin pool", "metadata recovery", "unrelated", "Proxmox"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(hosts, paths, engines, titles), min_size=1, max_size=14),
       st.sampled_from(["thin pool metadata", "proxmox", "a example", ""]))
def test_order_is_the_plain_order_of_the_parts(found: list, query: str) -> None:
    hits = [(RawHit(url=f"https://{h}{p}", title=t, line="searxng",
                    engines=[f"searxng:{e}" for e in es], positions=list(es.values())), 0, 1.0)
            for h, p, es, t in found]
    candidates, _ = merge(hits, tracking_params=[], max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), query)
    ranked = rank(kept, query, POLICY.ranking)
    plain = sorted(ranked, key=lambda r: (r.parts.tier == "demoted", -r.parts.total, r.tie))
    assert [id(r) for r in ranked] == [id(r) for r in plain]
    for r in ranked:
        p = r.parts
        assert p is r.parts  # made once
        assert tuple(getattr(p, name) for name in Parts.FIELDS) == r.values
        before = _r(p.fusion + p.relevance + p.prefer + p.multi_engine + p.named
                    + p.off_topic + p.demote)
        assert p.total == (_r(before + p.same_site) if p.same_site else before)
        assert p.tier == ("demoted" if r.judged.verdict.demoted else
                          "primary" if r.judged.verdict.preferred else "normal")


def test_a_repeated_site_pays_the_penalty_in_its_parts() -> None:
    hits = [(RawHit(url=f"https://a.example/page{i}", title="thin pool", line="searxng",
                    engines=["searxng:bing"], positions=[i + 1]), 0, 1.0) for i in range(3)]
    candidates, _ = merge(hits, tracking_params=[], max_chars=400)
    kept, _ = filter_candidates(candidates, Rules(POLICY), "thin pool")
    ranked = rank(kept, "thin pool", POLICY.ranking)
    penalty = _r(-POLICY.ranking.same_site_penalty)
    assert [r.parts.same_site for r in ranked] == [0.0, penalty, penalty]
    assert ranked[1].parts.total == _r(ranked[1].parts.fusion + ranked[1].parts.relevance
                                       + ranked[1].parts.same_site)


def test_sorted_with_given_keys_is_sorted_by_order() -> None:
    rng = random.Random(3)
    items = []
    for _ in range(300):  # totals and ties that repeat, both tiers
        values = (0.0,) * 7 + (float(rng.randint(0, 5)), rng.choice(["normal", "demoted"]),
                               0.0, None, None)
        items.append(Ranked(None, values, (rng.randint(0, 2), rng.randint(1, 3),  # type: ignore[arg-type]
                                           str(rng.randint(0, 9)))))
    assert _sorted(items, [_order(r) for r in items]) == sorted(items, key=_order)
    assert [id(r) for r in _sorted(items, [_order(r) for r in items])] == [
        id(r) for r in sorted(items, key=_order)]  # stable: equal keys keep their order
