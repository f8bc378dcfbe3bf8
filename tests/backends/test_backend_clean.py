"""A backend answer's hits and notes hold only strings encodable as UTF-8 (each lone
surrogate made U+FFFD, nothing else changed), whatever the adapter read."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Note, RawHit

# ASCII, other text, and the lone surrogates that cannot be encoded
TEXT = st.text(alphabet=st.sampled_from(["a", " ", "é", "’", "\ud800", "\udfff", "中"]),
               max_size=6)


def fixed(text: str) -> str:
    return "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.lists(TEXT, max_size=3, unique_by=fixed),
                          st.one_of(st.none(), TEXT)), max_size=4),
       st.lists(st.tuples(TEXT, TEXT), max_size=3))
def test_every_string_becomes_encodable_and_nothing_else_changes(
        hits: list[tuple], notes: list[tuple]) -> None:
    for url, title, engines, published in hits:
        hit = RawHit(url=url, title=title, snippet=title + url, line="sx", engines=engines,
                     positions=[1] * len(engines), published=published)
        assert (hit.url, hit.title, hit.snippet, hit.engines, hit.published) == (
            fixed(url), fixed(title), fixed(title + url), [fixed(e) for e in engines],
            None if published is None else fixed(published))
        hit.model_dump_json()  # every string encodes
    for source, message in notes:
        note = Note(source=source, kind="info", message=message)
        assert (note.source, note.message) == (fixed(source), fixed(message))
