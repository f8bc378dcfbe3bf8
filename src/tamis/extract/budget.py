"""The character budget: who gets how much, and where a text is cut. Pure functions only.

The split depends on the extracted texts and their rank order, never on which page arrived
first: ``allocate`` is computed once every fetch has finished (or the deadline passed).
Every page gets ``min(its length, per_item, its fair share)`` (water-filling): what short
pages leave is shared among the longer ones, and integer remainders go in rank order.

Cuts land on a paragraph, sentence or word boundary (never inside a word) and carry a
marker (`` […]``) counted inside the budget. A cut inside a fenced code block closes it.
"""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence

from tamis.extract.models import EXHAUSTED, OK, TRUNCATED

CUT_MARKER = " […]"
FENCE_CUT_MARKER = "\n[…]"
GAP = "[…]"
MIN_SHARE = 300  # below this fair share a later page is skipped rather than given a sliver
MIN_FOCUSED_PIECE = 200  # smallest cut passage worth adding in focused mode

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_WORD = re.compile(r"\w+")
_SENTENCE_END = ".!?:;"
_STOPWORD_TEXT = (
    "a an and are as at be by can do does for from how i in is it its not of on or so that the"
    " this to was were what when where which who why will with you your"
)
_STOPWORDS = frozenset(_STOPWORD_TEXT.split())


# --- allocation -------------------------------------------------------------------------


def _water_level(needs: Sequence[int], total: int) -> float:
    """The level x with sum(min(need, x)) == total (the caller checked sum(needs) > total)."""
    remaining = float(total)
    ordered = sorted(needs)
    for index, need in enumerate(ordered):
        share = remaining / (len(ordered) - index)
        if need <= share:
            remaining -= need
        else:
            return share
    return math.inf  # pragma: no cover - unreachable when sum(needs) > total


def allocate(lengths: Sequence[int], total: int, per_item: int,
             min_share: int = MIN_SHARE) -> list[int]:
    """Characters allowed per text, in rank order; 0 means the budget is exhausted for it.

    Pages are dropped from the end (lowest rank first) while the fair share would fall
    under ``min_share``, so that the best pages get usable excerpts instead of slivers.
    """
    total = max(0, total)
    needs = [max(0, min(length, per_item)) for length in lengths]
    floor_share = max(1, min(min_share, per_item))
    count = len(needs)
    while count > 1 and sum(needs[:count]) > total:
        if _water_level(needs[:count], total) >= floor_share:
            break
        count -= 1
    head = needs[:count]
    out = [0] * len(needs)
    if sum(head) <= total:
        out[:count] = head
        return out
    level = math.floor(_water_level(head, total))
    shares = [min(need, level) for need in head]
    rest = total - sum(shares)
    for index, need in enumerate(head):
        if rest <= 0:
            break
        if shares[index] < need:
            shares[index] += 1
            rest -= 1
    out[:count] = shares
    return out


# --- cutting ----------------------------------------------------------------------------


def _boundary(text: str, room: int) -> int:
    """End of the longest prefix of at most ``room`` chars that stops before whitespace.

    Prefers a paragraph end, then a sentence end, when either keeps at least half the room.
    Returns 0 when no boundary fits (a first word longer than the room).
    """
    if room <= 0:
        return 0
    if len(text) <= room:
        return len(text)
    half = room // 2
    best_para = best_sentence = best_word = 0
    for position in range(room, 0, -1):
        if position < half and best_word:
            break
        if not text[position].isspace() or text[position - 1].isspace():
            continue
        best_word = best_word or position
        if not best_sentence and text[position - 1] in _SENTENCE_END:
            best_sentence = position
        if text.startswith("\n\n", position):
            best_para = position
            break
    if best_para >= half:
        return best_para
    if best_sentence >= half:
        return best_sentence
    return best_word


def open_fence(text: str) -> str | None:
    """The fence that would close a code block left open at the end of ``text``, if any."""
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if not match:
            continue
        token = match.group(1)
        if fence is None:
            fence = token
        elif token[0] == fence[0] and len(token) >= len(fence) and not line.strip()[len(token):]:
            fence = None
    return fence


def cut_lead(text: str, limit: int) -> str:
    """The page from the top, at most ``limit`` chars, cut at a boundary and marked."""
    if len(text) <= limit:
        return text
    room = limit - len(CUT_MARKER)
    prefix = text[:_boundary(text, room)].rstrip()
    fence = open_fence(prefix)
    if fence is not None:
        prefix = text[:_boundary(text, room - len(fence) - 1)].rstrip()
        fence = open_fence(prefix)
    if not prefix:
        return ""
    if fence is not None:
        return f"{prefix}\n{fence}{FENCE_CUT_MARKER}"
    if _FENCE.match(prefix.rsplit("\n", 1)[-1]):  # a fence line must stay alone on its line
        return prefix + FENCE_CUT_MARKER
    return prefix + CUT_MARKER


def slice_at_boundary(text: str, start: int, limit: int) -> tuple[str, int | None]:
    """An exact slice of ``text`` from ``start`` (for paging): the content and the next start.

    The slice ends before whitespace (never inside a word) unless one word is longer than
    ``limit``, in which case the word is split so that paging always moves on.
    """
    start = max(0, start)
    rest = text[start:]
    if len(rest) <= limit:
        return rest, None
    end = _boundary(rest, limit) or limit
    content = rest[:end]
    next_start = start + end
    while next_start < len(text) and text[next_start].isspace():
        next_start += 1
    return content.rstrip(), (next_start if next_start < len(text) else None)


