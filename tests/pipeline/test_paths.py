"""Path patterns match whole path segments, first in config order."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline.paths import PathPattern, PatternSet, front_page, split_path
from tamis.settings import load_config


@pytest.mark.parametrize(("pattern", "path", "query", "hit"), [
    ("**/login.*", "/a/login.php", False, True),
    ("**/login.*", "/a/login", False, False),
    ("/shop/", "/shop", False, False),
    ("/shop/", "/shop/x", False, True),
    ("/shop/", "/us-en/shop/tech-takes/a", False, False),  # anchored: an article is no shop
    ("**/dp/", "/a/b/dp/B00X", False, True),
    ("/search?", "/search", False, False),  # a trailing '?' needs a query string
    ("/search?", "/search", True, True),
    ("/x[ab]", "/xa", False, True),
    ("/x[ab]", "/xc", False, False),
    ("/Login", "/LOGIN", False, True),  # case-insensitive
    ("/a/login", "/a%2Flogin", False, False),  # an escaped slash is inside one segment
])
def test_globs_sets_children_and_queries(pattern: str, path: str, query: bool,
                                         hit: bool) -> None:
    found = PatternSet([PathPattern.parse(pattern)]).first_match(split_path(path), query)
    assert (found is not None) is hit


def test_the_first_pattern_in_config_order_wins() -> None:
    patterns = [PathPattern.parse(t) for t in ["/shop/", "**/dp/"]]
    assert PatternSet(patterns).first_match(split_path("/shop/dp/x"), False) is patterns[0]
    assert PatternSet(patterns[::-1]).first_match(split_path("/shop/dp/x"), False) \
        is patterns[1]


def test_the_policy_patterns_on_real_paths() -> None:
    policy = load_config(None).config.policy
    shop = PatternSet([PathPattern.parse(p) for p in policy.page_kinds["shop"].path_patterns])
    assert shop.first_match(split_path("/us-en/shop/tech-takes/a"), False) is None
    assert shop.first_match(split_path("/gp/product/B00X"), False) is not None
    drops = PatternSet([PathPattern.parse(p) for p in policy.non_answer.path_patterns])
    assert drops.first_match(split_path("/search"), True).text == "/search?"
    assert drops.first_match(split_path("/research/search-methods"), False) is None


def test_split_path_decodes_then_lowers_every_segment() -> None:
    assert split_path("/A%20b//C%2Fd/") == ["a b", "c/d"]


@pytest.mark.parametrize(("path", "query", "front"), [
    ("/", "", True), ("", "", True), ("/en/", "", True), ("/index.html", "", True),
    ("/en/index.php", "", True), ("/?s=x", "s=x", False), ("/documentation/", "", False),
    ("/blog/post", "", False),
])
def test_a_front_page_is_the_sites_front_door(path: str, query: str, front: bool) -> None:
    assert front_page(path, query) is front


segment = st.sampled_from(["shop", "dp", "login", "a", "tag", "login.php", "x.y", "é", "a b"])
glob = st.one_of(segment, st.builds(lambda a, b: f"{a}*{b}", st.sampled_from(["", "log", "x."]),
                                    st.sampled_from(["", "in", ".php"])),
                 st.sampled_from(["?", "[ab]", "[!a]*", "t?g"]))
pattern = st.builds(lambda anywhere, segs, child, query: ("**/" if anywhere else "/")
                    + "/".join(segs) + ("/" if child else "") + ("?" if query else ""),
                    st.booleans(), st.lists(glob, max_size=3), st.booleans(), st.booleans())


@settings(max_examples=500, deadline=None)
@given(st.lists(pattern, max_size=6), st.lists(st.one_of(segment, st.just("a/b")), max_size=5),
       st.booleans())
def test_a_set_finds_the_first_pattern_in_config_order_that_matches(
        texts: list[str], segments: list[str], has_query: bool) -> None:
    patterns = [PathPattern.parse(t) for t in texts]
    first = next((p for p in patterns if p.matches(segments, has_query)), None)
    assert PatternSet(patterns).first_match(segments, has_query) is first
