"""Text measures for duplicate detection, in plain Python and fast enough for 100,000 nodes.

- bodies: whitespace-normalised hash (identical bodies), word shingles and their Jaccard similarity;
- titles: character-trigram Dice similarity, the numbers a title carries (digits carry meaning:
  `SR-2023-052` is not `SR-2023-053`), and a template with dates, times, run numbers and ids masked;
- candidates: titles blocked by the numbers they carry and by deletion neighbourhoods of their word
  stems (never all pairs), screened with 4096-bit trigram masks; MinHash (one-permutation
  hashing) with LSH banding over body shingles splits blocks too large to pair out.

Shingle hashes are built from per-word blake2b hashes, so results do not depend on PYTHONHASHSEED.
"""

from __future__ import annotations

import hashlib
import re
import string
import zlib
from collections import defaultdict
from collections.abc import Hashable, Iterator, Sequence
from itertools import combinations, pairwise

_PUNCT_TO_SPACE = str.maketrans(dict.fromkeys(string.punctuation + "—–“”‘’…«»·•", " "))
_NONWORD_RE = re.compile(r"[\W_]+")
_DIGITS_RE = re.compile(r"\d+")


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
    """Hashes of the overlapping `size`-word windows of `text` (casefolded, punctuation dropped)."""
    if len(_word_hashes) > 2_000_000:  # bound the cache on huge vocabularies
        _word_hashes.clear()
    ids = list(map(_word_hashes.__getitem__, text.casefold().translate(_PUNCT_TO_SPACE).split()))
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


def title_stems(normalised: str) -> set[str]:
    """The first five letters of each non-numeric word, a plural "s" dropped first."""
    return {
        (w[:-1] if len(w) > 3 and w.endswith("s") else w)[:5]
        for w in normalised.split()
        if not w.isdigit()
    }


def title_blocks(titles: Sequence[str], blocks: Sequence[Hashable]) -> Iterator[list[int]]:
    """Groups (of two or more) of normalised titles that may be near-identical.

    Titles are candidates when, inside one block (titles carrying the same numbers), their word
    stems are equal or differ by one word added, dropped or changed: each title is indexed under
    its stem set and under that set minus each stem (a deletion neighbourhood), so no pair of
    titles is ever enumerated blindly. Yields each posting list, members in increasing order.
    """
    postings: dict[int, int | list[int]] = {}

    def put(key: int, i: int) -> None:
        current = postings.get(key)
        if current is None:
            postings[key] = i
        elif isinstance(current, int):
            postings[key] = [current, i]
        elif current[-1] != i:
            current.append(i)

    for i, title in enumerate(titles):
        stem_hashes = [hash(stem) for stem in title_stems(title)]
        if not stem_hashes:
            continue
        block = hash(blocks[i])
        whole = 0
        for h in stem_hashes:
            whole ^= h
        put(hash((block, whole, len(stem_hashes))), i)
        if len(stem_hashes) > 1:
            for h in stem_hashes:
                put(hash((block, whole ^ h, len(stem_hashes) - 1)), i)
    for members in postings.values():
        if not isinstance(members, int):
            yield members


class _TrigramBits(dict[str, int]):
    """trigram -> one bit of a 4096-bit mask, stable across runs (crc32)."""

    def __missing__(self, trigram: str) -> int:
        value = 1 << (zlib.crc32(trigram.encode("utf-8", "surrogatepass")) & 4095)
        self[trigram] = value
        return value


_trigram_bits = _TrigramBits()


def title_mask(normalised: str) -> int:
    """A compact sketch of a title's trigram set: one bit per trigram in a 4096-bit integer."""
    if len(_trigram_bits) > 1_000_000:
        _trigram_bits.clear()
    mask = 0
    for bit in map(_trigram_bits.__getitem__, title_trigrams(normalised)):
        mask |= bit
    return mask


def mask_dice(a: int, b: int) -> float:
    """Dice similarity of two title masks: the trigram Dice, up to rare bit collisions."""
    total = a.bit_count() + b.bit_count()
    return 2 * (a & b).bit_count() / total if total else 1.0


def minhash(shingle_set: frozenset[int], size: int) -> tuple[int, ...]:
    """A `size`-slot MinHash signature by one-permutation hashing with rotation densification.

    Shingle hashes are already uniformly mixed, so each falls into bin `hash % size` and the
    signature keeps each bin's minimum. An empty bin borrows the next non-empty bin's value
    (circularly), offset by the distance, so two signatures agree in a slot with probability
    close to the sets' Jaccard similarity.
    """
    if not shingle_set:
        return (0,) * size
    bins = {h % size: h for h in sorted(shingle_set, reverse=True)}  # smaller values overwrite
    if len(bins) == size:
        return tuple(bins[slot] for slot in range(size))
    sig: list[int] = []
    for slot in range(size):
        value = bins.get(slot)
        step = 0
        while value is None:
            step += 1
            value = bins.get((slot + step) % size)
        sig.append(value + step * 0x5BD1E995 if step else value)
    return tuple(sig)


def band_keys(signature: tuple[int, ...], rows: int) -> tuple[int, ...]:
    """One hash per LSH band of `rows` signature slots: all a bucket needs to keep."""
    return tuple(hash(signature[k : k + rows]) for k in range(0, len(signature), rows))


def lsh_pairs(bands: dict[int, tuple[int, ...]], max_bucket: int = 200) -> set[tuple[int, int]]:
    """Pairs of keys that agree on every row of at least one band (equal band keys).

    A bucket larger than `max_bucket` (many near-identical bodies) is chained instead of paired
    out, which keeps it connected for clustering without quadratic work.
    """
    pairs: set[tuple[int, int]] = set()
    if not bands:
        return pairs
    for band in range(len(next(iter(bands.values())))):
        buckets: defaultdict[int, list[int]] = defaultdict(list)
        for key, keys in bands.items():
            buckets[keys[band]].append(key)
        for members in buckets.values():
            if len(members) < 2:
                continue
            members.sort()
            if len(members) > max_bucket:
                pairs.update(pairwise(members))
            else:
                pairs.update(combinations(members, 2))
    return pairs
