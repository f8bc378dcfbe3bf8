"""``PlaceholderTitles.unmatched`` (the words looked for in all the titles at once) says a
title is certainly no placeholder's only where ``match`` finds none, and misses none of the
titles ``match`` would test against the patterns."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.placeholder import PlaceholderTitles
from tamis.settings import load_config

TITLES = PlaceholderTitles(load_config(None).config.policy.non_answer.placeholder_titles)
pieces = st.sampled_from(["for sale", " for sale", "example.com", ".com", "parked", "Parked",
                          "domain", "domain ", "Buy this domain", "welcome to nginx",
                          "Welcome to nginx!", "coming soon", "IIS Windows Server", "é", "ß",
                          "  ", " ", "\t", "\n", "\x7f", "a", "Proxmox thin pool", "default",
                          "default page", "test page for the ", "registered at", "x"])
titles = st.one_of(st.none(), st.just(""), st.lists(pieces, max_size=6).map("".join))


@settings(max_examples=500, deadline=None)
@given(st.lists(titles, max_size=12))
def test_unmatched_titles_match_nothing(found: list[str | None]) -> None:
    unmatched = TITLES.unmatched(found)
    assert unmatched is not None and len(unmatched) == len(found)
    # titles several results share are read once: each answer is the title's own
    assert unmatched == [TITLES.unmatched([title])[0] for title in found]  # type: ignore[index]
    for title, plain in zip(found, unmatched, strict=True):
        if plain:
            for host, domain in (("example.com", "example.com"), ("www.a.org", "a.org")):
                assert TITLES.match(title, host, domain) is None, title
        if title and title.isascii() and title.isprintable() and "  " not in title:
            low = title.lower()
            assert plain == (not any(w in low for w in TITLES._words or ())), title


def test_without_words_nothing_is_known() -> None:
    assert PlaceholderTitles([r"^(?:.*)$"]).unmatched(["a", None]) is None  # no word: None
    assert PlaceholderTitles([]).unmatched(["a"]) is None
