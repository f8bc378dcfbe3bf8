"""Which stores a request wrote to, and waiting until those writes are visible to other
processes (``tamis serve`` answers once they are). A store that writes in a thread of its own
(``tamis.store.sqlite``) calls ``wrote`` on each write; ``Store.written`` (``tamis.store.base``)
tells when its writes so far are committed. Standard library only, at run time.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from tamis.store.protocol import Store

# The stores written to by the work this context runs (``track_writes``): a list shared with
# the tasks it starts (they copy the context, and so the same list).
_WRITES: ContextVar[list[Store] | None] = ContextVar("tamis_store_writes", default=None)


def track_writes() -> list[Store]:
    """From now on in this context (a request's task and the tasks it starts), the stores
    that ``wrote`` is told of are listed here, for ``settled``."""
    written: list[Store] = []
    _WRITES.set(written)
    return written


def wrote(store: Store) -> None:
    """A store that writes in a thread of its own says so on each write."""
    written = _WRITES.get()
    if written is not None and not any(s is store for s in written):
        written.append(store)


async def settled(stores: list[Store]) -> None:
    """Wait, without blocking the event loop, until what ``stores`` were given so far is
    visible to other processes (``track_writes``' list: only what this work wrote waits)."""
    import asyncio

    for store in stores:
        pending = store.written()
        if pending is not None:
            await asyncio.wrap_future(pending)
