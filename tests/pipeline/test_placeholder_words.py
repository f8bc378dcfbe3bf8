"""The placeholder titles' word shortcut (a title holding none of the words every match
needs is no placeholder) answers exactly what the regexes answer."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.placeholder import PlaceholderTitles, _words
from tamis.settings import load_config

PATTERNS = load_config(None).config.policy.non_answer.placeholder_titles
pieces = st.sampled_from(["Welcome ", "to ", "example.com", "Example.COM", " - ", " | ",
                          "BlueHost.com", "is for sale", "FOR SALE", "parked", "Parked ",
                          "domain ", "has expired", "Account Suspended", "coming soon",
                          "Welcome to nginx!", "Apache2 Ubuntu Default Page", "buy this domain",
                          "iis windows server", "Default Web Site Page", "future home of",
                          "registered at", "proxmox", "thin pool", "é", "ſale", "K", ": "])
titles = st.lists(pieces, max_size=6).map("".join)


def without_words(patterns: list[str]) -> PlaceholderTitles:
    plain = PlaceholderTitles(patterns)
    plain._words = None
    return plain


FAST, PLAIN = PlaceholderTitles(PATTERNS), without_words(PATTERNS)


@settings(max_examples=500, deadline=None)
@given(titles, st.sampled_from(["example.com", "bluehost.com", "other.org"]))
def test_the_shortcut_changes_no_answer(title: str, domain: str) -> None:
    host = f"www.{domain}"
    assert FAST.match(title, host, domain) == PLAIN.match(title, host, domain)


def test_words_of_the_default_patterns_and_odd_ones() -> None:
    assert FAST._words is not None and "for sale" in " ".join(FAST._words)
    assert _words(["^(a|b)c$"]) == ("a", "b") or _words(["^(a|b)c$"]) == ("c",)
    assert _words(["^x*$"]) is None  # nothing every match holds: no shortcut
    assert _words(["^(?-i:Sale)"]) is None  # flags changed inside: not read
    assert _words(["(unbalanced"]) is None
    patterns = ["^(?:foo)+bar", "baz{domain}"]
    for title in ["FOOBAR", "foofoobar!", "x baz a.bc", "nothing", "bar"]:
        assert (PlaceholderTitles(patterns).match(title, "a.bc", "a.bc")
                == without_words(patterns).match(title, "a.bc", "a.bc"))


def test_a_title_matching_without_its_optional_domain_is_a_placeholder() -> None:
    # '^({domain} ?[-|:] ?)?buy this domain\b' matched without a domain: it used to raise
    assert FAST.match("Buy this domain", "a.example", "a.example") is not None
