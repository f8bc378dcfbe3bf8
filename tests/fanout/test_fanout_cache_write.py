"""A line's cache entry written hit by hit (``hits_json``) is the bytes the general dump
(``json.dumps`` of the models' ``model_dump``) writes, whatever the hits hold."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.backends.base import Parsed
from tamis.models import Note, RawHit
from tamis.pipeline.fanout_store import CACHE_NAMESPACE, GuardedStore, cache_write, hits_json
from tamis.store.base import MemoryStore

TEXT = st.text(alphabet=st.sampled_from(['a', '"', '\\', '\n', '\x7f', '\x01', 'é', '\u2028',
                                         '中', '/', ' ']), max_size=5)


class Str(str):
    pass


def plain(parsed: Parsed, now: float) -> bytes:
    return json.dumps({"hits": [hit.model_dump(mode="json") for hit in parsed.hits],
                       "notes": [note.model_dump(mode="json") for note in parsed.notes],
                       "fetched": now}, ensure_ascii=False, separators=(",", ":")).encode()


def written(parsed: Parsed, now: float) -> bytes:
    store = MemoryStore()
    cache_write(GuardedStore(store, []), "k", parsed, 60, now)
    value = store.get(CACHE_NAMESPACE, "k")
    assert value is not None
    return value


HIT = st.builds(
    lambda url, title, found, published: RawHit(
        url=url, title=title, snippet=title + url, line="sx", engines=[e for e, _ in found],
        positions=[p for _, p in found], published=published),
    TEXT, TEXT, st.lists(st.tuples(TEXT, st.integers(-3, 10**12)), max_size=3),
    st.one_of(st.none(), TEXT))


@settings(max_examples=300, deadline=None)
@given(st.lists(HIT, max_size=4), st.lists(st.builds(
    lambda s, m: Note(source=s, kind="info", message=m), TEXT, TEXT), max_size=2),
    st.floats(allow_nan=False, allow_infinity=False))
def test_the_entry_is_the_general_dump(hits: list[RawHit], notes: list[Note], now: float):
    parsed = Parsed(hits=hits, notes=notes)
    assert hits_json(hits) is not None
    assert written(parsed, now) == plain(parsed, now)


def odd_hit(**change: Any) -> RawHit:
    fields: dict[str, Any] = {"url": "u", "title": "t", "snippet": "s", "line": "l",
                              "engines": ["e"], "positions": [1], "published": None}
    return RawHit.model_construct(**{**fields, **change})  # unchecked: what a bug could hold


def test_hits_that_hold_something_else_take_the_general_dump():
    for hit in (odd_hit(positions=[True]), odd_hit(positions=[1.0]), odd_hit(published=5),
                odd_hit(engines=("e",)), odd_hit(title=Str("t")), odd_hit(engines=[Str("e")])):
        assert hits_json([hit]) is None
    parsed = Parsed(hits=[odd_hit(positions=[True]), odd_hit()])
    assert written(parsed, 1.0) == plain(parsed, 1.0)
