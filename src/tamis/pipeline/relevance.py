"""How well each result's own text (title, snippet, URL words) matches the query.

Three pieces of evidence for ``rank``:

- ``bm25``: BM25 over the results of this one answer (a word most results carry counts for
  little, the rare word that tells the right page from the rest counts for much), scaled so
  the best result has 1;
- ``off_topic``: the result carries none of the query's words while other results do: a
  different sense, a different person, a page that merely ranks;
- ``phrase``: the query quotes a phrase and the result carries it, in order.

Words are matched loosely, as people write them: accents folded (``Hövelhof``), a plural
(``videos`` holds ``video``), and a query word of 4 letters or more found inside a written word
joined by a hyphen or a dot (``Jell-O`` holds ``jello``, ``OpenOffice.org`` holds
``openoffice``).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from functools import lru_cache
from itertools import chain
from typing import NamedTuple

from tamis.models import Candidate
from tamis.pipeline.query import ParsedQuery, fold

STOPWORDS = frozenset({
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "how", "i", "in", "is", "it", "of", "on", "or", "that", "the", "this", "to", "what",
    "when", "where", "which", "who", "why", "with", "you", "your",
    "de", "la", "le", "les", "des", "du", "en", "et", "el", "los", "y", "der", "die", "das",
    "und", "http", "https", "www", "com", "org", "net", "html", "htm", "php",
})
_WORD = re.compile(r"[^\W_]+")
MIN_JOINED = 4  # a query word this long may be found inside a longer written word (jello)


# Scripts written without spaces between words (Chinese, Japanese, Thai...): a "word" of the
# query is a whole phrase there, matched by its overlapping pairs of characters instead.
@lru_cache(maxsize=1)
def _unspaced_letters() -> re.Pattern[str]:
    # compiled on the first non-ASCII word: its wide ranges take ~5 ms to compile, a cost
    # every CLI search paid at import for a test that ASCII queries never need
    return re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")


def _unspaced(word: str) -> bool:
    """Does the word hold letters of a script written without spaces?"""
    return not word.isascii() and _unspaced_letters().search(word) is not None


def terms(query: ParsedQuery) -> list[str]:
    """The query's words that carry meaning (stopwords out unless nothing else is left)."""
    folded = [fold(w) for w in query.words]
    kept = [w for w in folded if w not in STOPWORDS and len(w) > 1] or folded
    out = set()
    for w in kept:
        if len(w) > 2 and _unspaced(w):
            out.update(w[i:i + 2] for i in range(len(w) - 1))
        else:
            out.add(w)
    return sorted(out)


class TextMatch(NamedTuple):
    bm25: float  # 0..1, 1 for the best match in the answer
    off_topic: bool
    phrase: bool
    title: float = 0.0  # the query's terms in the title, each weighted by its rarity: 0..1
    address: float = 0.0  # the same in the host and path


class _Counter:
    """Counts the query's terms in a text: each as a whole word, or its plural."""

    def __init__(self, wanted: list[str]) -> None:
        self.wanted = wanted
        # each written word that is a term or a term's plural; a word that is a term itself
        # counts as that term, never as a shorter one's plural
        self.spelled = {t + "s": t for t in wanted} | {t: t for t in wanted}
        self.pattern = None
        if not all(_WORD.fullmatch(t) for t in wanted):
            # a term folding left a sign inside (a Japanese voiced kana's mark, a fraction
            # slash) spans several written words: such a query's terms are found by a pattern
            alternatives = "|".join(re.escape(t) for t in sorted(wanted, key=len, reverse=True))
            self.pattern = re.compile(rf"(?<![^\W_])({alternatives})s?(?![^\W_])")
        # the terms also looked for inside written words (jell-o, 餐具的英文)
        self.joinable = [t for t in wanted if len(t) >= MIN_JOINED or _unspaced(t)]

    def read(self, parts: list[str]) -> tuple[dict[str, int], list[list[str]]]:
        """The count of each term the text of ``parts`` (folded, joined by spaces) holds, and
        the terms each part holds as whole words (a joined spelling counts in the whole text
        only: jell-o's title holds no word "jello")."""
        split = [_WORD.findall(part) for part in parts]
        compact = "".join([w for words in split for w in words])
        counts: dict[str, int] = {}  # in the order the text first holds each term
        if self.pattern is None:
            spelled = self.spelled
            found = [[] if spelled.keys().isdisjoint(words)
                     else list(map(spelled.__getitem__, filter(spelled.__contains__, words)))
                     for words in split]
            for terms in found:
                for t in terms:
                    counts[t] = counts.get(t, 0) + 1
        else:
            found = [self.pattern.findall(part) for part in parts]
            counts.update(Counter(self.pattern.findall(" ".join(parts))))
        for t in self.joinable:
            if t not in counts and t in compact:
                counts[t] = 1
        return counts, found


