"""The text measures: title templates, title blocking, body shingles, MinHash and LSH."""

from __future__ import annotations

import random
from itertools import combinations
from typing import Any

import pytest

from tamis.dupes import DupesConfig, find_duplicates
from tamis.dupes.detect import cadence_of
from tamis.dupes.similarity import (
    band_keys,
    jaccard,
    lsh_pairs,
    minhash,
    normalise_title,
    shingles,
    title_blocks,
    title_numbers,
    title_template,
)


@pytest.mark.parametrize(
    ("title", "template"),
    [
        ("Daily digest 2024-05-01", "daily digest <date>"),
        ("Daily digest 2024-05-01T06:00:00Z", "daily digest <date> <time>"),
        ("Inbox sweep 14:30 (run #41)", "inbox sweep <time> (run #<n>)"),
        ("Weekly report, March 2024", "weekly report, <date>"),
        ("Standup notes Monday 3 June", "standup notes <day> <date>"),
        ("Crawl 3f9a2c1e7b: 120 pages", "crawl <id>: <n> pages"),
        ("Sync 123e4567-e89b-12d3-a456-426614174000", "sync <id>"),
        ("SR-2023-052 printer offline", "sr-<n>-<n> printer offline"),
    ],
)
def test_templates_mask_dates_times_runs_and_ids(title: str, template: str) -> None:
    assert title_template(title) == template


def test_digits_carry_meaning() -> None:
    assert title_numbers("SR-2023-052") == (2023, 52)
    assert title_numbers("SR-2023-052") != title_numbers("SR-2023-053")
    assert title_numbers("Runbook v2") == title_numbers("runbook V2")


def test_bodies_compare_by_word_shingles() -> None:
    text = "the quick brown fox jumps over the lazy dog"

    assert jaccard(shingles(text), shingles(text.upper())) == 1.0
    assert jaccard(shingles(text), shingles("completely different words here")) == 0.0
    assert 0.3 < jaccard(shingles(text), shingles(text.replace("lazy", "sleepy"))) < 0.8


def test_titles_one_word_apart_always_share_a_block() -> None:
    rng = random.Random(7)
    vocab = [f"{a}{b}{c}" for a in "bdkmprst" for b in "aeiou" for c in ["ra", "lo", "nte"]]
    titles = [" ".join(rng.sample(vocab, rng.randint(1, 5))) for _ in range(400)]
    variants = []
    for title in titles:  # one word added, changed, or pluralised
        words = title.split()
        k = rng.randrange(len(words))
        edit = rng.choice(["add", "change", "plural"])
        if edit == "add":
            words.insert(k, rng.choice(vocab))
        elif edit == "change" and len(words) > 1:
            words[k] = rng.choice(vocab)
        else:
            words[k] += "s"
        variants.append(" ".join(words))
    corpus = [normalise_title(t) for t in dict.fromkeys(titles + variants)]

    blocks = list(title_blocks(corpus, [None] * len(corpus)))

    pairs = {pair for block in blocks for pair in combinations(block, 2)}
    position = {t: i for i, t in enumerate(corpus)}
    for title, variant in zip(titles, variants, strict=True):
        i, j = sorted((position[title], position[variant]))
        assert i == j or (i, j) in pairs, (title, variant)
    assert len(pairs) < len(corpus) * (len(corpus) - 1) // 20  # far from all pairs


def test_titles_with_different_numbers_never_share_a_block() -> None:
    corpus = ["sr 2023 052 printer offline", "sr 2023 053 printer offline"]
    blocks = [title_numbers(t) for t in corpus]

    assert list(title_blocks(corpus, blocks)) == []
    assert {tuple(block) for block in title_blocks(corpus, [(), ()])} == {(0, 1)}


def test_minhash_estimates_jaccard() -> None:
    rng = random.Random(1)
    words = [f"w{rng.randint(0, 5000)}" for _ in range(400)]
    a = shingles(" ".join(words))
    b = shingles(" ".join(words[:300] + [f"x{k}" for k in range(100)]))

    sig_a, sig_b = minhash(a, 128), minhash(b, 128)
    estimate = sum(x == y for x, y in zip(sig_a, sig_b, strict=True)) / 128

    assert abs(estimate - jaccard(a, b)) < 0.15


def test_lsh_pairs_similar_signatures_only() -> None:
    base = shingles(" ".join(f"word{k}" for k in range(200)))
    near = shingles(" ".join(f"word{k}" for k in range(190)) + " tail end")
    far = shingles(" ".join(f"other{k}" for k in range(200)))
    bands = {k: band_keys(minhash(s, 32), rows=2) for k, s in enumerate([base, near, far])}

    assert lsh_pairs(bands) == {(0, 1)}


def test_a_huge_block_of_equal_titles_is_split_by_lsh_and_still_found() -> None:
    rng = random.Random(3)
    vocab = [f"term{k}" for k in range(3000)]
    nodes: list[dict[str, Any]] = [
        {"id": k, "title": "Untitled", "notes": " ".join(rng.choices(vocab, k=60))}
        for k in range(400)
    ]
    nodes[10]["notes"] = nodes[7]["notes"] + " plus one more sentence at the end"
    config = DupesConfig(max_block_pairs=100)  # 400 "Untitled" nodes: 79,800 pairs otherwise

    report = find_duplicates(nodes=nodes, config=config)

    assert [(item.verdict, item.ids) for item in report.items] == [("HUMAN-DECISION", [7, 10])]


@pytest.mark.parametrize(
    ("gaps_hours", "cadence"),
    [
        ([24, 24, 24, 24], "daily"),
        ([24, 25, 23, 48, 24], "daily"),  # one missed run is still a cadence
        ([1, 1, 1], "hourly"),
        ([168, 170, 167], "weekly"),
        ([6, 6, 6], "every 6.0 h"),
        ([24, 120, 3, 700], None),  # irregular: someone's notes, not a schedule
        ([0.01, 0.01, 0.01], None),  # a burst: an import, not a schedule
    ],
)
def test_cadence(gaps_hours: list[float], cadence: str | None) -> None:
    times = [0.0]
    for gap in gaps_hours:
        times.append(times[-1] + gap * 3600)

    found = cadence_of(times, DupesConfig())

    assert (found[1] if found else None) == cadence
