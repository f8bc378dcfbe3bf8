"""``merge._single`` (a page seen once: its Candidate's fields set one by one on a bare
instance) builds exactly the Candidate ``_fold`` builds with the dataclass's own __init__."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Candidate, RawHit
from tamis.pipeline.merge import _fold, _single, merge
from tamis.pipeline.url_batch import clean_urls

labels = st.sampled_from(["searxng:bing", "searxng:brave", "tavily", "searxng:google"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(labels, st.integers(1, 60)), min_size=0, max_size=3),
       st.text(alphabet="ab <&é\t\x7f", max_size=20) | st.text(alphabet="ab ", min_size=295,
                                                                 max_size=305),
       st.text(alphabet="cd <&é\x1f", max_size=45),
       st.sampled_from(["", "2024-01-02"]), st.sampled_from(["searxng", "tavily"]),
       st.integers(0, 3), st.sampled_from([0.5, 1.0, 2.0]))
def test_single_is_fold_of_one_hit(pairs: list[tuple[str, int]], title: str, snippet: str,
                                   published: str, line: str, order: int,
                                   weight: float) -> None:
    hit = RawHit(url="https://www.example.org/a/b?q=1&utm_source=x", title=title,
                 snippet=snippet, line=line, engines=[p[0] for p in pairs],
                 positions=[p[1] for p in pairs], published=published or None)
    (clean,) = clean_urls([hit.url], ("utm_*",))
    single = _single(hit, clean, 3, order, weight, 40)
    folded = _fold([(hit, clean, 3, order, weight)], 40)
    assert type(single) is Candidate
    for field in dataclasses.fields(Candidate):
        assert getattr(single, field.name) == getattr(folded, field.name), field.name
    assert single == folded


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["T", "T  x", "<b>T</b>", "é T", "", " T"]),
                          st.sampled_from(["s", "s &amp; t", "s\x1f", "", "s" * 50])),
                min_size=1, max_size=12))
def test_shared_texts_clean_as_their_own(texts: list[tuple[str, str]]) -> None:
    """Titles and snippets several hits share are cleaned once: each page is what ``_fold``
    makes of its hit alone."""
    hits = [RawHit(url=f"https://example.org/p{i}", title=title, snippet=snippet,
                   line="searxng", engines=["searxng:bing"], positions=[i + 1])
            for i, (title, snippet) in enumerate(texts)]
    candidates, _ = merge([(hit, 0, 1.0) for hit in hits], tracking_params=[], max_chars=40)
    for i, (hit, candidate) in enumerate(zip(hits, candidates, strict=True)):
        (clean,) = clean_urls([hit.url], ())
        assert candidate == _fold([(hit, clean, i + 1, 0, 1.0)], 40)
