"""Body measures: a whitespace-normalised hash (identical bodies), words, shingles, Jaccard.

Word hashes are stable 64-bit blake2b digests, so nothing depends on PYTHONHASHSEED; the same
word ids feed the exact shingle sets here and the MinHash sketches in `sketch.py`.
"""

from __future__ import annotations

import hashlib
import string

PUNCT_TO_SPACE = str.maketrans(dict.fromkeys(string.punctuation + "—–“”‘’…«»·•", " "))


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


def word_ids(text: str) -> list[int]:
    """The stable 64-bit hash of each word of `text` (casefolded, punctuation dropped)."""
    if len(_word_hashes) > 2_000_000:  # bound the cache on huge vocabularies
        _word_hashes.clear()
    return list(map(_word_hashes.__getitem__, text.casefold().translate(PUNCT_TO_SPACE).split()))


def shingles(text: str, size: int = 3) -> frozenset[int]:
    """Hashes of the overlapping `size`-word windows of `text` (casefolded, punctuation dropped)."""
    ids = word_ids(text)
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
