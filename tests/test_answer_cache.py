"""The ranked-answer cache: a repeat within the TTL is the stored answer (same JSON, every line
``cached: true``), without asking a line and without merge, filter or rank; anything that
changes the answer is a new key; answers a repeat would not reproduce are never stored."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply

import tamis.core
from tamis.core import Tamis
from tamis.models import SearchRequest, SearchResponse
from tamis.settings import load_config
from tamis.store import answers
from tamis.store.base import MemoryStore

DEMO = Path(tamis.core.__file__).parent / "demo"
QUERY = "proxmox thin pool metadata exhaustion recovery"


def recorded(query: str) -> dict[str, Any]:
    slug = "-".join(query.lower().split())
    return json.loads((DEMO / f"{slug}.json").read_text("utf-8"))


@pytest.fixture
def searxng() -> Iterator[LoopbackServer]:
    def answer(request: Any) -> Reply:
        query = request.arg("q")
        path = DEMO / f"{'-'.join(query.lower().split())}.json"
        return Reply(json=json.loads(path.read_text()) if path.exists() else {"results": []})

    with LoopbackServer() as server:
        server.route("/search", answer)
        yield server


def config(server: LoopbackServer, **overrides: Any):  # type: ignore[no-untyped-def]
    base: dict[str, Any] = {"store": {"url": "memory:"},
                            "backends": [{"name": "searxng", "base_url": server.url}]}
    return load_config(None, overrides={**base, **overrides}).config


def run(layer: Tamis, request: SearchRequest | str = QUERY, **options: Any) -> SearchResponse:
    """One search in its own event loop, through a new Tamis on the layer's config and store
    (as one CLI call after another)."""
    async def once() -> SearchResponse:
        async with Tamis(layer.config, store=layer.store) as fresh:
            return await fresh.search(request, **options)

    return asyncio.run(once())


def dumped(response: SearchResponse) -> dict[str, Any]:
    return response.model_dump(mode="json")


def test_a_repeat_is_the_stored_answer_without_asking_or_ranking(
        searxng: LoopbackServer, monkeypatch: pytest.MonkeyPatch) -> None:
    layer = Tamis(config(searxng))
    first = run(layer, explain=True, extract=False)
    assert len(searxng.seen) == 1 and first.status == "ok"

    def must_not_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the pipeline ran again for a cached answer")

    for stage in ("merge", "filter_candidates", "rank", "fan_out"):
        monkeypatch.setattr(tamis.core, stage, must_not_run)
    again = run(layer, explain=True, extract=False)
    assert len(searxng.seen) == 1
    expected = dumped(first)
    for line in expected["lines"]:
        line["cached"] = True
    assert dumped(again) == expected  # timing and all: the answer as first given


@pytest.fixture
def rankings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the ranking ran (once per search not answered from the cache)."""
    calls: list[int] = []
    real = tamis.core.rank

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(tamis.core, "rank", counted)
    return calls


def search_with(layer: Tamis, options: dict[str, Any]) -> SearchResponse:
    options = {"extract": False, **options}
    return run(layer, options.pop("request", QUERY), **options)


@pytest.mark.parametrize("second", [
    {"request": "proxmox thin pool metadata"},
    {"request": SearchRequest(query=QUERY, engines="bing")},
    {"request": SearchRequest(query=QUERY, time_range="year")},
    {"request": SearchRequest(query=QUERY, max_results=3)},
    {"request": SearchRequest(query=QUERY, exclude_domains=["vormox.com"])},
    {"explain": True},
    {"max_results": 2},
    {"extract": True, "budget": 0},
    {"budget": 5},
])
def test_what_changes_the_answer_changes_the_key(searxng: LoopbackServer, rankings: list[int],
                                                 second: dict[str, Any]) -> None:
    layer = Tamis(config(searxng))
    search_with(layer, {})
    search_with(layer, {"request": f"  {QUERY} "})  # the same query: the cached answer
    assert len(rankings) == 1
    search_with(layer, second)
    assert len(rankings) == 2
    search_with(layer, second)  # and that one is cached in turn
    assert len(rankings) == 2


