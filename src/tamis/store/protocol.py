"""The store interface: what every store (SQLite, Redis, memory) answers to."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future


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

    def written(self) -> Future[None] | None:
        """Done once every write made so far is visible to other processes; None
        when that is so already (a store that writes in the caller's thread)."""
        ...

    def flush(self) -> None:
        """Wait until every write made so far is visible to other processes."""
        ...

    def close(self) -> None:
        """Flush, then close."""
        ...
