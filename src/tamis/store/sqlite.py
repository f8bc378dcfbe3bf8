"""SQLite store: embedded, the default. WAL mode so several processes can share one file.

Writes never wait in the caller's thread: ``set`` and ``delete`` hand the write to one
writer thread (its own connection), which commits whatever has queued in one transaction,
and answer from memory until it is committed (this process reads its own writes at once).
Before, each write was its own transaction on the caller's thread, the event loop's in
``tamis serve``: with two workers on one file it waited for the other's write lock
(SQLite's busy handler sleeps 1, 2, 5, 10 ms...) and for the checkpoints' fdatasync, and
every read waited behind it on the shared connection. ``written()`` is a future done once
every write made so far is committed (visible to every other process): the service waits
for it, without blocking its loop, before it answers, so a repeat asked of another worker
finds the answer. ``flush`` waits for it in the caller's thread; ``close`` flushes, and so
does the interpreter's exit for a store left open. Reads use their own connection: in WAL a
reader never waits for a writer. ``incr`` (rate limits) runs in the writer thread and is
waited for: its caller needs the count.

Expired entries are purged every ``PURGE_EVERY`` writes, through an index on ``expires``:
without it the purge read every row's value (``expires`` is stored after it, past the
value's overflow pages), a whole-file scan that grew with the store and stalled the
writer (46 ms CPU and 150 ms wall at 8,000 answers of 11 kB, on this machine).
"""

from __future__ import annotations

import os
import queue
import sqlite3
import threading
import time
import weakref
from typing import TYPE_CHECKING, Any

from tamis.errors import ConfigError
from tamis.store.writes import wrote

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable
    from concurrent.futures import Future

SCHEMA = """
CREATE TABLE IF NOT EXISTS kv (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    value BLOB NOT NULL,
    expires REAL,
    PRIMARY KEY (namespace, key)
)
"""
EXPIRES_INDEX = "CREATE INDEX IF NOT EXISTS kv_expires ON kv (expires)"
PURGE = "DELETE FROM kv WHERE expires IS NOT NULL AND expires <= ?"
PUT = "INSERT OR REPLACE INTO kv (namespace, key, value, expires) VALUES (?, ?, ?, ?)"
DROP = "DELETE FROM kv WHERE namespace=? AND key=?"
READ = "SELECT value, expires FROM kv WHERE namespace=? AND key=?"
PURGE_EVERY = 500  # writes
BUSY_TIMEOUT = 10  # seconds a connection waits for another process's lock
_STOP = object()

# A write not committed yet: (value, expires); value None is a delete.
Pending = tuple[bytes | None, float | None]


def _connect(path: str) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT, check_same_thread=False,
                         isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except BaseException:
        db.close()
        raise
    return db


class SQLiteStore:
    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = path = os.fspath(path)  # a string: a CLI repeat never imports pathlib
        try:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
            self._db = _connect(path)
            self._db.execute(SCHEMA)
            self._db.execute(EXPIRES_INDEX)  # a store made by an older version gets it too
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(f"store {path}: cannot open SQLite store: {exc}") from None
        self._lock = threading.Lock()  # the reading connection, the pending writes
        self._pending: dict[tuple[str, str], Pending] = {}
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._writer: threading.Thread | None = None
        self._stop_writer: weakref.finalize | None = None
        self._failure: BaseException | None = None  # a batch that could not be written
        self._closed = False

    # -- reads: this process's own writes first, then the file -----------------------------
    def get(self, namespace: str, key: str) -> bytes | None:
        with self._lock:
            pending = self._pending.get((namespace, key))
            if pending is None:
                row = self._db.execute(READ, (namespace, key)).fetchone()
            else:
                row = None if pending[0] is None else pending
        if row is None:
            return None
        value, expires = row
        if expires is not None and expires <= time.time():
            return None
        return bytes(value)

    # -- writes: queued for the writer thread -------------------------------------------
    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None:
        self._enqueue((namespace, key), (bytes(value), None if ttl is None else time.time() + ttl))

    def delete(self, namespace: str, key: str) -> None:
        self._enqueue((namespace, key), (None, None))

    def _enqueue(self, where: tuple[str, str], entry: Pending) -> None:
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            self._pending[where] = entry
            self._start()
            self._queue.put((where, entry))
        wrote(self)
        self._raise_failure()  # an earlier batch's, said once (this write is queued)

    def incr(self, namespace: str, key: str, ttl: float) -> int:
        from concurrent.futures import Future  # not at import: a CLI repeat never writes

        done: Future[int] = Future()
        with self._lock:
            if self._closed:
                raise sqlite3.ProgrammingError("Cannot operate on a closed database.")
            self._start()
            self._queue.put(("incr", namespace, key, ttl, done))
        return done.result()

    def written(self) -> Future[None] | None:
        """Done when every write made so far is committed; None when none is pending."""
        from concurrent.futures import Future

        with self._lock:
            if not self._pending or self._writer is None:
                return None
            done: Future[None] = Future()
            self._queue.put(("written", done))
            return done

    def flush(self) -> None:
        """Wait until every write made so far is committed; raise what stopped one."""
        done = self.written()
        if done is not None:
            done.result()
        self._raise_failure()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            stop = self._stop_writer
        if stop is not None:
            stop()  # what was queued is written first
        with self._lock:
            self._db.close()

    # -- the writer thread -----------------------------------------------------------------
    def _start(self) -> None:
        """Start the writer on the first write (under ``_lock``)."""
        if self._writer is not None:
            return
        self._writer = threading.Thread(target=_Writer(weakref.ref(self), self.path).run,
                                        args=(self._queue,), name="tamis-sqlite-writer",
                                        daemon=True)
        self._writer.start()
        # Runs once: at close, when the store is collected, or when the interpreter exits
        # (a CLI call's answers are written before it ends).
        self._stop_writer = weakref.finalize(self, _stop, self._queue, self._writer)

    def _raise_failure(self) -> None:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    def _committed(self, batch: list[tuple[tuple[str, str], Pending]],
                   failure: BaseException | None) -> None:
        """Forget the pending writes a batch held (unless written again since)."""
        with self._lock:
            for where, entry in batch:
                if self._pending.get(where) is entry:
                    del self._pending[where]
            if failure is not None:
                self._failure = failure


