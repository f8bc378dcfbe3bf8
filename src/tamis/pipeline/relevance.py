"""Relevance: the query's terms, each result's words counted (title, snippet, URL) and BM25
over them; ``rank`` reads the scores (its ``relevance`` part). Kept apart from ``rank`` so each
file stays small; the tests compare each fast path with its plain definition
(``tests/pipeline/test_rank_counts.py``)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from operator import itemgetter

from tamis.models import Candidate
from tamis.pipeline.intent import fold

STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "what",
    "when", "where", "which", "who", "why", "with", "you", "your",
    "de", "la", "le", "les", "des", "du", "en", "et", "el", "los", "y", "der", "die", "das",
    "und", "http", "https", "www", "com", "org", "net", "html", "htm", "php",
})
_WORD = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    return [w for w in _WORD.findall(fold(text)) if w not in STOPWORDS and len(w) > 1]


def bm25_scores(query: str, docs: list[list[str]], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """Plain BM25 over a small set of short documents (titles + snippets)."""
    terms = sorted(set(tokens(query)))
    if not docs or not terms:
        return [0.0] * len(docs)
    wanted = frozenset(terms)
    return _bm25(terms, [(len(d), Counter(w for w in d if w in wanted)) for d in docs], k1, b)


def _bm25(terms: list[str], docs: list[tuple[int, Mapping[str, int]]], k1: float = 1.2,
          b: float = 0.75) -> list[float]:
    """BM25 from each document's length and its counts of the query terms."""
    n = len(docs)
    avg = sum(length for length, _ in docs) / n or 1.0
    df = dict.fromkeys(terms, 0)
    for _, tf in docs:
        for t in tf:
            if t in df:
                df[t] += 1
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    scores = []
    for length, tf in docs:
        score = 0.0
        if tf:
            norm = k1 * (1 - b + b * length / avg)
            for t in terms:
                f = tf.get(t, 0)
                if f:
                    score += idf[t] * f * (k1 + 1) / (f + norm)
        scores.append(score)
    return scores


_LENGTH, _COUNTS = itemgetter(0), itemgetter(1)


def _bm25_counted(terms: list[str], docs: list[tuple[int, dict[str, int]]], k1: float = 1.2,
                  b: float = 0.75) -> list[float]:
    """``_bm25`` of documents as ``_Terms.doc`` counts them: each one's counts hold only query
    terms, each at least once, in ``terms`` order, so a document's sum runs over its own
    counts, in the same order as ``_bm25``'s (``tests/pipeline/test_rank_counts.py``)."""
    n = len(docs)
    avg = sum(map(_LENGTH, docs)) / n or 1.0
    df = Counter(dict.fromkeys(terms, 0))
    df.update(chain.from_iterable(map(_COUNTS, docs)))  # (a C loop over every count's term)
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in terms}
    k1_plus = k1 + 1
    scores = []
    for length, tf in docs:
        score = 0.0
        if tf:
            norm = k1 * (1 - b + b * length / avg)
            for t, f in tf.items():
                score += idf[t] * f * k1_plus / (f + norm)
        scores.append(score)
    return scores


# In ASCII text a word (_WORD) is a run of [A-Za-z0-9]: everything else becomes a space;
# upper case becomes lower (what ``fold`` does to ASCII), in the same pass. _ASCII_SHAPE makes
# every word a run of "a": its words are counted as the places a space is followed by an "a".
# (Built by slices, not a loop over 256 bytes: a tenth of a million instructions at import, in
# every CLI process; test_rank_counts checks them against their definitions.)
_DIGITS, _UPPER = b"0123456789", b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_ASCII_SPACES = bytes(b" " * 48 + _DIGITS + b" " * 7 + _UPPER.lower() + b" " * 6
                      + _UPPER.lower() + b" " * 133)
_ASCII_SHAPE = bytes(b" " * 48 + b"a" * 10 + b" " * 7 + b"a" * 26 + b" " * 6 + b"a" * 26
                     + b" " * 133)


class _Terms:
    """The query's terms, ready to be counted in many documents."""

    def __init__(self, terms: list[str]) -> None:
        self.terms = terms  # sorted: a document's counts are in this order
        self.words = frozenset(terms)
        self.ascii = {t.encode("ascii"): t for t in terms if t.isascii()}
        # each term as a whole word of the text with its spaces doubled (_doubled)
        self.ascii_words = [(t, b" " + t + b" ", name) for t, name in self.ascii.items()]

    def doc(self, c: Candidate) -> tuple[int, dict[str, int]]:
        """Title, snippet and URL words: their number, and the counts of the query's terms
        (those it holds, in the order of ``terms``)."""
        return self.docs([c])[0]

    def docs(self, candidates: list[Candidate]) -> list[tuple[int, dict[str, int]]]:
        """``doc`` of each candidate (one call for them all). In ASCII text the words and the
        counts of "title snippet host path" are those of "title snippet" plus those of "host
        path" (the space between them ends a word), so a title and snippet that several
        results share (pages of one site, variants) are counted once, from their second
        result on (the first is counted whole: most titles are seen once)."""
        terms = self.terms
        # (title, snippet): its counts, or None when not ASCII; False: seen once
        heads: dict[tuple[str, str], tuple[int, dict[str, int]] | bool | None] = {}
        out = []
        for c in candidates:
            title, snippet = c.title, c.snippet
            head = heads.get((title, snippet), True)
            if head is True:  # a title and snippet not seen before: the text whole
                heads[(title, snippet)] = False
            else:
                if head is False:
                    text = f"{title} {snippet}"
                    head = heads[(title, snippet)] = (self._ascii_doc(text) if text.isascii()
                                                      else None)
                tail_text = f"{c.host} {c.path}"
                if head is not None and tail_text.isascii():
                    tail = self._ascii_doc(tail_text)
                    first, second = head[1], tail[1]  # type: ignore[index]
                    out.append((head[0] + tail[0],  # type: ignore[index]
                                first if not second else second if not first
                                else {t: first.get(t, 0) + second.get(t, 0) for t in terms
                                      if t in first or t in second}))
                    continue
            text = f"{title} {snippet} {c.host} {c.path}"
            if text.isascii():
                out.append(self._ascii_doc(text))
                continue
            words = _WORD.findall(fold(text))
            found_terms = self.words.intersection(words)
            out.append((len(words), {t: words.count(t) for t in terms if t in found_terms}))
        return out

    def _ascii_doc(self, text: str) -> tuple[int, dict[str, int]]:
        """``doc`` of a non-empty ASCII text: the words _WORD finds in ``fold(text)``, read
        as bytes (faster)."""
        ascii_words = self.ascii_words
        raw = text.encode("ascii")
        lowered = text.lower() if ascii_words else ""
        counts = {}
        doubled = None
        for _, word, name in ascii_words:
            # in some word: is it one (how many times)? A term (ASCII letters and digits)
            # is in the text lower-cased where it is in ``low`` (``in`` on str: bytes' ``in``
            # and ``find`` parse their arguments at a cost)
            if name in lowered:
                if doubled is None:
                    low = raw.translate(_ASCII_SPACES)
                    doubled = b"  " + low.replace(b" ", b"  ") + b"  "
                found = doubled.count(word)
                if found:
                    counts[name] = found
        shape = raw.translate(_ASCII_SHAPE)
        return shape.count(b" a") + (shape[0] == 97), counts
