"""The ranking's fast paths give exactly what their plain definitions give: the word counts
of a result (ASCII text split as bytes), BM25 (one pass for document frequencies, idf once per
term), the engine evidence (decay looked up in a table)."""

from __future__ import annotations

import math
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tamis.models import Candidate
from tamis.pipeline.intent import fold
from tamis.pipeline.rank import decay, engine_evidence
from tamis.pipeline.relevance import _WORD, _bm25, _bm25_counted, _Terms, tokens


def candidate(title: str, snippet: str = "", path: str = "/",
              positions: dict[str, int] | None = None) -> Candidate:
    positions = positions or {"searxng:bing": 1}
    return Candidate(key="k", url="https://a.example/", title=title, snippet=snippet,
                     host="a.example", domain="a.example", path=path, query="",
                     engines=sorted(positions), positions=positions,
                     lines={"searxng": 1}, line_orders=[0],
                     weights={"searxng": 0.5, "tavily": 2.0}, first_seen=1)


def plain_doc(c: Candidate, terms: list[str]) -> tuple[int, Counter[str]]:
    words = _WORD.findall(fold(f"{c.title} {c.snippet} {c.host} {c.path}"))
    wanted = frozenset(terms)
    return len(words), Counter(w for w in words if w in wanted)


def plain_bm25(terms: list[str], docs: list[tuple[int, Counter[str]]], k1: float = 1.2,
               b: float = 0.75) -> list[float]:
    n = len(docs)
    avg = sum(length for length, _ in docs) / n or 1.0
    df = {t: sum(1 for _, tf in docs if t in tf) for t in terms}
    scores = []
    for length, tf in docs:
        score = 0.0
        for t in terms:
            f = tf.get(t, 0)
            if not f:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * length / avg))
        scores.append(score)
    return scores


text = st.text(alphabet="ab c_-.ÉéßİΣ1…\nAZK", max_size=40)  # K: the Kelvin sign
query = st.text(alphabet="ab cÉé1ß", max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(text, text), min_size=1, max_size=6), query)
def test_counts_and_bm25_are_the_plain_definitions(pages: list[tuple[str, str]],
                                                    q: str) -> None:
    terms = sorted(set(tokens(q)))
    counted = _Terms(terms)
    fast = [counted.doc(candidate(t, s)) for t, s in pages]
    plain = [plain_doc(candidate(t, s), terms) for t, s in pages]
    assert [(n, dict(c)) for n, c in fast] == [(n, dict(c)) for n, c in plain]
    if terms:
        assert _bm25(terms, fast) == plain_bm25(terms, plain)
        assert _bm25_counted(terms, fast) == plain_bm25(terms, plain)  # rank's: counts only
        assert all(list(c) == [t for t in terms if t in c] for _, c in fast)  # terms order


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["Ab c", "ab", "É b", ""]),
                          st.sampled_from(["c ab", "", "b_c"]),
                          st.sampled_from(["/", "/ab/c", "/é", "/c-ab"])), min_size=1,
                max_size=10), query)
def test_shared_titles_count_as_their_own(pages: list[tuple[str, str, str]], q: str) -> None:
    """A title and snippet several results share are counted once: each result's counts are
    still those of its own title, snippet, host and path."""
    terms = sorted(set(tokens(q)))
    found = _Terms(terms).docs([candidate(t, s, p) for t, s, p in pages])
    plain = [plain_doc(candidate(t, s, p), terms) for t, s, p in pages]
    assert [(n, dict(c)) for n, c in found] == [(n, dict(c)) for n, c in plain]
    assert all(list(c) == [t for t in terms if t in c] for _, c in found)  # terms order


@given(st.dictionaries(st.sampled_from(["searxng:bing", "searxng:brave", "tavily", "x:y"]),
                       st.integers(min_value=-3, max_value=300), min_size=1))
def test_engine_evidence_is_the_sum_of_decays(positions: dict[str, int]) -> None:
    c = candidate("t", positions=dict(sorted(positions.items())))
    plain = 0.0
    for label in sorted(positions):
        plain += c.weights.get(label.split(":", 1)[0], 1.0) * decay(positions[label])
    assert engine_evidence(c) == plain
    backwards = candidate("t", positions=dict(sorted(positions.items(), reverse=True)))
    assert engine_evidence(backwards) == plain  # summed in label order whatever the dict's


def test_ascii_counts_whole_words_also_side_by_side() -> None:
    terms = ["pool", "thin"]
    c = candidate("Pool pool-pool  POOL", "thinpool thin_pool thin", path="/pool/pools")
    counted = _Terms(terms)
    length, counts = counted.doc(c)
    assert (length, Counter(counts)) == plain_doc(c, terms)
    assert counts == {"pool": 6, "thin": 2}


def test_tables_are_their_definitions() -> None:
    """The tables built at import in C steps are the ones their definitions give."""
    from tamis.pipeline import rank, relevance

    decays = tuple(decay(p) for p in range(101))
    spaces = bytes(ord(chr(c).lower()) if chr(c).isalnum() and c < 128 else 32
                   for c in range(256))
    shape = bytes(97 if chr(c).isalnum() and c < 128 else 32 for c in range(256))
    built = (rank._DECAYS, relevance._ASCII_SPACES, relevance._ASCII_SHAPE)
    assert built == (decays, spaces, shape)
