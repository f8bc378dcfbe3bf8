"""``merge._single`` (a page seen once: its Candidate's fields set one by one on a bare
instance) builds exactly the Candidate ``_fold`` builds with the dataclass's own __init__."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Candidate, RawHit
from tamis.pipeline.merge import _fold, _single
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
