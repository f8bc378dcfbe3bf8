"""MinHash sketches and LSH: similar bodies meet whatever their titles, unrelated ones do not."""

from __future__ import annotations

import random

import numpy as np

from tamis.dupes import DupesConfig, find_duplicates
from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.sketch import BodySketcher, lsh_pairs


def _text(rng: random.Random, vocab: list[str], n: int) -> str:
    return " ".join(rng.choices(vocab, k=n))


def _sketch(texts: list[str], stop_share: float = 0.01) -> BodySketcher:
    sketcher = BodySketcher(64, 2, 3, stop_share)
    for i, text in enumerate(texts):
        sketcher.add(i, text)
    return sketcher


def test_signatures_estimate_jaccard() -> None:
    rng = random.Random(1)
    vocab = [f"w{k}" for k in range(5000)]
    base = _text(rng, vocab, 400).split()
    texts = [" ".join(base), " ".join(base[:300] + [f"x{k}" for k in range(100)])]

    sketches = _sketch(texts).finish()

    estimate = float((sketches.sigs[0] == sketches.sigs[1]).mean())
    exact = jaccard(shingles(texts[0]), shingles(texts[1]))
    assert abs(estimate - exact) < 0.15


def test_lsh_pairs_similar_bodies_only_and_never_all_pairs() -> None:
    rng = random.Random(2)
    vocab = [f"term{k}" for k in range(3000)]
    texts = [_text(rng, vocab, 150) for _ in range(600)]
    planted = []
    for k in range(0, 60, 2):  # edited copies, 0.4-0.8 similar
        words = texts[k].split()
        for _ in range(rng.randint(5, 18)):
            words[rng.randrange(len(words))] = rng.choice(vocab)
        texts.append(" ".join(words))
        planted.append((k, len(texts) - 1))
    sketches = _sketch(texts).finish()

    pairs = set(lsh_pairs(sketches, np.ones(len(texts), dtype=bool), 0.2))

    assert all(pair in pairs for pair in planted)
    assert len(pairs) < 3 * len(planted)  # far from the 200,000 pairs of all against all


def test_rows_left_out_make_no_pairs() -> None:
    texts = ["alpha beta gamma delta epsilon zeta eta theta"] * 2
    sketches = _sketch(texts).finish()

    assert lsh_pairs(sketches, np.array([True, True]), 0.2) == [(0, 1)]
    assert lsh_pairs(sketches, np.array([True, False]), 0.2) == []


def test_bodies_too_short_to_shingle_are_not_sketched() -> None:
    sketches = _sketch(["one two", "three four five six"]).finish()

    assert sketches.index.tolist() == [1]


def test_a_crowd_of_untitled_nodes_is_split_by_bodies_and_the_copy_found() -> None:
    rng = random.Random(3)
    vocab = [f"term{k}" for k in range(3000)]
    nodes = [{"id": k, "title": "Untitled", "notes": _text(rng, vocab, 60)} for k in range(400)]
    nodes[10]["notes"] = nodes[7]["notes"] + " plus one more sentence at the end"

    report = find_duplicates(nodes=nodes, config=DupesConfig())

    assert [(item.verdict, item.ids) for item in report.items] == [("HUMAN-DECISION", [7, 10])]


def test_a_copy_under_a_reworded_title_is_found_by_its_body() -> None:
    rng = random.Random(4)
    vocab = [f"term{k}" for k in range(3000)]
    body = _text(rng, vocab, 200)
    words = body.split()
    for _ in range(12):
        words[rng.randrange(len(words))] = rng.choice(vocab)
    nodes = [
        {"id": 1, "title": "Postgres backup runbook", "notes": body},
        {"id": 2, "title": "Restoring our database from dumps", "notes": " ".join(words)},
        *({"id": 10 + k, "title": f"Note {k}", "notes": _text(rng, vocab, 200)} for k in range(50)),
    ]

    report = find_duplicates(nodes=nodes)

    (item,) = report.items
    assert (item.verdict, item.ids) == ("HUMAN-DECISION", [1, 2])
    assert "bodies alone suffice" in item.why
