"""Path patterns: the compiled ``PatternSet`` finds exactly the pattern the plain definition
(``PathPattern.matches``, first in config order) finds, on any path."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.pipeline import paths
from tamis.pipeline.paths import PathPattern, PatternSet, path_segments
from tamis.settings import load_config


def plain_first(patterns: list[PathPattern], segments: list[str], has_query: bool,
                skip: frozenset[str] = frozenset()) -> PathPattern | None:
    return next((p for p in patterns if p.text not in skip and p.matches(segments, has_query)),
                None)


WORDS = ["shop", "dp", "login", "a", "tag", "wiki", "login.php", "login_x", "x.y", "", "é"]
glob_segment = st.one_of(
    st.sampled_from(WORDS[:-2]),
    st.builds(lambda a, b: f"{a}*{b}", st.sampled_from(["", "log", "a", "x."]),
              st.sampled_from(["", "in", ".php", "_"])),
    st.builds(lambda a: f"{a}?", st.sampled_from(["a", "dp", "tag"])),
)
pattern_text = st.builds(
    lambda anywhere, segs, child, query: ("**/" if anywhere else "/") + "/".join(segs)
    + ("/" if child else "") + ("?" if query else ""),
    st.booleans(), st.lists(glob_segment, min_size=0, max_size=3), st.booleans(),
    st.booleans())
path_segment = st.one_of(
    st.sampled_from([*WORDS[:-2], "login.", "loginx", "ta", "dpp", "a/b", "x\ny", "é"]),
    st.text(alphabet="ad/.*?_\n", min_size=1, max_size=4))


@settings(max_examples=400, deadline=None)
@given(st.lists(pattern_text, max_size=8), st.lists(path_segment, max_size=6), st.booleans())
def test_compiled_set_finds_the_first_pattern_the_definition_finds(
        texts: list[str], segments: list[str], has_query: bool) -> None:
    patterns = [PathPattern.parse(t) for t in texts]
    for answered in both_ways():
        found = PatternSet(patterns).first_match(segments, has_query)
        assert found is plain_first(patterns, segments, has_query), answered


def both_ways() -> Iterator[str]:
    """Each path first as a fresh set answers it (the definition, PLAIN_FIRST), then with the
    alternation compiled."""
    kept = paths.PLAIN_FIRST
    try:
        yield "before the alternation is compiled"
        paths.PLAIN_FIRST = 0
        yield "by the compiled alternation"
    finally:
        paths.PLAIN_FIRST = kept


def test_the_policy_patterns_on_real_paths() -> None:
    policy = load_config(None).config.policy
    patterns = [PathPattern.parse(p) for p in policy.non_answer.path_patterns]
    compiled = PatternSet(patterns)
    assert compiled.compiled is not None  # the default policy needs no fallback
    real = ["/shop/x", "/us-en/shop/tech-takes/a", "/a/b/dp/B00X", "/login", "/x/login.php",
            "/dictionary", "/dictionary/cat", "/wiki/Wiktionary:Main", "/a%2Fb/login",
            "/store", "/tag/x", "/"]
    for answered in both_ways():
        for path in real:
            for has_query in (False, True):
                segments = path_segments(path)
                assert (compiled.first_match(segments, has_query)
                        is plain_first(patterns, segments, has_query)), (path, answered)
    assert all(compiled._compiled[q][0].compiled is not None for q in (False, True))


@pytest.mark.parametrize(("pattern", "path", "hit"), [
    ("**/login.*", "/a/login.php", True),
    ("**/login.*", "/a/login", False),
    ("/shop/", "/shop", False),
    ("/shop/", "/shop/x", True),
    ("/x[ab]", "/xa", True),  # a '[' set: only the definition answers
    ("/x[ab]", "/xc", False),
])
def test_globs_sets_and_children(pattern: str, path: str, hit: bool) -> None:
    compiled = PatternSet([PathPattern.parse(pattern)])
    assert (compiled.first_match(path_segments(path), False) is not None) is hit


def test_skip_goes_past_a_lifted_pattern() -> None:
    patterns = [PathPattern.parse(t) for t in ["/shop/", "**/dp/"]]
    segments = path_segments("/shop/dp/x")
    assert PatternSet(patterns).first_match(segments, False, frozenset({"/shop/"})) \
        is patterns[1]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aB/%2fF0É.-İ", max_size=20))
def test_path_segments_decode_then_lower_every_segment(path: str) -> None:
    from urllib.parse import unquote

    path_segments.cache_clear()
    assert path_segments(path) == [unquote(s).lower() for s in path.split("/") if s]


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="/aB%2f.é", max_size=12))
def test_split_path_is_its_definition(path: str) -> None:
    from urllib.parse import unquote

    from tamis.pipeline.paths import split_path

    assert split_path(path) == [unquote(s).lower() for s in path.split("/") if s]