def text_match(candidates: list[Candidate], query: ParsedQuery, k1: float = 1.2,
               b: float = 0.75) -> list[TextMatch]:
    """Each candidate's match with the query, judged against the other results of the answer."""
    wanted = terms(query)
    if not wanted or not candidates:
        return [TextMatch(0.0, False, False) for _ in candidates]
    counter = _Counter(wanted)
    lengths, found = [], []  # each text's length in words, and the count of each term
    titles = []  # the terms each title holds, and each host and path
    addresses = []
    # a text joined by spaces folds as its parts do, one by one
    texts = [[fold(c.title), fold(c.snippet), fold(f"{c.host} {c.path}")] for c in candidates]
    for parts in texts:
        counts, (in_title, _, in_address) = counter.read(parts)
        lengths.append(len(" ".join(parts).split()))
        found.append(counts)
        titles.append(set(in_title) if in_title else None)
        addresses.append(set(in_address) if in_address else None)
    n = len(found)
    average = sum(lengths) / n
    df = Counter(chain.from_iterable(found))  # the texts that hold each term
    idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
    scores: list[float] = []
    for length, counts in zip(lengths, found, strict=True):
        if not counts:
            scores.append(0)
            continue
        norm = k1 * (1 - b + b * length / average)
        scores.append(sum(idf[t] * f * (k1 + 1) / (f + norm) for t, f in counts.items()))
    best = max(scores) or 1.0
    # off topic only where matching means something: two results or more carry a query word,
    # and the result is written in the query's alphabet (a Cyrillic title cannot spell a Latin
    # query's words: it is another language's page, not another subject's)
    some_match = sum(1 for s in scores if s > 0) >= 2
    latin_query = all(t.isascii() for t in wanted)
    phrases = [" ".join(p) for p in query.phrases]
    weight = sum(idf.values()) or 1.0
    rarity = idf.__getitem__
    out = []
    for c, score, in_title, in_address in zip(candidates, scores, titles, addresses,
                                              strict=True):
        phrase = bool(phrases) and _has_phrases(f"{c.title} {c.snippet}", phrases)
        title = sum(map(rarity, in_title)) / weight if in_title else 0.0
        address = sum(map(rarity, in_address)) / weight if in_address else 0.0
        off_topic = some_match and score == 0 and not (latin_query and _foreign(c.title))
        out.append(TextMatch(score / best, off_topic, phrase, title, address))
    return out


def names_page(query: ParsedQuery, title: str) -> bool:
    """Does the title carry every meaningful word of the query (two or more)? Then the query
    names this very page: the book on sale, the app in its store."""
    wanted = terms(query)
    if len(wanted) < 2:
        return False
    found, _ = _Counter(wanted).read([fold(title)])
    return all(t in found for t in wanted)


def _foreign(title: str) -> bool:
    """A title with letters, none of them Latin (Cyrillic, Greek, CJK...)."""
    if title.isascii():
        return False  # its letters, if any, are Latin
    letters = [ch for ch in title if ch.isalpha()]
    return bool(letters) and not any(ch.isascii() or "LATIN" in _name(ch) for ch in letters)


def _name(ch: str) -> str:
    return unicodedata.name(ch, "")


def _has_phrases(text: str, phrases: list[str]) -> bool:
    words = " " + " ".join(_WORD.findall(fold(text))) + " "
    return all(f" {p} " in words for p in phrases)
