"""``sanitised`` makes every string of an answer encodable as UTF-8 and changes nothing else."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.backends.base import Parsed
from tamis.backends.clean import sanitised
from tamis.models import Note, RawHit

# ASCII, other text, and the lone surrogates that cannot be encoded
TEXT = st.text(alphabet=st.sampled_from(["a", " ", "é", "’", "\ud800", "\udfff", "中"]),
               max_size=6)


def strings(parsed: Parsed) -> list[str]:
    found: list[str] = []
    for model in [*parsed.hits, *parsed.notes]:
        for value in model.model_dump().values():
            found += [x for x in (value if isinstance(value, list) else [value])
                      if isinstance(x, str)]
    return found


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, TEXT, st.lists(TEXT, max_size=3),
                          st.one_of(st.none(), TEXT)), max_size=4),
       st.lists(st.tuples(TEXT, TEXT), max_size=3))
def test_every_string_becomes_encodable_and_nothing_else_changes(
        hits: list[tuple], notes: list[tuple]) -> None:
    parsed = Parsed(
        hits=[RawHit(url=url, title=title, snippet=title + url, line="sx", engines=engines,
                     positions=[1] * len(engines), published=published)
              for url, title, engines, published in hits],
        notes=[Note(source=s, kind="info", message=m) for s, m in notes])
    clean = sanitised(parsed)
    assert clean.hits is not parsed.hits and clean.notes is not parsed.notes  # new lists
    before, after = strings(parsed), strings(clean)
    assert len(before) == len(after)
    for old, new in zip(before, after, strict=True):
        new.encode("utf-8")  # never raises
        assert new == "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in old)
