"""Text measures for duplicate detection, in plain Python and fast enough for 100,000 nodes.

- bodies: whitespace-normalised hash (identical bodies), word shingles and their Jaccard similarity;
- titles: character-trigram Dice similarity, the numbers a title carries (digits carry meaning:
  `SR-2023-052` is not `SR-2023-053`), and a template with dates, times, run numbers and ids masked;
- candidates: prefix filtering over title trigrams (exact for the Dice threshold, never all pairs)
  and MinHash (one-permutation hashing) with LSH banding over body shingles for oversized blocks.

Shingle hashes are built from per-word blake2b hashes, so results do not depend on PYTHONHASHSEED.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from itertools import pairwise

_WORD_RE = re.compile(r"\w+")
_NONWORD_RE = re.compile(r"[\W_]+")
_DIGITS_RE = re.compile(r"\d+")
_MASK64 = (1 << 64) - 1


# -- bodies -------------------------------------------------------------------------------------


def normalise_whitespace(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return " ".join(text.split())


def body_hash(normalised: str) -> bytes:
    """A 16-byte digest of a whitespace-normalised body."""
    return hashlib.blake2b(normalised.encode("utf-8", "surrogatepass"), digest_size=16).digest()


class _WordHashes(dict[str, int]):
    """word -> stable 64-bit hash, computed once per distinct word."""

    def __missing__(self, word: str) -> int:
        value = int.from_bytes(
            hashlib.blake2b(word.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big"
        )
        self[word] = value
        return value


_word_hashes = _WordHashes()


def shingles(text: str, size: int = 3) -> frozenset[int]:
    """Hashes of the overlapping `size`-word windows of `text` (casefolded words)."""
    if len(_word_hashes) > 2_000_000:  # bound the cache on huge vocabularies
        _word_hashes.clear()
    ids = list(map(_word_hashes.__getitem__, _WORD_RE.findall(text.casefold())))
    if not ids:
        return frozenset()
    if len(ids) < size:
        return frozenset((hash(tuple(ids)),))
    return frozenset(map(hash, zip(*(ids[i:] for i in range(size)), strict=False)))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    """|a ∩ b| / |a ∪ b|, 0.0 for two empty sets."""
    if not a or not b:
        return 0.0
    inter = len(a & b)
    return inter / (len(a) + len(b) - inter)


# -- titles -------------------------------------------------------------------------------------


def normalise_title(title: str) -> str:
    """Casefolded words of a title joined by single spaces (punctuation dropped)."""
    return _NONWORD_RE.sub(" ", title.casefold()).strip()


def title_numbers(title: str) -> tuple[int, ...]:
    """The numbers in a title, in order; two titles about one subject carry the same ones."""
    return tuple(int(d) for d in _DIGITS_RE.findall(title))


def title_trigrams(normalised: str) -> frozenset[str]:
    """Character trigrams of a normalised title, padded so short titles still have some."""
    padded = f" {normalised} "
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def dice(a: frozenset[str], b: frozenset[str]) -> float:
    """2 |a ∩ b| / (|a| + |b|), 1.0 for two empty sets."""
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def title_similarity(a: str, b: str) -> float:
    """Trigram Dice similarity of two raw titles."""
    return dice(title_trigrams(normalise_title(a)), title_trigrams(normalise_title(b)))


_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_ORD = r"(?:st|nd|rd|th)?"
_TEMPLATE_MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I), "<id>"),
    (
        re.compile(
            r"\b\d{4}-\d{1,2}-\d{1,2}[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:z|[+-]\d{2}:?\d{2})?",
            re.I,
        ),
        "<date> <time>",
    ),
    (re.compile(r"\b\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\b"), "<date>"),
    (re.compile(r"\b\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b"), "<date>"),
    (re.compile(rf"\b\d{{1,2}}{_ORD}\s+(?:{_MONTHS})\.?,?\s+\d{{4}}\b", re.I), "<date>"),
    (re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}{_ORD},?\s+\d{{4}}\b", re.I), "<date>"),
    (re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{4}}\b", re.I), "<date>"),
    (re.compile(rf"\b\d{{1,2}}{_ORD}\s+(?:{_MONTHS})\b", re.I), "<date>"),
    (re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}{_ORD}\b", re.I), "<date>"),
    (re.compile(r"\b\d{4}-(?:w\d{1,2}|q[1-4]|\d{2})\b", re.I), "<date>"),
    (re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\.?)?(?:\s?utc|z)?\b", re.I), "<time>"),
    (re.compile(r"\b\d{1,2}\s?[ap]\.?m\b\.?", re.I), "<time>"),
    (
        re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I),
        "<day>",
    ),
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,}\b", re.I), "<id>"),
    (re.compile(r"\d+"), "<n>"),
]


def title_template(title: str) -> str:
    """The title with dates, times, weekdays, run numbers and ids masked, casefolded.

    >>> title_template("Daily digest 2024-05-01 06:00 (run #41)")
    'daily digest <date> <time> (run #<n>)'
    """
    out = title
    for pattern, replacement in _TEMPLATE_MASKS:
        out = pattern.sub(replacement, out)
    return " ".join(out.casefold().split())


# -- candidate generation -----------------------------------------------------------------------


def similar_title_pairs(
    titles: Sequence[str],
    blocks: Sequence[Iterable[object]] | Sequence[object],
    threshold: float,
) -> Iterator[tuple[int, int, float]]:
    """Pairs (i, j, dice) of distinct normalised titles in the same block with Dice >= threshold.

    Prefix filtering (all-pairs set similarity join): trigrams are ranked rarest first; two sets
    with Jaccard >= t must share a trigram among the first |x| - ceil(t |x|) + 1 of each, so only
    titles sharing a rare trigram are ever compared. Dice d is Jaccard d / (2 - d).
    """
    t = threshold / (2.0 - threshold)
    grams = [title_trigrams(title) for title in titles]
    freq: Counter[str] = Counter()
    for g in grams:
        freq.update(g)
    rank = {g: r for r, g in enumerate(sorted(freq, key=lambda g: (freq[g], g)))}
    order = sorted(range(len(titles)), key=lambda i: (len(grams[i]), i))
    index: defaultdict[tuple[object, int], list[int]] = defaultdict(list)
    eps = 1e-9
    for x in order:
        gx = grams[x]
        size = len(gx)
        if size == 0:
            continue
        ranked = sorted(map(rank.__getitem__, gx))
        prefix = size - math.ceil(t * size - eps) + 1
        min_size = t * size - eps
        block = blocks[x]
        seen: set[int] = set()
        for token in ranked[:prefix]:
            posting = index[(block, token)]
            for y in posting:
                if y in seen:
                    continue
                seen.add(y)
                gy = grams[y]
                if len(gy) < min_size:
                    continue
                d = dice(gx, gy)
                if d >= threshold - eps:
                    yield (y, x, d) if y < x else (x, y, d)
            posting.append(x)


def minhash(shingle_set: frozenset[int], size: int) -> tuple[int, ...]:
    """A `size`-slot MinHash signature by one-permutation hashing with rotation densification.

    Each shingle hash is mixed once and falls into one bin; the signature keeps each bin's minimum.
    Empty bins borrow the next non-empty bin's value (circularly), offset by the distance, so two
    signatures agree in a slot with probability close to the sets' Jaccard similarity.
    """
    if not shingle_set:
        return (0,) * size
    mixed = sorted(((h * 0x9E3779B97F4A7C15) & _MASK64 for h in shingle_set), reverse=True)
    bins = {v % size: v for v in mixed}  # later (smaller) values overwrite: the bin minimum
    sig: list[int] = []
    for slot in range(size):
        value = bins.get(slot)
        step = 0
        while value is None:
            step += 1
            value = bins.get((slot + step) % size)
        sig.append(value + step * 0x5BD1E995 if step else value)
    return tuple(sig)


def lsh_pairs(
    signatures: dict[int, tuple[int, ...]], rows: int, max_bucket: int = 200
) -> set[tuple[int, int]]:
    """Pairs of keys whose signatures agree on every row of at least one band.

    A bucket larger than `max_bucket` (many near-identical bodies) is chained instead of paired
    out, which keeps it connected for clustering without quadratic work.
    """
    pairs: set[tuple[int, int]] = set()
    if not signatures:
        return pairs
    size = len(next(iter(signatures.values())))
    for start in range(0, size, rows):
        buckets: defaultdict[tuple[int, ...], list[int]] = defaultdict(list)
        for key, sig in signatures.items():
            buckets[sig[start : start + rows]].append(key)
        for members in buckets.values():
            if len(members) < 2:
                continue
            members.sort()
            if len(members) > max_bucket:
                pairs.update(pairwise(members))
                continue
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    pairs.add((a, b))
    return pairs
