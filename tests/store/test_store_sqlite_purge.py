"""The SQLite store's purge of expired entries: it removes what expired, keeps the rest, and
goes through the ``expires`` index, not a scan of every value (the scan grew with the store
and stalled the service's writes)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from tamis.store.sqlite import PURGE, PURGE_EVERY, SCHEMA, SQLiteStore


def rows(path: Path) -> set[tuple[str, str]]:
    with sqlite3.connect(path) as db:
        return set(db.execute("SELECT namespace, key FROM kv"))


def test_the_purge_removes_expired_entries_and_keeps_live_ones(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    store = SQLiteStore(path)
    store.set("answer", "gone", b"x" * 20_000, ttl=-1)  # already expired
    store.set("answer", "kept", b"y" * 20_000, ttl=600)
    store.set("rest", "forever", b"z")  # no expiry
    for i in range(PURGE_EVERY - 3):
        store.set("line", f"k{i}", b"v", ttl=600)
    store.close()
    left = rows(path)
    assert ("answer", "gone") not in left
    assert {("answer", "kept"), ("rest", "forever")} <= left
    assert len(left) == PURGE_EVERY - 1


def test_the_purge_uses_the_expires_index(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    SQLiteStore(path).close()
    with sqlite3.connect(path) as db:
        plan = " ".join(str(row[-1]) for row in db.execute(f"EXPLAIN QUERY PLAN {PURGE}", (0.0,)))
    assert "kv_expires" in plan, plan


def test_a_store_made_without_the_index_gets_it_when_opened(tmp_path: Path):
    path = tmp_path / "store.sqlite3"
    with sqlite3.connect(path) as db:  # as an older version made it
        db.execute(SCHEMA)
        db.execute("INSERT INTO kv VALUES ('ns', 'k', x'76', NULL)")
    store = SQLiteStore(path)
    assert store.get("ns", "k") == b"v"
    store.close()
    with sqlite3.connect(path) as db:
        names = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "kv_expires" in names
