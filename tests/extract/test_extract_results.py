"""extract_results end to end against the loopback page server."""

from __future__ import annotations

import pytest
from extract_support import (
    PageServer,
    article_html,
    article_of_size,
    page,
    paragraphs,
    result,
    run,
)

from tamis.extract import extract_results
from tamis.models import Result
from tamis.policy.schema import ExtractionConfig
from tamis.store.base import open_store


def extract(results: list[Result], config: ExtractionConfig, query: str = "alpha", **kw):
    return run(lambda client: extract_results(results, query, config, client=client, **kw))


def test_five_slow_pages_are_fetched_at_the_same_time(server: PageServer,
                                                      config: ExtractionConfig) -> None:
    urls = [server.add(f"/slow/{i}", article_of_size(1500, seed=i, title=f"Slow {i}"), delay=1.0)
            for i in range(5)]
    out, summary = extract([result(u, i + 1) for i, u in enumerate(urls)], config)
    assert [r.extraction for r in out] == ["ok"] * 5
    hits = [server.hits_for(f"/slow/{i}")[-1] for i in range(5)]
    # Server-side: the last request started before the first one ended, so all five were in
    # flight together (one after another, each would start after the previous ended).
    assert max(h.started for h in hits) < min(h.ended for h in hits)
    assert summary.extracted == 5 and summary.failures == 0


def test_arrival_order_does_not_change_the_excerpts(server: PageServer,
                                                    config: ExtractionConfig) -> None:
    sizes = [9000, 1200, 6000, 300, 4500]
    urls = [server.add(f"/order/{i}", article_of_size(size, seed=40 + i, title=f"Order {i}"))
            for i, size in enumerate(sizes)]
    results = [result(u, i + 1) for i, u in enumerate(urls)]
    runs = []
    for delays in ([0.5, 0.4, 0.3, 0.2, 0.1], [0.1, 0.2, 0.3, 0.4, 0.5]):
        for i, delay in enumerate(delays):
            server.routes[f"/order/{i}"].delay = delay
        out, summary = extract(results, config, query="alpha river")
        finished = sorted(range(5), key=lambda i: server.hits_for(f"/order/{i}")[-1].ended)
        runs.append(([(r.excerpt, r.extraction) for r in out], finished, summary.chars_used))
    assert runs[0][1] != runs[1][1]  # the pages really finished in different orders
    assert runs[0][0] == runs[1][0]  # and the excerpts are identical
    assert runs[0][2] == runs[1][2]


@pytest.mark.parametrize(("total", "per_item", "sizes"), [
    (12000, 4000, [9000, 1200, 6000, 300, 4500]),
    (3000, 4000, [5000, 5000, 5000, 5000, 5000]),
    (1000, 200, [800, 50, 5000]),
    (600, 4000, [5000, 5000, 5000, 5000]),
])
def test_budget_invariants_end_to_end(server: PageServer, total: int, per_item: int,
                                      sizes: list[int]) -> None:
    urls = [server.add(f"/budget/{total}/{i}", article_of_size(s, seed=i, title=f"B {i}"))
            for i, s in enumerate(sizes)]
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], total_chars=total,
                              per_item_chars=per_item, top_n=len(sizes))
    out, summary = extract([result(u, i + 1) for i, u in enumerate(urls)], config)
    assert sum(len(r.excerpt) for r in out) == summary.chars_used <= total
    for r in out:
        assert len(r.excerpt) <= per_item
        assert r.extraction in ("ok", "truncated", "skipped_budget_exhausted")
        assert (r.extraction == "skipped_budget_exhausted") == (r.excerpt == "")
    assert summary.budget == total


def test_small_budget_serves_the_best_ranks_first(server: PageServer) -> None:
    urls = [server.add(f"/exhaust/{i}", article_of_size(5000, seed=70 + i)) for i in range(4)]
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], total_chars=600)
    out, _ = extract([result(u, i + 1) for i, u in enumerate(urls)], config)
    assert [r.extraction for r in out] == ["truncated", "truncated",
                                           "skipped_budget_exhausted", "skipped_budget_exhausted"]


def test_results_past_top_n_are_skipped(server: PageServer) -> None:
    urls = [server.add(f"/topn/{i}", article_of_size(800, seed=90 + i)) for i in range(4)]
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], top_n=2)
    out, summary = extract([result(u, i + 1) for i, u in enumerate(urls)], config)
    assert [r.extraction for r in out] == ["ok", "ok", "skipped", "skipped"]
    assert not server.hits_for("/topn/2") and not server.hits_for("/topn/3")
    assert summary.extracted == 2


