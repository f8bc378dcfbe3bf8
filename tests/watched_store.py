"""A store for tests that remembers which keys were written, so a test can look at every
live entry of a namespace through the public ``Store`` protocol (``get``), without the store
itself having to list its keys."""

from __future__ import annotations

from tamis.store.base import MemoryStore


class WatchedStore(MemoryStore):
    def __init__(self) -> None:
        super().__init__()
        self.written: dict[str, list[str]] = {}

    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None:
        keys = self.written.setdefault(namespace, [])
        if key not in keys:
            keys.append(key)
        super().set(namespace, key, value, ttl)

    def entries(self, namespace: str) -> dict[str, bytes]:
        """Every live entry of ``namespace``, read back with ``get``."""
        found = {key: self.get(namespace, key) for key in self.written.get(namespace, [])}
        return {key: value for key, value in found.items() if value is not None}
