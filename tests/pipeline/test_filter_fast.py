"""The filter's fast paths give exactly what their plain definitions give: the first hosts
in the engines' order (``heapq.nsmallest`` with the keys made in one pass)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Candidate
from tamis.pipeline.filter import _engine_rank, engine_order


def candidate(key: str, positions: dict[str, int]) -> Candidate:
    return Candidate(key=key, url=f"https://{key}/", title=key, snippet="", host=key,
                     domain=key, path="/", query="", engines=sorted(positions),
                     positions=positions, lines={}, line_orders=[0], weights={},
                     first_seen=1)


pages = st.lists(st.tuples(st.sampled_from(["a.example", "b.example", "c.example", "d"]),
                           st.dictionaries(st.sampled_from(["s:bing", "s:brave", "tavily"]),
                                           st.integers(1, 5), max_size=3)),
                 max_size=12)


@settings(max_examples=300, deadline=None)
@given(pages, st.integers(0, 14))
def test_engine_order_first_is_the_sorted_list_cut(found: list[tuple[str, dict[str, int]]],
                                                   first: int) -> None:
    candidates = [candidate(key, positions) for key, positions in found]  # keys may repeat
    expected = sorted(candidates, key=_engine_rank)[:first]
    got = engine_order(candidates, first)
    assert [id(c) for c in got] == [id(c) for c in expected]


def test_rules_memos_stay_bounded(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from tamis.pipeline import rules as rules_module
    from tamis.pipeline.rules import Rules
    from tamis.settings import load_config

    monkeypatch.setattr(rules_module, "MEMO_SIZE", 8)
    rules = Rules(load_config(None).config.policy)
    first = rules.judge("a0.example", "/x", "", "some query")
    for i in range(40):  # the service keeps one Rules for every search it answers
        rules.judge(f"a{i}.example", "/x", "", f"query {i}")
    assert len(rules._hosts) <= 8 and len(rules._named) <= 8
    assert rules.judge("a0.example", "/x", "", "some query") == first  # same answer after


hosts = st.sampled_from(["medium.com", "www.amazon.com", "proxmox.com", "forum.proxmox.com",
                         "google.de", "merriam-webster.com", "github.com", "example.org"])
paths = st.sampled_from(["/", "", "/en/", "/search", "/shop/x", "/login.php", "/tag/a/",
                         "/dictionary/word", "/a/b/c", "/questions/1/x", "/s%2Fx/y", "//a//",
                         "/a/search.php", "/find/research.html", "/docs/x", "/a/b"])
queries = st.sampled_from(["", "q=x", "s=", "add-to-cart=1", "page=2&q=a", "page=2", "ref=home",
                           "x=%41", "a+b=1", "q=", "&&"])
titles = st.sampled_from([None, "", "Proxmox thin pool", "example.org is for sale",
                          "Welcome to nginx!", "Buy now", "Domain parked", "Ünïcode for sale",
                          "  spaced   for  sale ", "proxmox.com - coming soon", "Café"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.tuples(hosts, paths, queries, titles), max_size=16),
       st.sampled_from(["proxmox thin pool", "amazon", "define word", "buy shoes", ""]))
def test_judge_all_is_judge_of_each(found: list[tuple[str, str, str, str | None]],
                                    query: str) -> None:
    """Its fast path (a host's verdict again: a path no pattern can take, with a query
    string or without) against ``judge`` of each, on a fresh Rules."""
    from dataclasses import replace

    from tamis.pipeline.filter import query_intent
    from tamis.pipeline.rules import Rules
    from tamis.settings import load_config

    rules = Rules(load_config(None).config.policy)
    candidates = [replace(candidate(host, {"s:bing": 1}), host=host, path=path, query=q,
                          title=title) for host, path, q, title in found]
    intent = query_intent(candidates, rules, query)
    expected = [Rules(rules.policy).judge(c.host, c.path, c.query, query, intent, c.title)
                for c in candidates]
    assert rules.judge_all(candidates, query, intent) == expected


def test_kept_results_are_judged_as_the_class_makes_them() -> None:
    """filter_candidates sets a bare Judged's two fields: the same as Judged(candidate, verdict)."""
    from dataclasses import replace

    from tamis.pipeline.filter import Judged, filter_candidates, query_intent
    from tamis.pipeline.rules import Rules
    from tamis.settings import load_config

    rules = Rules(load_config(None).config.policy)
    candidates = [replace(candidate(f"h{i}.example", {"s:bing": i + 1}), path=f"/p/{i}")
                  for i in range(5)]
    kept, dropped = filter_candidates(candidates, rules, "some words")
    verdicts = rules.judge_all(candidates, "some words",
                               query_intent(candidates, rules, "some words"))
    assert not dropped and [type(j) for j in kept] == [Judged] * 5
    assert [repr(j) for j in kept] == [repr(Judged(c, v)) for c, v in zip(candidates, verdicts,
                                                                           strict=True)]


def test_query_drops_reads_each_query_string_once_but_each_url_its_own() -> None:
    """What a query string's keys say is kept per query string; the host and path of each
    URL still decide (a search key drops a search page, not an article)."""
    from tamis.pipeline.rules import Rules
    from tamis.settings import load_config

    rules = Rules(load_config(None).config.policy)
    asked = [("example.org", ["search"], "q=x"), ("example.org", ["blog", "post"], "q=x"),
             ("google.com", ["anything"], "q=x"), ("example.org", ["search.php"], "page=2"),
             ("example.org", ["blog"], "page=2"), ("example.org", ["blog"], "add-to-cart=1"),
             ("example.org", ["search"], "q=")]
    first = [rules.query_drops(*url) for url in asked]
    again = [rules.query_drops(*url) for url in asked]  # (from the memo)
    assert first == again == [True, False, True, True, False, True, False]
    fresh = [Rules(load_config(None).config.policy).query_drops(*url) for url in asked]
    assert fresh == first
