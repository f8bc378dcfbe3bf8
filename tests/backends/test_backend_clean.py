"""``sanitised``'s one look at an answer's joined strings gives what cleaning each hit and
note (``clean_model``, the plain path) gives, surrogates or not, whatever the fields hold."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.backends.base import Parsed
from tamis.backends.clean import clean_model, encodable_text, sanitised
from tamis.models import Note, RawHit

# ASCII, other text, and the lone surrogates that cannot be encoded
TEXT = st.text(alphabet=st.sampled_from(["a", " ", "é", "’", "\ud800", "\udfff", "中"]),
               max_size=6)


def plain(parsed: Parsed) -> Parsed:
    return Parsed(hits=[clean_model(h) for h in parsed.hits],
                  notes=[clean_model(n) for n in parsed.notes])


def hit(url: str, title: str, engines: list[Any], published: Any = None) -> RawHit:
    return RawHit(url=url, title=title, snippet=title + url, line="sx", engines=engines,
                  positions=[1] * len(engines), published=published)


def same(a: Parsed, b: Parsed) -> bool:
    return ([(type(h), *(getattr(h, n) for n in h.__slots__)) for h in a.hits + a.notes]
            == [(type(h), *(getattr(h, n) for n in h.__slots__)) for h in b.hits + b.notes])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.lists(TEXT, max_size=3),
                          st.one_of(st.none(), TEXT)), max_size=4),
       st.lists(st.tuples(TEXT, TEXT), max_size=3))
def test_sanitised_equals_each_model_cleaned(hits: list[tuple], notes: list[tuple]) -> None:
    parsed = Parsed(hits=[hit(*h) for h in hits],
                    notes=[Note(source=s, kind="info", message=m) for s, m in notes])
    fast = sanitised(parsed)
    assert same(fast, plain(parsed))
    assert fast.hits is not parsed.hits and fast.notes is not parsed.notes  # new lists
    for model in fast.hits + fast.notes:
        for name in model.__slots__:
            value = getattr(model, name)
            for text in value if isinstance(value, list) else [value]:
                if isinstance(text, str):
                    text.encode("utf-8")  # never raises


def test_fields_of_other_types_take_the_plain_path() -> None:
    odd = [hit("https://a.example/\ud800", "t", ["e", 7], published=2026),
           hit("https://b.example/", "t\ud800", ("e\udfff",))]  # type: ignore[arg-type]
    parsed = Parsed(hits=odd, notes=[Note(source="s", kind="info", message="m\ud800")])
    assert same(sanitised(parsed), plain(parsed))
    assert sanitised(parsed).hits[0].url == "https://a.example/\ufffd"


def test_encodable_text() -> None:
    assert encodable_text("plain") and encodable_text("é中’")
    assert not encodable_text("a\ud800") and not encodable_text(None)
