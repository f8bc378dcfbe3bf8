"""Key pools: strategies, rests after failures, failover inside the same request, and lines
whose keys all rest."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from loopback import Reply, Seen
from watched_store import WatchedStore

from tamis.backends.keys import REST_NAMESPACE, read_rest
from tamis.backends.registry import make_adapter
from tamis.policy.schema import LineConfig
from tamis.store.base import MemoryStore

KEYS = {"TAVILY_KEY_A": "key-a-111111", "TAVILY_KEY_B": "key-b-222222",
        "TAVILY_KEY_C": "key-c-333333"}
BY_VALUE = {v: k for k, v in KEYS.items()}
OK = {"results": [{"title": "T", "url": "https://t.example/", "content": "c"}]}


class Clock:
    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


def keyed(status_by_env: dict[str, int]) -> Any:
    """A route answering by the key it was sent: a status per env name, 200 otherwise."""

    def reply(seen: Seen) -> Reply:
        env = BY_VALUE.get((seen.header("authorization") or "").removeprefix("Bearer "))
        status = status_by_env.get(env or "", 200)
        return Reply(status=status, json=OK if status == 200 else {"error": "no"})

    return reply


def used(server: Any) -> list[str]:
    """The env names of the keys the server received, in order."""
    return [BY_VALUE.get((s.header("authorization") or "").removeprefix("Bearer "), "?")
            for s in server.seen]


def tavily(server: Any, envs: list[str], **kw: Any) -> Any:
    return make_adapter(LineConfig(name="tavily", base_url=server.url, credentials=envs, **kw))


def test_429_rests_that_key_an_hour_and_the_next_key_answers_in_the_same_request(server, run):
    server.route("/search", keyed({"TAVILY_KEY_A": 429}))
    store, clock = MemoryStore(), Clock()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B"])
    [answer] = run([adapter], env=KEYS, store=store, now=clock)
    assert answer.status == "ok" and len(answer.hits) == 1
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_B"]
    [note] = answer.notes
    assert note.kind == "key_rested"
    assert note.message.startswith("TAVILY_KEY_A rests until 2027-01-15 09:00:00Z after HTTP 429")
    assert note.message.endswith("trying the next key")
    rest = read_rest(store, "tavily", "TAVILY_KEY_A", clock())
    assert rest is not None and rest.until == clock() + 3600
    # The next request goes straight to B: A still rests.
    server.clear()
    [again] = run([adapter], env=KEYS, store=store, now=clock)
    assert again.status == "ok" and again.notes == []
    assert used(server) == ["TAVILY_KEY_B"]
    # An hour later A is back (fill_first: first again).
    clock.t += 3601
    server.route("/search", keyed({}))
    server.clear()
    run([adapter], env=KEYS, store=store, now=clock)
    assert used(server) == ["TAVILY_KEY_A"]


@pytest.mark.parametrize(("status", "seconds"), [(401, 300), (403, 300), (500, 300),
                                                 (503, 300), (429, 3600)])
def test_rest_durations(server, run, status, seconds):
    server.route("/search", keyed({"TAVILY_KEY_A": status}))
    store, clock = MemoryStore(), Clock()
    [answer] = run([tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B"])], env=KEYS,
                   store=store, now=clock)
    assert answer.status == "ok"
    rest = read_rest(store, "tavily", "TAVILY_KEY_A", clock())
    assert rest is not None and rest.until - clock() == seconds
    assert rest.reason.startswith(f"HTTP {status}")


def test_a_client_error_other_than_auth_does_not_rest_or_fail_over(server, run):
    server.route("/search", keyed({"TAVILY_KEY_A": 400}))
    store = WatchedStore()
    [answer] = run([tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B"])], env=KEYS, store=store)
    assert answer.status == "failed" and answer.notes[0].message == "HTTP 400"
    assert used(server) == ["TAVILY_KEY_A"]
    assert store.entries(REST_NAMESPACE) == {}


def test_a_sole_key_rests_one_minute_then_the_line_has_no_key(server, run):
    server.route("/search", keyed({"TAVILY_KEY_A": 429}))
    store, clock = MemoryStore(), Clock()
    adapter = tavily(server, ["TAVILY_KEY_A"])
    [answer] = run([adapter], env=KEYS, store=store, now=clock)
    assert answer.status == "failed"
    assert [n.kind for n in answer.notes] == ["key_rested", "line_failed"]
    assert answer.notes[1].message == "HTTP 429: rate limited"
    rest = read_rest(store, "tavily", "TAVILY_KEY_A", clock())
    assert rest is not None and rest.until - clock() == 60
    server.clear()
    [resting] = run([adapter], env=KEYS, store=store, now=clock)
    assert resting.status == "no_key" and server.seen == []
    [note] = resting.notes
    assert note.kind == "no_usable_key"
    assert note.message == ("no usable key: TAVILY_KEY_A rests until 2027-01-15 08:01:00Z"
                            " after HTTP 429: rate limited")
    clock.t += 61
    run([adapter], env=KEYS, store=store, now=clock)
    assert used(server) == ["TAVILY_KEY_A"]


def test_all_keys_resting_is_no_key_naming_every_variable(server, run):
    server.route("/search", keyed({"TAVILY_KEY_A": 401, "TAVILY_KEY_B": 503}))
    store, clock = MemoryStore(), Clock()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"])
    env = {k: v for k, v in KEYS.items() if k != "TAVILY_KEY_C"}
    [first] = run([adapter], env=env, store=store, now=clock)
    assert first.status == "failed"
    assert [n.kind for n in first.notes] == ["key_rested", "key_rested", "line_failed"]
    assert first.notes[-1].message == ("all 2 usable keys failed; last: HTTP 503: server"
                                       " error")
    [second] = run([adapter], env=env, store=store, now=clock)
    assert second.status == "no_key"
    message = second.notes[0].message
    assert "TAVILY_KEY_A rests until 2027-01-15 08:05:00Z after HTTP 401" in message
    assert "TAVILY_KEY_B rests until 2027-01-15 08:05:00Z after HTTP 503" in message
    assert "TAVILY_KEY_C is not set" in message
    assert not any(v in message for v in KEYS.values())


def test_connection_errors_rest_keys(run):
    store, clock = MemoryStore(), Clock()
    adapter = make_adapter(LineConfig(name="tavily", base_url="http://127.0.0.1:9",
                                      credentials=["TAVILY_KEY_A", "TAVILY_KEY_B"]))
    [answer] = run([adapter], env=KEYS, store=store, now=clock)
    assert answer.status == "failed"
    assert [n.kind for n in answer.notes] == ["key_rested", "key_rested", "line_failed"]
    for env in ("TAVILY_KEY_A", "TAVILY_KEY_B"):
        rest = read_rest(store, "tavily", env, clock())
        assert rest is not None and rest.until - clock() == 300
        assert rest.reason.startswith("cannot connect: ConnectError")


def test_fill_first_always_uses_the_first_usable_key(server, run):
    server.route("/search", keyed({}))
    store = MemoryStore()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"])
    for _ in range(4):
        run([adapter], env=KEYS, store=store)
    assert used(server) == ["TAVILY_KEY_A"] * 4


def test_unset_keys_are_skipped(server, run):
    server.route("/search", keyed({}))
    env = {"TAVILY_KEY_B": KEYS["TAVILY_KEY_B"]}
    [answer] = run([tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B"])], env=env)
    assert answer.status == "ok" and used(server) == ["TAVILY_KEY_B"]


def test_round_robin_rotates_with_state_in_the_store(server, run):
    server.route("/search", keyed({}))
    store = MemoryStore()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"],
                     pool_strategy="round_robin")
    for _ in range(6):
        run([adapter], env=KEYS, store=store)
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"] * 2
    assert store.get("rotation", "tavily") == b"6"


def test_round_robin_skips_a_resting_key_and_fails_over(server, run):
    server.route("/search", keyed({"TAVILY_KEY_B": 429}))
    store = MemoryStore()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"],
                     pool_strategy="round_robin")
    for _ in range(4):
        run([adapter], env=KEYS, store=store)
    # turn 0: A; turn 1: B (429, rests) -> C; turn 2: C; turn 3: A.
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C", "TAVILY_KEY_C",
                            "TAVILY_KEY_A"]


def test_random_spreads_over_every_key(server, run):
    server.route("/search", keyed({}))
    store = MemoryStore()
    adapter = tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B", "TAVILY_KEY_C"],
                     pool_strategy="random")
    rng = random.Random(7)
    for _ in range(30):
        run([adapter], env=KEYS, store=store, rng=rng)
    counts = Counter(used(server))
    assert set(counts) == set(KEYS) and min(counts.values()) >= 4


def test_section_strategy_applies_and_the_line_strategy_wins(server, run):
    server.route("/search", keyed({}))
    envs = ["TAVILY_KEY_A", "TAVILY_KEY_B"]
    section = make_adapter(LineConfig(name="tavily", base_url=server.url, credentials=envs),
                           pool_strategy="round_robin")
    store = MemoryStore()
    for _ in range(2):
        run([section], env=KEYS, store=store)
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_B"]
    server.clear()
    line_wins = make_adapter(LineConfig(name="tavily", base_url=server.url, credentials=envs,
                                        pool_strategy="fill_first"),
                             pool_strategy="round_robin")
    for _ in range(2):
        run([line_wins], env=KEYS, store=MemoryStore())
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_A"]
    server.clear()
    # With no strategy from make_adapter, the context's section-level default applies.
    plain = tavily(server, envs)
    store = MemoryStore()
    for _ in range(2):
        run([plain], env=KEYS, store=store, pool_strategy="round_robin")
    assert used(server) == ["TAVILY_KEY_A", "TAVILY_KEY_B"]


def test_rest_entries_carry_until_and_reason_with_a_ttl(server, run):
    server.route("/search", keyed({"TAVILY_KEY_A": 429}))
    store = WatchedStore()
    run([tavily(server, ["TAVILY_KEY_A", "TAVILY_KEY_B"])], env=KEYS, store=store)
    entries = store.entries(REST_NAMESPACE)
    assert list(entries) == ["tavily/TAVILY_KEY_A"]
    data = json.loads(entries["tavily/TAVILY_KEY_A"])
    assert set(data) == {"until", "reason"}
    _, expires = store._data[(REST_NAMESPACE, "tavily/TAVILY_KEY_A")]
    assert expires is not None and 3590 < expires - data["until"] + 3600 <= 3610