class _Writer:
    """The writer thread's side: its own connection (made again after a failure to open
    it), the writes counted for the purge."""

    def __init__(self, owner: weakref.ref[SQLiteStore], path: str) -> None:
        self.owner, self.path = owner, path
        self.db: sqlite3.Connection | None = None
        self.writes = 0

    def run(self, jobs: queue.SimpleQueue[Any]) -> None:
        """Take what has queued, write it in one transaction, tell who waits; until _STOP."""
        try:
            while True:
                items = [jobs.get()]
                while True:
                    try:
                        items.append(jobs.get_nowait())
                    except queue.Empty:
                        break
                batch: list[tuple[tuple[str, str], Pending]] = []
                waiting: list[Future[None]] = []
                stop = False
                for item in items:
                    if item is _STOP:
                        stop = True
                    elif item[0] == "written":
                        waiting.append(item[1])
                    elif item[0] == "incr":
                        self.commit(batch)
                        batch = []
                        self.incr(*item[1:])
                    else:
                        batch.append(item)
                self.commit(batch)
                for done in waiting:
                    _settle(done, lambda: None)
                if stop:
                    return
        finally:
            if self.db is not None:
                self.db.close()

    def transaction(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        if self.db is None:
            self.db = _connect(self.path)
        db = self.db
        db.execute("BEGIN IMMEDIATE")
        try:
            done = work(db)
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        return done

    def commit(self, batch: list[tuple[tuple[str, str], Pending]]) -> None:
        if not batch:
            return

        def write(db: sqlite3.Connection) -> None:
            for (namespace, key), (value, expires) in batch:
                if value is None:
                    db.execute(DROP, (namespace, key))
                else:
                    db.execute(PUT, (namespace, key, value, expires))
            if self.writes // PURGE_EVERY != (self.writes + len(batch)) // PURGE_EVERY:
                db.execute(PURGE, (time.time(),))

        failure: BaseException | None = None
        try:
            self.transaction(write)
        except Exception as exc:
            failure = exc  # the writes are dropped; the next write raises it (GuardedStore)
        self.writes += len(batch)
        store = self.owner()
        if store is not None:
            store._committed(batch, failure)

    def incr(self, namespace: str, key: str, ttl: float, done: Future[int]) -> None:
        now = time.time()

        def count(db: sqlite3.Connection) -> int:
            row = db.execute(READ, (namespace, key)).fetchone()
            if row is None or (row[1] is not None and row[1] <= now):
                count, expires = 1, now + ttl
            else:
                count, expires = int(bytes(row[0])) + 1, row[1]
            db.execute(PUT, (namespace, key, str(count).encode(), expires))
            return count

        _settle(done, lambda: self.transaction(count))


def _settle(done: Future[Any], work: Callable[[], Any]) -> None:
    """``done`` given what ``work()`` returns or raises, unless its waiter cancelled it (a
    request that went away: ``asyncio.wrap_future`` cancels what it waited for)."""
    if not done.set_running_or_notify_cancel():
        return
    try:
        done.set_result(work())
    except Exception as exc:
        done.set_exception(exc)


def _stop(jobs: queue.SimpleQueue[Any], writer: threading.Thread) -> None:
    jobs.put(_STOP)
    if writer is not threading.current_thread():  # collected on the writer's own thread:
        writer.join()  # it stops at _STOP, after what was queued