def test_bot_walls_are_blocked(server: PageServer, config: ExtractionConfig) -> None:
    walls = [
        server.add("/wall/cf-header", page("challenge.html"), status=403,
                   headers={"Content-Type": "text/html", "cf-mitigated": "challenge"}),
        server.add("/wall/just-a-moment-200", page("challenge.html")),
        server.add("/wall/attention", page("attention.html"), status=403),
        server.add("/wall/429", "<html><body><div class='g-recaptcha'></div></body></html>",
                   status=429),
    ]
    plain_403 = server.add("/wall/plain-403", "<html><body><h1>Forbidden</h1></body></html>",
                           status=403)
    results = [result(u, i + 1) for i, u in enumerate([*walls, plain_403])]
    config.top_n = 5
    out, summary = extract(results, config)
    assert [r.extraction for r in out] == ["blocked"] * 4 + ["failed:HTTP403"]
    assert all(r.excerpt == "" for r in out)
    assert all((r.extraction_detail or "").startswith("bot wall") for r in out[:4])
    assert summary.failures == 5


def test_a_near_copy_is_a_duplicate(server: PageServer, config: ExtractionConfig) -> None:
    paras = paragraphs(12, seed=5)
    original = server.add("/dup/original", article_html("Original story", paras))
    copy = server.add("/dup/copy", article_html(
        "Syndicated story", [*paras[:11], "Republished with permission from the original."]))
    other = server.add("/dup/other", article_html("Other story", paragraphs(12, seed=6)))
    out, summary = extract([result(original, 1), result(copy, 2), result(other, 3)], config)
    assert [r.extraction for r in out] == ["ok", "duplicate", "ok"]
    assert out[1].extraction_detail == original
    assert out[1].excerpt == ""
    assert summary.chars_used == len(out[0].excerpt) + len(out[2].excerpt)


def test_failures_are_kept_or_dropped(server: PageServer) -> None:
    good = server.add("/drop/good", article_of_size(800, seed=11))
    results = [result(server.url("/drop/missing"), 1), result(good, 2)]
    kept = ExtractionConfig(allow_private_hosts=["127.0.0.1"])
    out, summary = extract(results, kept)
    assert [r.extraction for r in out] == ["failed:HTTP404", "ok"]
    assert out[0].excerpt == "" and "404" in (out[0].extraction_detail or "")
    assert summary.failures == 1
    dropped = ExtractionConfig(allow_private_hosts=["127.0.0.1"], on_failure="drop")
    out, summary = extract(results, dropped)
    assert [r.url for r in out] == [good]
    assert summary.failures == 1


def test_one_deadline_for_all_pages(server: PageServer) -> None:
    fast = server.add("/deadline/fast", article_of_size(800, seed=12))
    slow = server.add("/deadline/slow", article_of_size(800, seed=13), delay=3)
    config = ExtractionConfig(allow_private_hosts=["127.0.0.1"], timeout_seconds=0.5)
    out, summary = extract([result(slow, 1), result(fast, 2)], config)
    assert [r.extraction for r in out] == ["failed:Timeout", "ok"]
    assert summary.seconds < 3


def test_empty_pages(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/empty", "<html><head><title>Nothing</title></head><body></body></html>")
    out, summary = extract([result(url, 1)], config)
    assert out[0].extraction == "empty" and summary.extracted == 0


def test_the_cache_keeps_full_text_so_budgets_can_change(server: PageServer) -> None:
    url = server.add("/cached", article_of_size(6000, seed=14))
    store = open_store("memory:")
    small = ExtractionConfig(allow_private_hosts=["127.0.0.1"], per_item_chars=500)
    large = ExtractionConfig(allow_private_hosts=["127.0.0.1"], per_item_chars=3000)
    first, _ = extract([result(url, 1)], small, store=store)
    second, _ = extract([result(url, 1)], large, store=store)
    assert len(server.hits_for("/cached")) == 1
    assert len(first[0].excerpt) <= 500 < len(second[0].excerpt) <= 3000
    extract([result(url, 1)], large, store=store, cache_ttl=0)  # cache off: asked again
    assert len(server.hits_for("/cached")) == 2
    from tamis.extract.cache import cache_key
    assert cache_key(url, "builtin") != cache_key(url, "firecrawl")


def test_results_are_new_objects_in_the_same_order(server: PageServer,
                                                   config: ExtractionConfig) -> None:
    url = server.add("/same-order", article_of_size(900, seed=15))
    results = [result(url, 1), result(server.url("/missing-2"), 2)]
    out, _ = extract(results, config)
    assert [r.rank for r in out] == [1, 2]
    assert results[0].extraction == "skipped" and results[0].excerpt == ""
    assert out[0] is not results[0]
