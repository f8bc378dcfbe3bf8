"""Near-copy pages: a page whose text copies a higher-ranked page's does not spend budget twice.

Word 5-gram shingles (hashed); a page is a copy when the Jaccard similarity with a page
already kept reaches ``JACCARD``, or when nearly all of its shingles (``CONTAINED``) appear in
the kept page (a syndicated copy with its own header and footer around it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

SHINGLE = 5
JACCARD = 0.7
CONTAINED = 0.9
MIN_WORDS = 20  # shorter texts are never called copies: too little evidence

_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=64)
def shingles(text: str, size: int = SHINGLE) -> frozenset[int]:
    """Hashed word ``size``-grams of the lower-cased text; empty for short texts.

    Cached, so that ``core.prepare`` can compute them in a worker thread as each page
    arrives, while later pages are still downloading.
    """
    words = _WORD.findall(text.lower())
    if len(words) < MIN_WORDS:
        return frozenset()
    return frozenset(map(hash, zip(*(words[i:] for i in range(size)), strict=False)))


def similarity(a: frozenset[int], b: frozenset[int]) -> tuple[float, float]:
    """(Jaccard of a and b, share of a's shingles found in b)."""
    if not a or not b:
        return 0.0, 0.0
    common = len(a & b)
    return common / (len(a) + len(b) - common), common / len(a)


def find_copies(texts: Sequence[str | None]) -> list[int | None]:
    """For each text, the index of the earlier text it copies, or None.

    ``None`` entries (pages without text) are skipped. Only pages that are not copies
    themselves can be copied, so a chain of copies points at its first page.
    """
    kept: list[tuple[int, frozenset[int]]] = []
    out: list[int | None] = []
    for index, text in enumerate(texts):
        if text is None:
            out.append(None)
            continue
        mine = shingles(text)
        original = None
        for earlier, theirs in kept:
            jaccard, contained = similarity(mine, theirs)
            if jaccard >= JACCARD or contained >= CONTAINED:
                original = earlier
                break
        out.append(original)
        if original is None:
            kept.append((index, mine))
    return out