# --- focused excerpts -------------------------------------------------------------------


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens without stopwords, plurals folded (``pools`` -> ``pool``)."""
    out = []
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or (len(word) < 2 and not word.isdigit()):
            continue
        if len(word) > 4 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def split_blocks(text: str) -> list[str]:
    """Paragraphs separated by blank lines; a fenced code block stays one block."""
    blocks: list[str] = []
    current: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and match and match.group(1)[0] == fence[0]:
            fence = None
        elif fence is None and not line.strip():
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks


def bm25(frequencies: Sequence[Mapping[str, int]], lengths: Sequence[int],
         terms: Sequence[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """BM25 score of each document (term counts and length) for the query terms."""
    count = len(frequencies)
    if not count or not terms:
        return [0.0] * count
    average = sum(lengths) / count or 1.0
    scores = [0.0] * count
    for term in set(terms):
        df = sum(1 for f in frequencies if f.get(term))
        if not df:
            continue
        idf = math.log(1 + (count - df + 0.5) / (df + 0.5))
        for index, freq in enumerate(frequencies):
            tf = freq.get(term, 0)
            if tf:
                norm = tf + k1 * (1 - b + b * lengths[index] / average)
                scores[index] += idf * tf * (k1 + 1) / norm
    return scores


def term_counts(block: str, terms: Sequence[str]) -> tuple[dict[str, int], int]:
    """Occurrences of each (folded) query term in a block, and the block's word count.

    Counts raw words in C (``Counter``) and folds only the query's terms: a folded term
    ``t`` is written ``t`` or ``ts``, exactly as ``tokenize`` folds.
    """
    words = Counter(_WORD.findall(block.lower()))
    counts = {term: words.get(term, 0) + words.get(term + "s", 0) * (len(term) >= 4
                                                                    and not term.endswith("s"))
              for term in terms}
    return counts, sum(words.values())


def _render(blocks: Sequence[str], chosen: dict[int, str]) -> str:
    """Chosen blocks in page order; ``[…]`` wherever text was skipped."""
    parts: list[str] = []
    previous = -1
    for index in sorted(chosen):
        if index != previous + 1:
            parts.append(GAP)
        parts.append(chosen[index])
        previous = index
    if previous != len(blocks) - 1:
        parts.append(GAP)
    return "\n\n".join(parts)


@functools.lru_cache(maxsize=64)
def scored_blocks(text: str, terms: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The page's blocks and their BM25 scores for the terms (cached: see ``core.prepare``)."""
    blocks = split_blocks(text)
    counted = [term_counts(block, terms) for block in blocks]
    return tuple(blocks), tuple(bm25([c for c, _ in counted], [n for _, n in counted], terms))


def query_terms(query: str | None) -> tuple[str, ...]:
    return tuple(sorted(set(tokenize(query or ""))))


def cut_focused(text: str, query: str, limit: int) -> str:
    """The passages most relevant to ``query`` (BM25 over paragraphs), in page order.

    Room left after every matching passage is filled with the other passages, earliest
    first, so the budget is not wasted. Falls back to ``cut_lead`` when no paragraph shares
    a term with the query.
    """
    if len(text) <= limit:
        return text
    blocks, scores = scored_blocks(text, query_terms(query))
    if not blocks or max(scores) <= 0:
        return cut_lead(text, limit)
    order = sorted(range(len(blocks)), key=lambda i: (-scores[i], i))
    chosen: dict[int, str] = {}
    used = 0
    for index in order:  # relevant passages first, then the rest in page order to fill up
        free = limit - used
        # A block adds at least its length minus one gap marker: skip the render when
        # neither the whole block nor a useful piece of it can fit.
        if chosen and len(blocks[index]) - len(GAP) > free and free < MIN_FOCUSED_PIECE:
            continue
        trial = {**chosen, index: blocks[index]}
        rendered = len(_render(blocks, trial))
        if rendered <= limit:
            chosen, used = trial, rendered
            continue
        room = limit - len(_render(blocks, {**chosen, index: ""}))
        if room >= MIN_FOCUSED_PIECE or (not chosen and room > 0):
            piece = cut_lead(blocks[index], room)
            if piece:
                chosen = {**chosen, index: piece}
                break
    if not chosen:
        return cut_lead(text, limit)
    return _render(blocks, chosen)


def make_excerpt(text: str, limit: int, mode: str, query: str | None) -> str:
    """The excerpt of one page under ``limit``: the whole page when it fits, else a cut.

    ``lead``: from the top. ``focused`` and ``auto``: the passages most relevant to the
    query (``auto`` and ``focused`` differ only for pages that fit, which are whole in both).
    """
    if len(text) <= limit:
        return text
    if mode != "lead" and query_terms(query):
        return cut_focused(text, query, limit)
    return cut_lead(text, limit)


def build_excerpts(texts: Sequence[str], total: int, per_item: int, mode: str,
                   query: str | None) -> list[tuple[str, str]]:
    """Excerpt and status (ok | truncated | skipped_budget_exhausted) of each text, in order.

    What a cut leaves unused (it stops at a boundary, short of its share) is carried to the
    next pages in rank order, so the budget is used and the result stays deterministic.
    """
    shares = allocate([len(t) for t in texts], total, per_item)
    out: list[tuple[str, str]] = []
    carry = 0
    for text, share in zip(texts, shares, strict=True):
        if share <= 0:
            out.append(("", EXHAUSTED))
            continue
        limit = min(len(text), per_item, share + carry)
        excerpt = make_excerpt(text, limit, mode, query)
        carry = share + carry - len(excerpt)
        if not excerpt:
            out.append(("", EXHAUSTED))
        else:
            out.append((excerpt, OK if excerpt == text else TRUNCATED))
    return out
