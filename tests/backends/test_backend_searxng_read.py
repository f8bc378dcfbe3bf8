"""How a SearXNG result's engines and positions are read (``engine_order``,
``parse_searxng``): labels and positions as the rule says, whatever ``engine`` holds."""

from __future__ import annotations

import pytest

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
        {"url": "https://d.example/", "engines": ["bing"], "positions": [float("inf")]},
    ]})
    first, second, third, fourth = parsed.hits
    assert first.model_dump() == {
        "url": "https://a.example/1", "title": "A & B", "snippet": "x y", "line": "sx",
        "engines": ["sx:bing"], "positions": [3], "published": None}
    assert (second.title, second.engines, second.positions, second.published) == (
        "", ["sx:bing", "sx:brave"], [2, 1], "2026-01-02")
    assert type(second.positions[0]) is int
    assert (third.engines, third.positions) == (["sx:bing"], [3])  # not parallel: its index
    assert fourth.positions == [5]  # Infinity, as Python's json reads it: its index
    assert [n.kind for n in parsed.notes] == ["skipped_hit"]


@pytest.mark.parametrize("unresponsive", [7, "bing", {"bing": "timeout"}, None])
def test_unresponsive_engines_of_another_shape_are_ignored(unresponsive: object) -> None:
    adapter = make_adapter(LineConfig(name="sx", type="searxng", base_url="http://127.0.0.1:1"))
    parsed = parse_searxng(adapter, {"results": [{"url": "https://a.example/"}],
                                     "unresponsive_engines": unresponsive})
    assert [h.url for h in parsed.hits] == ["https://a.example/"] and parsed.notes == []
