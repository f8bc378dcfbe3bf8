"""The store interface (``Store``, from ``tamis.store.protocol``) and the function that
opens the right implementation for a URL. A CLI repeat opens its store through this module
and never imports pathlib: paths here are strings.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

from tamis.errors import ConfigError
from tamis.store.protocol import Store

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future
    from pathlib import Path


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

    def written(self) -> Future[None] | None:
        return None  # one process: nothing to wait for

    def flush(self) -> None:
        return None

    def close(self) -> None:
        self._data.clear()


def default_store_file() -> str:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tamis", "store.sqlite3")


def default_store_path() -> Path:
    from pathlib import Path

    return Path(default_store_file())


def open_store(url: str | None) -> Store:
    """Open the store a config names. Raises ConfigError with a clear line when it cannot."""
    if url is None or url == "":
        from tamis.store.sqlite import SQLiteStore

        return SQLiteStore(default_store_file())
    if url == "memory:":
        return MemoryStore()
    if url.startswith(("redis://", "rediss://", "unix://")):
        from tamis.extras import require

        require("redis", "redis")
        from tamis.store.redis import RedisStore

        return RedisStore(url)
    if "://" in url:
        raise ConfigError(f"store.url: unsupported scheme in {url.split('://')[0]!r}://...")
    from tamis.store.sqlite import SQLiteStore

    return SQLiteStore(os.path.expanduser(url))
