"""The budget split and the cuts: invariants over many sizes and orders (hypothesis)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.extract.budget import (
    CUT_MARKER,
    FENCE_CUT_MARKER,
    GAP,
    allocate,
    build_excerpts,
    cut_focused,
    cut_lead,
    make_excerpt,
    open_fence,
    slice_at_boundary,
    split_blocks,
)

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzé0123456789", min_size=1, max_size=14)
SEPARATOR = st.sampled_from([" ", " ", " ", ". ", ", ", "\n", "\n\n", "! "])


@st.composite
def texts(draw: st.DrawFn, max_words: int = 400) -> str:
    words = draw(st.lists(WORD, min_size=1, max_size=max_words))
    out = [words[0]]
    for word in words[1:]:
        out.append(draw(SEPARATOR))
        out.append(word)
    if draw(st.booleans()):
        code = "```python\ndef f():\n\n    return 1\n```"
        at = draw(st.integers(0, len(out)))
        out.insert(at, f"\n\n{code}\n\n")
    return "".join(out).strip()


def body_of(excerpt: str) -> str:
    """The part of a lead excerpt that must be a prefix of the text."""
    if excerpt.endswith(FENCE_CUT_MARKER):
        body = excerpt[: -len(FENCE_CUT_MARKER)]
        if open_fence(body[: body.rfind("\n")]) is not None:
            return body[: body.rfind("\n")]  # drop the closing fence tamis added
        return body
    if excerpt.endswith(CUT_MARKER):
        return excerpt[: -len(CUT_MARKER)]
    return excerpt


def assert_clean_lead(text: str, excerpt: str, limit: int) -> None:
    assert len(excerpt) <= limit
    if excerpt == text or not excerpt:
        return
    body = body_of(excerpt)
    assert text.startswith(body), (text, excerpt)
    assert body and text[len(body)].isspace(), "cut inside a word"
    assert open_fence(excerpt) is None, "a cut left a code block open"


@given(st.lists(st.integers(0, 20000), max_size=12), st.integers(0, 30000),
       st.integers(0, 8000))
def test_allocation_respects_total_and_per_item(lengths: list[int], total: int,
                                                 per_item: int) -> None:
    shares = allocate(lengths, total, per_item)
    assert len(shares) == len(lengths)
    assert sum(shares) <= total
    for share, length in zip(shares, lengths, strict=True):
        assert 0 <= share <= min(length, per_item)


@given(st.lists(st.integers(1, 20000), min_size=1, max_size=12), st.integers(0, 30000),
       st.integers(1, 8000))
def test_allocation_uses_the_budget_and_favours_rank(lengths: list[int], total: int,
                                                     per_item: int) -> None:
    shares = allocate(lengths, total, per_item)
    needs = [min(n, per_item) for n in lengths]
    # Nothing is left unused while a served page still wants more.
    if any(s and s < n for s, n in zip(shares, needs, strict=True)):
        assert sum(shares) == total
    # Skipped pages (0) only ever come after served ones: the best ranks are served first.
    served = [s > 0 for s in shares]
    assert served == sorted(served, reverse=True)


def test_allocation_shares_what_short_pages_leave() -> None:
    # Short pages take what they need; the rest is shared evenly by the long ones.
    assert allocate([500, 10000, 10000, 200, 10000], 12000, 4000) == [500, 3767, 3767, 200, 3766]
    assert allocate([100, 100], 12000, 4000) == [100, 100]
    assert allocate([5000] * 5, 600, 4000) == [300, 300, 0, 0, 0]
    assert allocate([5000], 0, 4000) == [0]


@given(texts(), st.integers(0, 3000))
def test_lead_cut_never_splits_a_word(text: str, limit: int) -> None:
    assert_clean_lead(text, cut_lead(text, limit), limit)


def test_lead_cut_prefers_paragraph_then_sentence() -> None:
    text = "First paragraph here.\n\nSecond one is longer. It has two sentences and more words."
    assert cut_lead(text, 30) == "First paragraph here." + CUT_MARKER
    text = "One sentence here. Another sentence follows with many words after it"
    assert cut_lead(text, 40) == "One sentence here." + CUT_MARKER
    assert cut_lead("supercalifragilistic", 10) == ""


def test_lead_cut_closes_an_open_code_block() -> None:
    text = "Intro text.\n\n```python\nline one\n\nline two\nline three\n```\n\nAfter."
    excerpt = cut_lead(text, 45)
    assert excerpt.endswith("```" + FENCE_CUT_MARKER)
    assert open_fence(excerpt) is None
    assert_clean_lead(text, excerpt, 45)


@given(texts(), st.integers(0, 3000), st.sampled_from(["alpha beta", "zeta", "", "é 0"]))
def test_focused_cut_fits_and_keeps_whole_words(text: str, limit: int, query: str) -> None:
    excerpt = cut_focused(text, query, limit)
    assert len(excerpt) <= limit
    for piece in excerpt.split("\n\n"):
        if piece == GAP or not piece:
            continue
        core = body_of(piece) if piece.endswith((CUT_MARKER, FENCE_CUT_MARKER)) else piece
        ends = [m.start() + len(core) for m in re.finditer(re.escape(core), text)]
        assert ends, (piece, text)
        assert any(end == len(text) or not text[end].isalnum() for end in ends), \
            "cut inside a word"


def test_focused_keeps_relevant_passages_in_page_order() -> None:
    filler = [f"Filler paragraph number {i} talks about nothing in particular at all." for i in
              range(30)]
    filler[7] = "The thin pool metadata was repaired with lvconvert."
    filler[21] = "Grow the thin pool metadata volume afterwards."
    text = "\n\n".join(filler)
    excerpt = make_excerpt(text, 200, "auto", "thin pool metadata")
    assert len(excerpt) <= 200
    assert excerpt.index("repaired") < excerpt.index("Grow")
    # Room left after the matches is filled from the top; skipped text is marked.
    assert excerpt == ("Filler paragraph number 0 talks about nothing in particular at all."
                       f"\n\n{GAP}\n\n{filler[7]}\n\n{GAP}\n\n{filler[21]}\n\n{GAP}")
    only_matches = make_excerpt(text, 120, "focused", "thin pool metadata")
    assert only_matches == f"{GAP}\n\n{filler[7]}\n\n{GAP}\n\n{filler[21]}\n\n{GAP}"
    assert make_excerpt(text, 200, "lead", "thin pool metadata").startswith("Filler")


def test_split_blocks_keeps_code_together() -> None:
    text = "a\n\n```\nx\n\ny\n```\n\nb"
    assert split_blocks(text) == ["a", "```\nx\n\ny\n```", "b"]


@settings(max_examples=150)
@given(st.lists(texts(max_words=300), min_size=1, max_size=8), st.integers(0, 9000),
       st.integers(0, 3000), st.sampled_from(["auto", "lead", "focused"]),
       st.sampled_from(["alpha beta", "", "omega river"]))
def test_excerpt_invariants(pages: list[str], total: int, per_item: int, mode: str,
                            query: str) -> None:
    out = build_excerpts(pages, total, per_item, mode, query)
    assert sum(len(e) for e, _ in out) <= total
    for text, (excerpt, status) in zip(pages, out, strict=True):
        assert len(excerpt) <= per_item
        assert status in ("ok", "truncated", "skipped_budget_exhausted")
        assert (status == "ok") == (excerpt == text and bool(excerpt))
        if mode == "lead" or not query:
            assert_clean_lead(text, excerpt, per_item)


@given(texts(), st.integers(1, 500))
def test_paging_covers_the_text_without_splitting_words(text: str, limit: int) -> None:
    start: int | None = 0
    pieces = []
    while start is not None:
        content, nxt = slice_at_boundary(text, start, limit)
        assert len(content) <= limit
        assert nxt is None or nxt > start
        pieces.append((start, content))
        start = nxt
    for offset, content in pieces:
        assert text[offset:offset + len(content)] == content
    words_seen = " ".join(c for _, c in pieces).split()
    assert words_seen == text.split() or any(len(w) > limit for w in text.split())
