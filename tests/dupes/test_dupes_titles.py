"""Title measures: run templates, version markers, record numbers, trigram similarity."""

from __future__ import annotations

import pytest

from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.titles import core_title, record_numbers, title_similarity, title_template


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
        ("Feed crawl run-3f9a2c", "feed crawl run-<id>"),  # short hex run id
        ("Backup job r7x9k2", "backup job <id>"),  # short alphanumeric run id
        ("Backup job 7r9xk2 done", "backup job <id> done"),
    ],
)
def test_templates_mask_dates_times_runs_and_ids(title: str, template: str) -> None:
    assert title_template(title) == template


@pytest.mark.parametrize(
    "variant",
    [
        "Postgres backup runbook (2)",
        "Postgres backup runbook (v2)",
        "Postgres backup runbook - updated",
        "Postgres backup runbook (draft)",
        "More on: Postgres backup runbook",
        "Postgres backup runbook (follow-up)",
        "Postgres backup runbook (copy)",
        "postgres BACKUP runbook",
    ],
)
def test_version_markers_are_noise(variant: str) -> None:
    assert core_title(variant) == "postgres backup runbook"
    assert title_similarity(variant, "Postgres backup runbook") == 1.0
    assert record_numbers(variant) == ()


def test_record_numbers_are_signal() -> None:
    assert record_numbers("SR-2023-052 printer offline") == (2023, 52)
    assert record_numbers("SR-2023-052") != record_numbers("SR-2023-053")
    assert record_numbers("Q3 budget review") != record_numbers("Q4 budget review")
    assert record_numbers("Runbook v2") == record_numbers("runbook") == ()
    assert record_numbers("Sprint 41 retrospective (2)") == (41,)


def test_a_marker_alone_is_kept_as_the_title() -> None:
    assert core_title("(draft)") == "draft"
    assert core_title("Untitled (2)") == "untitled"


def test_bodies_compare_by_word_shingles() -> None:
    text = "the quick brown fox jumps over the lazy dog"

    assert jaccard(shingles(text), shingles(text.upper())) == 1.0
    assert jaccard(shingles(text), shingles("completely different words here")) == 0.0
    assert 0.3 < jaccard(shingles(text), shingles(text.replace("lazy", "sleepy"))) < 0.8
