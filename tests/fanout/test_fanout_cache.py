"""The answer cache: same line, query and parameters within the TTL -> same answer, no call."""

from __future__ import annotations

import time

from loopback import Reply
from watched_store import WatchedStore

from tamis.backends.registry import make_adapter
from tamis.models import SearchRequest
from tamis.pipeline.fanout_store import CACHE_NAMESPACE, cache_key
from tamis.policy.schema import LineConfig
from tamis.store.base import MemoryStore
from tamis.store.sqlite import SQLiteStore

ANSWER = {"results": [{"title": "A", "url": "https://a.example/1", "content": "one"},
                      {"title": "B", "url": "https://b.example/2", "content": "two"}],
          "unresponsive_engines": []}


def line(server, name="web", **kw):
    kw.setdefault("search_path", "/s")
    return make_adapter(LineConfig(name=name, base_url=server.url, **kw))


def test_same_query_within_ttl_is_served_from_the_cache(server, run, tmp_path):
    server.route("/s", Reply(json=ANSWER))
    store = SQLiteStore(tmp_path / "s.sqlite3")
    [first] = run([line(server)], "q", store=store, cache_ttl=60)
    [second] = run([line(server)], "q", store=store, cache_ttl=60)
    assert len(server.seen) == 1
    assert (first.cached, second.cached) == (False, True)
    assert second.status == "ok"
    assert [h.model_dump() for h in second.hits] == [h.model_dump() for h in first.hits]
    assert second.notes == first.notes
    assert store.get(CACHE_NAMESPACE, cache_key(line(server), SearchRequest(query="q")))


def test_parameters_and_endpoint_are_part_of_the_key(server, run):
    server.route("/s", Reply(json=ANSWER))
    server.route("/t", Reply(json=ANSWER))
    store = MemoryStore()
    run([line(server)], "q", store=store, cache_ttl=60)
    run([line(server)], SearchRequest(query="q", time_range="day"), store=store, cache_ttl=60)
    run([line(server)], "other", store=store, cache_ttl=60)
    run([line(server, search_path="/t")], "q", store=store, cache_ttl=60)  # another endpoint
    run([line(server, name="web2")], "q", store=store, cache_ttl=60)
    assert len(server.seen) == 5
    # max_results is not a cache parameter, but the count a line asks for is.
    run([line(server)], SearchRequest(query="q", max_results=8), store=store, cache_ttl=60)
    assert len(server.seen) == 5
    run([line(server)], SearchRequest(query="q", max_results=20), store=store, cache_ttl=60)
    assert len(server.seen) == 6


def test_line_params_and_request_settings_are_part_of_the_key(server, run):
    """Changing engines: bing to google (or any setting that changes the request) within
    the TTL asks again; the weight, which does not change the request, does not."""
    server.route("/s", Reply(json=ANSWER))
    store = MemoryStore()
    variants = [{"params": {"engines": "bing"}}, {"params": {"engines": "google"}},
                {"params": {"engines": "google", "language": "de"}}, {"method": "GET"},
                {"query_param": "query"}, {"count_param": ""}, {"auth_style": "x-api-key"}]
    for settings in variants:
        [answer] = run([line(server, **settings)], "q", store=store, cache_ttl=60)
        assert not answer.cached, settings
    assert len(server.seen) == len(variants)
    [again] = run([line(server, params={"engines": "bing"}, weight=3)], "q", store=store,
                  cache_ttl=60)
    assert again.cached and len(server.seen) == len(variants)


def test_ttl_zero_disables_the_cache(server, run):
    server.route("/s", Reply(json=ANSWER))
    store = WatchedStore()
    for _ in range(2):
        [answer] = run([line(server)], "q", store=store, cache_ttl=0)
        assert not answer.cached
    assert len(server.seen) == 2 and store.entries(CACHE_NAMESPACE) == {}


def test_entries_expire(server, run):
    server.route("/s", Reply(json=ANSWER))
    store = MemoryStore()
    run([line(server)], "q", store=store, cache_ttl=0.2)
    time.sleep(0.3)
    [answer] = run([line(server)], "q", store=store, cache_ttl=0.2)
    assert not answer.cached and len(server.seen) == 2


def test_failures_are_never_cached_but_empty_answers_are(server, run):
    store = MemoryStore()
    server.route("/s", Reply(status=500))
    [failed] = run([line(server)], "q", store=store, cache_ttl=60)
    assert failed.status == "failed"
    server.route("/s", Reply(json={"results": []}))
    [empty] = run([line(server)], "q", store=store, cache_ttl=60)
    [again] = run([line(server)], "q", store=store, cache_ttl=60)
    assert (empty.status, empty.cached) == ("empty", False)
    assert (again.status, again.cached) == ("empty", True)
    assert len(server.seen) == 3  # the 500 and its one retry, then the empty answer


def test_a_stale_answer_stands_in_for_a_failed_line(server, run):
    store = MemoryStore()
    server.route("/s", Reply(json=ANSWER))
    [fresh] = run([line(server)], "q", store=store, cache_ttl=0.2)
    time.sleep(0.3)
    server.route("/s", Reply(status=503))
    [stale] = run([line(server)], "q", store=store, cache_ttl=0.2)
    assert (stale.status, stale.cached) == ("ok", True)
    assert stale.hits == fresh.hits
    kinds = [n.kind for n in stale.notes]
    assert kinds == ["line_failed", "cached"]
    assert stale.notes[1].message.startswith("stale answer from cache (")
    assert "(after one retry)" in stale.notes[0].message


def test_no_store_no_cache(server, run):
    server.route("/s", Reply(json=ANSWER))
    for _ in range(2):
        run([line(server)], "q", store=None, cache_ttl=60)
    assert len(server.seen) == 2


def test_a_failing_store_is_a_note_not_a_failure(server, run):
    class Broken(MemoryStore):
        def get(self, namespace, key):
            raise OSError("disk gone")

    server.route("/s", Reply(json=ANSWER))
    [answer] = run([line(server)], "q", store=Broken(), cache_ttl=60)
    assert answer.status == "ok" and len(answer.hits) == 2
    assert answer.notes[-1].kind == "info"
    assert "store unavailable (OSError: disk gone)" in answer.notes[-1].message


def test_a_keyless_line_retries_once_after_a_server_error(server, run):
    replies = iter([Reply(status=502), Reply(json=ANSWER)])
    server.route("/s", lambda seen: next(replies))
    [answer] = run([line(server)], "q", store=MemoryStore(), cache_ttl=0)
    assert answer.status == "ok" and len(server.seen) == 2
    assert [n.message for n in answer.notes] == [
        "answered on a retry after: HTTP 502: server error"]
