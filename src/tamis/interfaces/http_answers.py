"""The native search's answers as HTTP bodies, with the bodies of repeats kept.

A repeat within the TTL is the stored answer (``Tamis.search``). Over HTTP it would be parsed,
validated, dumped and encoded again on every hit; ``RenderedAnswers`` keeps, per answer key,
the stored bytes it last rendered and the body it rendered from them. A hit whose stored
bytes are the same is that body again (the same bytes by construction: it was made by the
ordinary path from the same stored answer); any other stored bytes (a new answer put by
another worker, an expired one searched again) are rendered afresh. The store is still asked
on every request, so the TTL, the shared store and its failures behave as before.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from tamis.core import Tamis
from tamis.models import LineReport, SearchRequest, SearchResponse
from tamis.store import answers as answer_cache

KEPT_BODIES = 256  # answer keys whose last body is kept (each about the answer's size, twice)


@dataclass(frozen=True)
class Rendered:
    """A body ready to send, and what the metrics need from its answer."""

    body: bytes
    status_code: int
    lines: list[LineReport]
    stored: bytes  # the stored answer it was rendered from


@dataclass
class Found:
    """An answer to render: ``stored`` is the stored bytes when it is a repeat."""

    response: SearchResponse
    key: str | None = None
    stored: bytes | None = None
    answer: dict[str, Any] | None = None  # a first answer's JSON data, dumped once


class RenderedAnswers:
    def __init__(self, size: int = KEPT_BODIES) -> None:
        self.size = size
        self._kept: OrderedDict[str, tuple[bytes, Rendered]] = OrderedDict()

    async def search(self, layer: Tamis, request: SearchRequest, *, extract: bool,
                     explain: bool, budget: int | None) -> Rendered | Found:
        """A kept body when the stored answer is the one it was rendered from, else the
        answer (``Tamis.search``) to render."""
        key = layer.answer_key(request, extract=extract, explain=explain, budget=budget)
        if key is not None:
            raw = answer_cache.get_raw(layer.store, key)
            if raw is not None:
                kept = self._kept.get(key)
                if kept is not None and kept[0] == raw:
                    self._kept.move_to_end(key)
                    return kept[1]
                response = layer.read_stored(raw)
                if response is not None:
                    return Found(response, key, raw)
        # Not stored (or unreadable): searched, without asking the store a second time.
        response, answer = await layer.search_fresh(request, key, extract=extract,
                                                    explain=explain, budget=budget)
        return Found(response, answer=answer)

    def keep(self, found: Found, rendered: Rendered) -> None:
        """Keep the body of a repeat (only a repeat: a first answer is not what a repeat
        sends, its lines are not ``cached``)."""
        if found.key is None or found.stored is None:
            return
        self._kept[found.key] = (found.stored, rendered)
        self._kept.move_to_end(found.key)
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)

