"""The SQLite store writes in its own thread (issue 13): a write never waits in the caller's
thread for another process's lock (the service's event loop slept in SQLite's busy handler),
this process reads its own writes at once, ``written``/``flush`` say when every other process
sees them, and nothing is lost: not at close, not at the interpreter's exit."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tamis.store import sqlite as sqlite_store
from tamis.store.sqlite import SQLiteStore

WAIT = 30  # seconds a step may take on a loaded machine before it counts as stuck


@pytest.fixture
def held(tmp_path: Path) -> Iterator[tuple[Path, sqlite3.Connection]]:
    """A store file whose write lock another connection (as another process would) holds."""
    path = tmp_path / "store.sqlite3"
    SQLiteStore(path).close()  # the file, in WAL mode, with its table
    other = sqlite3.connect(str(path), isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    yield path, other
    if other.in_transaction:
        other.execute("ROLLBACK")
    other.close()


def test_a_write_returns_while_another_process_holds_the_lock(held) -> None:
    path, other = held
    other.execute("ROLLBACK")
    first = SQLiteStore(path)
    first.set("ns", "old", b"before")
    first.close()
    store = SQLiteStore(path)
    other.execute("BEGIN IMMEDIATE")  # another process takes the write lock

    returned = threading.Event()

    def write() -> None:
        store.set("ns", "k", b"v", ttl=60)
        returned.set()

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    # Before: set() slept in SQLite's busy handler until the lock was free (10 s at most).
    assert returned.wait(5), "set() waited for another process's write lock"
    # this process reads its write at once, and its committed entries too
    assert store.get("ns", "k") == b"v"
    assert store.get("ns", "old") == b"before"
    pending = store.written()
    assert pending is not None  # not committed yet: the lock is still held
    assert SQLiteStore(path).get("ns", "k") is None

    other.execute("ROLLBACK")  # the lock is free: the writer commits
    pending.result()
    assert SQLiteStore(path).get("ns", "k") == b"v"  # what another process sees
    assert store.written() is None  # nothing left to wait for
    store.close()


def test_written_calls_back_once_committed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    assert store.written() is None  # nothing written yet
    store.set("ns", "a", b"1")
    store.delete("ns", "gone")
    called = threading.Event()
    pending = store.written()
    assert pending is not None
    pending.add_done_callback(lambda _: called.set())
    assert called.wait(WAIT)
    seen: list[int] = []
    pending.add_done_callback(lambda _: seen.append(1))  # done already: called at once
    assert seen == [1]
    assert SQLiteStore(tmp_path / "s.sqlite3").get("ns", "a") == b"1"
    store.close()


def test_a_delete_is_read_at_once_and_committed(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    store.set("ns", "k", b"v")
    store.flush()
    store.delete("ns", "k")
    assert store.get("ns", "k") is None
    store.flush()
    assert SQLiteStore(tmp_path / "s.sqlite3").get("ns", "k") is None
    store.close()


def test_close_writes_what_was_queued_and_later_writes_fail(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    for i in range(300):
        store.set("ns", str(i), str(i).encode(), ttl=600)
    store.close()
    store.close()  # twice is fine
    again = SQLiteStore(tmp_path / "s.sqlite3")
    assert [again.get("ns", str(i)) for i in range(300)] == [str(i).encode()
                                                           for i in range(300)]
    again.close()
    with pytest.raises(sqlite3.ProgrammingError):
        store.set("ns", "late", b"x")


def test_a_store_left_open_is_written_when_the_interpreter_exits(tmp_path: Path) -> None:
    """A CLI call's answers are stored though nothing closes its store."""
    path = tmp_path / "s.sqlite3"
    child = textwrap.dedent("""
        import sys
        from pathlib import Path
        from tamis.store.sqlite import SQLiteStore
        store = SQLiteStore(Path(sys.argv[1]))
        for i in range(500):
            store.set("answer", str(i), b"x" * 4000, ttl=600)
    """)
    subprocess.run([sys.executable, "-c", child, str(path)], check=True, timeout=120)
    store = SQLiteStore(path)
    assert all(store.get("answer", str(i)) == b"x" * 4000 for i in range(500))
    store.close()


def test_a_write_that_cannot_be_made_is_said_on_the_next_one(held, monkeypatch) -> None:
    """Past the busy timeout the write is dropped (as a failing write was before), and the
    next write or flush raises SQLite's error (``GuardedStore`` notes it once)."""
    path, other = held
    monkeypatch.setattr(sqlite_store, "BUSY_TIMEOUT", 0.05)
    store = SQLiteStore(path)
    store.set("ns", "k", b"v")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        store.flush()
    assert store.get("ns", "k") is None  # not written, not pretended
    other.execute("ROLLBACK")
    store.set("ns", "k", b"v")  # the failure was said once
    store.flush()
    assert SQLiteStore(path).get("ns", "k") == b"v"
    store.close()


def test_incr_counts_in_the_writer_and_sees_queued_writes_in_order(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path / "s.sqlite3")
    other = SQLiteStore(tmp_path / "s.sqlite3")
    assert [store.incr("rl", "a", 60) for _ in range(3)] == [1, 2, 3]
    assert other.incr("rl", "a", 60) == 4  # shared by processes
    store.set("rl", "b", b"41", ttl=60)
    assert store.incr("rl", "b", 60) == 42  # the queued write went first
    store.close()
    other.close()
