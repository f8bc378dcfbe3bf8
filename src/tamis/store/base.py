"""The store interface and the function that opens the right implementation for a URL."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol, runtime_checkable

from tamis.errors import ConfigError


class Written(Protocol):
    """Done once the writes made before it are visible to other processes."""

    def wait(self) -> None: ...

    def add_done_callback(self, callback: Callable[[], object]) -> None:
        """Call ``callback`` (in any thread) once done; at once when done already."""
        ...


@runtime_checkable
class Store(Protocol):
    """A namespaced key-value store with per-entry expiry (seconds; None = no expiry)."""

    def get(self, namespace: str, key: str) -> bytes | None: ...

    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None: ...

    def delete(self, namespace: str, key: str) -> None: ...

    def incr(self, namespace: str, key: str, ttl: float) -> int:
        """Add one to a counter and return it; a new counter expires after ``ttl`` seconds
        (fixed-window rate limits shared by every process on the store)."""
        ...

    def written(self) -> Written | None:
        """Done once every write made so far is visible to other processes; None
        when that is so already (a store that writes in the caller's thread)."""
        ...

    def flush(self) -> None:
        """Wait until every write made so far is visible to other processes."""
        ...

    def close(self) -> None:
        """Flush, then close."""
        ...


class MemoryStore:
    """In-process store: for tests and for callers that want no state on disk."""

    def __init__(self) -> None:
        self._data: dict[tuple[str, str], tuple[bytes, float | None]] = {}

    def get(self, namespace: str, key: str) -> bytes | None:
        item = self._data.get((namespace, key))
        if item is None:
            return None
        value, expires = item
        if expires is not None and expires <= time.time():
            self._data.pop((namespace, key), None)
            return None
        return value

    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None:
        self._data[(namespace, key)] = (value, None if ttl is None else time.time() + ttl)

    def delete(self, namespace: str, key: str) -> None:
        self._data.pop((namespace, key), None)

    def incr(self, namespace: str, key: str, ttl: float) -> int:
        raw = self.get(namespace, key)
        count = (int(raw) if raw else 0) + 1
        item = self._data.get((namespace, key))
        expires = item[1] if raw and item else time.time() + ttl
        self._data[(namespace, key)] = (str(count).encode(), expires)
        return count

    def written(self) -> Written | None:
        return None  # one process: nothing to wait for

    def flush(self) -> None:
        return None

    def close(self) -> None:
        self._data.clear()


def default_store_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tamis" / "store.sqlite3"


def open_store(url: str | None) -> Store:
    """Open the store a config names. Raises ConfigError with a clear line when it cannot."""
    if url is None or url == "":
        from tamis.store.sqlite import SQLiteStore

        return SQLiteStore(default_store_path())
    if url == "memory:":
        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from tamis.store.redis import RedisStore

        return RedisStore(url)
    if "://" in url:
        raise ConfigError(f"store.url: unsupported scheme in {url.split('://')[0]!r}://...")
    from tamis.store.sqlite import SQLiteStore

    return SQLiteStore(Path(url).expanduser())
