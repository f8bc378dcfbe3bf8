"""Every store (memory, SQLite, Redis) behaves the same: namespaces, expiry, delete, scan."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tamis.errors import ConfigError
from tamis.store.base import MemoryStore, Store, open_store
from tamis.store.sqlite import SQLiteStore


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis",
                                                         marks=pytest.mark.needs_program)])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    if request.param == "memory":
        s: Store = MemoryStore()
    elif request.param == "sqlite":
        s = SQLiteStore(tmp_path / "store.sqlite3")
    else:
        s = open_store(request.getfixturevalue("redis_store_url"))
    yield s
    s.close()


def test_get_set_delete(store: Store):
    assert store.get("ns", "k") is None
    store.set("ns", "k", b"v1")
    store.set("ns", "k", b"v2")
    assert store.get("ns", "k") == b"v2"
    assert store.get("other", "k") is None
    store.delete("ns", "k")
    store.delete("ns", "missing")
    assert store.get("ns", "k") is None


def test_expiry(store: Store):
    store.set("ns", "short", b"x", ttl=0.15)
    store.set("ns", "long", b"y", ttl=60)
    store.set("ns", "forever", b"z")
    assert store.get("ns", "short") == b"x"
    time.sleep(0.3)
    assert store.get("ns", "short") is None
    assert (store.get("ns", "long"), store.get("ns", "forever")) == (b"y", b"z")


def test_namespaces_are_apart_and_odd_keys_kept(store: Store):
    store.set("rest", "tavily/TAVILY_KEY_1", b"1", ttl=60)
    store.set("rest", "a*b?[c]", b"2")
    store.set("rest2", "x", b"3")
    store.set("re", "st:y", b"4")
    assert [store.get("rest", k) for k in ("tavily/TAVILY_KEY_1", "a*b?[c]", "x", "st:y")] == [
        b"1", b"2", None, None]
    assert (store.get("rest2", "x"), store.get("re", "st:y"), store.get("res", "t:y")) == (
        b"3", b"4", None)


def test_binary_values(store: Store):
    value = bytes(range(256))
    store.set("ns", "bin", value)
    assert store.get("ns", "bin") == value


@pytest.mark.needs_program
def test_redis_keys_are_prefixed_and_expire_in_redis(redis_store_url: str):
    import redis

    store = open_store(redis_store_url)
    store.set("rest", "tavily/K", b"v", ttl=30)
    client = redis.Redis.from_url(redis_store_url)
    assert client.exists("tamis:rest:tavily/K")
    assert 29_000 < client.pttl("tamis:rest:tavily/K") <= 30_000
    store.set("rest", "gone", b"v", ttl=0)
    assert store.get("rest", "gone") is None
    client.close()
    store.close()


def test_unreachable_redis_is_one_clear_line_without_the_password():
    with pytest.raises(ConfigError) as info:
        open_store("redis://:hunter2secret@127.0.0.1:1/0")
    message = str(info.value)
    assert message.startswith("store redis://:***@127.0.0.1:1/0: cannot reach Redis")
    assert "hunter2secret" not in message and "\n" not in message


@pytest.mark.needs_program
def test_redis_going_away_mid_use_is_a_config_error(redis_url: str):
    from tamis.store.redis import RedisStore

    store = RedisStore(redis_url)
    store.set("ns", "k", b"v")
    # The server "goes away": the client now points at a port nobody listens on.
    store._pool, store._redis = RedisStore._connect("redis://127.0.0.1:1/0")
    with pytest.raises(ConfigError, match=r"^store redis://127\.0\.0\.1:\d+/0: cannot reach"):
        store.get("ns", "k")
    store.close()


def test_open_store_routes_urls(tmp_path: Path):
    assert isinstance(open_store("memory:"), MemoryStore)
    sqlite = open_store(str(tmp_path / "x.sqlite3"))
    assert isinstance(sqlite, SQLiteStore)
    sqlite.close()
    with pytest.raises(ConfigError, match="unsupported scheme"):
        open_store("mongodb://x")