def test_a_changed_config_is_a_new_key(searxng: LoopbackServer, rankings: list[int]) -> None:
    store = MemoryStore()
    plain = Tamis(config(searxng), store=store)
    params = Tamis(config(searxng, backends=[{"name": "searxng", "base_url": searxng.url,
                                              "params": {"engines": "google"}}]), store=store)
    policy = Tamis(config(searxng, policy={"demote_domains": {"add": ["proxmox.com"]}}),
                   store=store)
    assert len({plain.config_hash, params.config_hash, policy.config_hash}) == 3
    before = run(plain, extract=False)
    run(params, extract=False)
    after = run(policy, extract=False)
    assert len(rankings) == 3
    assert [r.url for r in after.results] != [r.url for r in before.results]
    assert [r.url for r in run(plain, extract=False).results] == [r.url for r in before.results]
    assert len(rankings) == 3  # the first config's answer is still there


def test_a_failed_line_is_asked_again(searxng: LoopbackServer) -> None:
    layer = Tamis(config(searxng, backends=[
        {"name": "searxng", "base_url": searxng.url},
        {"name": "broken", "type": "searxng", "base_url": searxng.url + "/nothing-here"}]))
    first = run(layer, extract=False)
    assert [line.status for line in first.lines] == ["ok", "failed"]
    run(layer, extract=False)
    assert len(searxng.requests_to("/nothing-here/search")) == 2  # not stored: asked again


def test_the_cache_off_means_every_search_runs(searxng: LoopbackServer) -> None:
    for cache in ({"enabled": False}, {"ttl_seconds": 0}):
        searxng.clear()
        layer = Tamis(config(searxng, cache=cache))
        assert layer.answer_key(QUERY, extract=False, explain=False) is None
        run(layer, extract=False)
        run(layer, extract=False)
        assert len(searxng.seen) == 2


def test_answers_expire_with_the_ttl(searxng: LoopbackServer) -> None:
    store = MemoryStore()
    layer = Tamis(config(searxng, cache={"ttl_seconds": 123}), store=store)
    run(layer, extract=False)
    key = layer.answer_key(QUERY, extract=False, explain=False)
    assert key is not None
    import time

    _value, expires = store._data[(answers.ANSWERS, key)]
    assert expires is not None and 120 < expires - time.time() <= 123


def test_a_broken_store_entry_is_a_miss(searxng: LoopbackServer) -> None:
    store = MemoryStore()
    layer = Tamis(config(searxng), store=store)
    key = layer.answer_key(QUERY, extract=False, explain=False)
    assert key is not None
    store.set(answers.ANSWERS, key, b"{not json")
    assert run(layer, extract=False).status == "ok"
    assert len(searxng.seen) == 1


def test_only_reproducible_answers_are_storable() -> None:
    ok = {"status": "ok", "extraction": {"failures": 0},
          "results": [{"extraction": "ok"}, {"extraction": "skipped"}]}
    assert answers.storable(ok, ["ok", "empty"], True, [])
    assert not answers.storable({**ok, "status": "failed"}, ["ok"], True, [])
    assert not answers.storable(ok, ["ok", "timeout"], True, [])
    assert not answers.storable(ok, ["ok"], False, [])  # a line that is never cached
    assert not answers.storable(ok, ["ok"], True, [{"kind": "cached", "message": "stale"}])
    assert not answers.storable({**ok, "extraction": {"failures": 1}}, ["ok"], True, [])
    assert not answers.storable({**ok, "results": [{"extraction": "failed:ReadTimeout"}]},
                                ["ok"], True, [])
    assert not answers.storable(ok, [], True, [])


def test_a_stored_answer_this_version_cannot_read_is_a_miss(searxng: LoopbackServer) -> None:
    store = MemoryStore()
    layer = Tamis(config(searxng), store=store)
    key = layer.answer_key(QUERY, extract=False, explain=False)
    assert key is not None
    answers.put(store, key, {"lines": [], "status": "ok", "unknown": "shape"}, 60)
    response = run(layer, extract=False)
    assert response.status == "ok" and len(searxng.seen) == 1
