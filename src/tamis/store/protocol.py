"""The store interface: what every store (SQLite, Redis, memory) answers to."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable


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
