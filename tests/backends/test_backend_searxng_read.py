"""How a SearXNG result's engines and positions are read (``engine_order``,
``parse_searxng``): the single-engine shortcut and the general pairing give the same labels
and positions as the rule says, whatever ``engine`` holds."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tamis import typed
from tamis.backends.registry import make_adapter
from tamis.backends.searxng import engine_order, parse_searxng
from tamis.policy.schema import LineConfig


@pytest.mark.parametrize(("item", "expected"), [
    ({"engines": ["bing"], "engine": "bing"}, ["bing"]),
    ({"engines": ["bing"], "engine": "brave"}, ["bing"]),  # engine not among engines
    ({"engines": ["bing"]}, ["bing"]),
    ({"engines": [7]}, ["7"]),  # not a str: its text
    ({"engines": ["mojeek", "bing", "brave"], "engine": "brave"}, ["brave", "bing", "mojeek"]),
    ({"engines": ["mojeek", "bing"]}, ["mojeek", "bing"]),  # no engine: as parallel lists
    ({"engines": ["bing", "bing"], "engine": "bing"}, ["bing", "bing"]),
    ({"engines": [], "engine": "bing"}, ["bing"]),
    ({}, ["unknown"]),
])
def test_engine_order(item: dict, expected: list[str]):
    assert engine_order(item) == expected


def test_labels_positions_and_text_of_each_hit():
    adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url="http://127.0.0.1:1"))
    parsed = parse_searxng(adapter, {"results": [
        {"url": " https://a.example/1 ", "title": "A &amp; <b>B</b>", "content": "x  y",
         "engine": "bing", "engines": ["bing"], "positions": [3]},
        {"url": "https://b.example/", "title": 5, "engines": ["brave", "bing"],
         "engine": "bing", "positions": [2.0, True], "publishedDate": "2026-01-02"},
        {"url": "https://c.example/", "engines": ["bing"], "positions": [0, 4]},
        {"url": ""},
    ]})
    first, second, third = parsed.hits
    assert typed.to_data(first) == {
        "url": "https://a.example/1", "title": "A & B", "snippet": "x y", "line": "sx",
        "engines": ["sx:bing"], "positions": [3], "published": None}
    assert (second.title, second.engines, second.positions, second.published) == (
        "", ["sx:bing", "sx:brave"], [2, 1], "2026-01-02")
    assert type(second.positions[0]) is int
    assert (third.engines, third.positions) == (["sx:bing"], [3])  # not parallel: its index
    assert [n.kind for n in parsed.notes] == ["skipped_hit"]


# -- the one-step read (read_result) against the plain one (Adapter.collect + hit) ------------
def plain_parse(adapter, payload):
    """parse_searxng's hits as ``Adapter.collect`` and ``Adapter.hit`` make them."""
    prefix = f"{adapter.name}:"

    def read(item, index):
        engines = engine_order(item)
        positions = item.get("positions")
        if not isinstance(positions, list) or len(positions) != len(engines):
            positions = [index] * len(engines)
        return adapter.hit(
            item.get("url"), item.get("title"), item.get("content"), index,
            published=item.get("publishedDate"), labels=[prefix + e for e in engines],
            positions=[p if p.__class__ is int and p >= 1 else int(p)
                       if isinstance(p, (int, float)) and p >= 1 else index
                       for p in positions])

    return adapter.collect(payload["results"], read)


SCALAR = st.one_of(st.none(), st.booleans(), st.integers(-2, 5),
                   st.floats(-1, 5, allow_nan=False), st.sampled_from(
                       ["", " ", "bing", "a &amp; <b>b</b>", "x  y", " https://a.example/ ",
                        "2026-01-02", "é"]))
ITEM = st.dictionaries(
    st.sampled_from(["url", "title", "content", "publishedDate", "engine", "engines",
                     "positions"]),
    st.one_of(SCALAR, st.lists(SCALAR, max_size=3)), max_size=7)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(ITEM, SCALAR), max_size=5))
def test_read_result_equals_collect_and_hit(items):
    adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url="http://127.0.0.1:1"))
    fast = parse_searxng(adapter, {"results": items})
    plain = plain_parse(adapter, {"results": items})
    assert [typed.to_data(h) for h in fast.hits] == [typed.to_data(h) for h in plain.hits]
    assert [[type(p) for p in h.positions] for h in fast.hits] == [
        [type(p) for p in h.positions] for h in plain.hits]
    assert [typed.to_data(n) for n in fast.notes] == [typed.to_data(n) for n in plain.notes]
