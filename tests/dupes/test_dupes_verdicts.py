"""Each verdict is found on the planted example graph, and no hard negative is reported."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tamis.dupes import DupesConfig, Item, Report, find_duplicates
from tamis.dupes.similarity import jaccard, shingles
from tamis.dupes.titles import title_similarity

HARD_NEGATIVES = {357, 358, 359, 360, 1792, 1793, 52, 53, 600, 601, 602, 603, 70, 71, 80}
ARCHIVED = {81, 82}


def by_verdict(report: Report, verdict: str) -> list[Item]:
    return [item for item in report.items if item.verdict == verdict]


def reported_ids(report: Report) -> set[Any]:
    return {i for item in report.items for i in item.ids}


@pytest.mark.parametrize("body_column", ["notes", "content"])
def test_every_verdict_is_found_in_both_schemas(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], body_column: str
) -> None:
    report = find_duplicates(make_db(nodes, body_column=body_column))

    assert report.source.body_column == body_column
    assert [(item.verdict, item.ids) for item in report.items] == [
        ("WRITER-DEFECT", [500, 501, 502, 503, 504]),
        ("SAFE-MERGE", [40, 41]),
        ("HUMAN-DECISION", [50, 51]),
    ]


def test_writer_defect_names_the_writer_span_cadence_and_template(example_db: Path) -> None:
    (family,) = by_verdict(find_duplicates(example_db), "WRITER-DEFECT")

    assert family.run_family is True
    assert family.agents == ["digest-bot"]
    assert family.span_days == 4.0
    assert family.cadence == "daily"
    assert family.template == "daily digest <date>"
    assert "never merge" in family.action
    as_json = family.to_dict()
    assert as_json["run_family"] is True
    assert as_json["agents"] == ["digest-bot"]


def test_safe_merge_ignores_whitespace_but_still_asks_a_human(example_db: Path) -> None:
    (item,) = by_verdict(find_duplicates(example_db), "SAFE-MERGE")

    assert item.body_similarity == 1.0
    assert item.title_similarity == 1.0  # "(copy)" is a version marker, not a subject
    assert "human decision" in item.action


def test_human_decision_carries_pair_evidence_and_proposes_an_edge(example_db: Path) -> None:
    (item,) = by_verdict(find_duplicates(example_db), "HUMAN-DECISION")

    (pair,) = item.pairs
    assert (pair.a, pair.b) == (50, 51)
    assert pair.title_similarity >= 0.8
    assert 0.5 <= pair.body_similarity < 1.0
    assert pair.connected is False
    assert "propose connect" in item.action and "never merge" in item.action


def test_an_existing_edge_is_shown_as_already_connected(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    report = find_duplicates(make_db(nodes, edges=[(51, 50)]))

    (item,) = by_verdict(report, "HUMAN-DECISION")
    assert item.pairs[0].connected is True
    assert item.action.startswith("already connected")


def test_hard_negatives_are_hard_yet_never_reported(
    example_db: Path, nodes: list[dict[str, Any]]
) -> None:
    body = {n["id"]: n["notes"] for n in nodes}
    title = {n["id"]: n["title"] for n in nodes}
    # The old rule (title overlap > 70%) would have flagged these families...
    for a, b in [(357, 358), (359, 360), (1792, 1793), (52, 53)]:
        assert title_similarity(title[a], title[b]) > 0.8
    # ...whose bodies are only 0.1-0.3 similar (the service requests differ only in a number).
    for a, b in [(357, 358), (357, 360), (1792, 1793)]:
        assert 0.1 <= jaccard(shingles(body[a]), shingles(body[b])) <= 0.3

    report = find_duplicates(example_db)

    assert reported_ids(report).isdisjoint(HARD_NEGATIVES)


def test_archived_nodes_are_left_out_unless_asked_for(example_db: Path) -> None:
    report = find_duplicates(example_db)
    assert reported_ids(report).isdisjoint(ARCHIVED)
    assert report.source.archived_skipped == 2

    everything = find_duplicates(example_db, config=DupesConfig(include_archived=True))
    (item,) = by_verdict(everything, "SAFE-MERGE")
    assert item.ids == [40, 41, 81, 82]


def test_a_writer_can_come_from_a_dimension(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    for node in nodes:
        if node["id"] in range(500, 505):
            node["metadata"] = {}
            node["dimensions"] = ["agent:digest-bot", "news"]

    (family,) = by_verdict(find_duplicates(make_db(nodes)), "WRITER-DEFECT")

    assert family.agents == ["digest-bot"]


def test_a_database_without_dimension_table_still_works(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    report = find_duplicates(make_db(nodes, with_dimensions=False))

    assert report.source.has_dimensions is False
    assert [item.verdict for item in report.items] == [
        "WRITER-DEFECT",
        "SAFE-MERGE",
        "HUMAN-DECISION",
    ]


def test_irregular_runs_are_not_a_family(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    stamps = ["2024-05-01", "2024-05-02", "2024-05-09", "2024-05-30", "2024-07-01"]
    for node, stamp in zip(
        (n for n in nodes if n["id"] >= 500 and n["id"] < 505), stamps, strict=True
    ):
        node["created_at"] = stamp

    report = find_duplicates(make_db(nodes))

    assert by_verdict(report, "WRITER-DEFECT") == []


def test_jsonl_input_gives_the_same_verdicts(
    make_jsonl: Callable[..., Path], example_db: Path, nodes: list[dict[str, Any]]
) -> None:
    from_db = find_duplicates(example_db)
    from_jsonl = find_duplicates(jsonl=make_jsonl(nodes))

    assert from_jsonl.source.kind == "jsonl"
    assert [(i.verdict, i.ids) for i in from_jsonl.items] == [
        (i.verdict, i.ids) for i in from_db.items
    ]


def test_python_api_accepts_node_mappings(nodes: list[dict[str, Any]]) -> None:
    report = find_duplicates(nodes=nodes)

    assert report.checked == len(nodes) - len(ARCHIVED)
    assert {item.verdict for item in report.items} == {
        "WRITER-DEFECT",
        "SAFE-MERGE",
        "HUMAN-DECISION",
    }


def test_an_empty_graph_reports_nothing_but_says_so(make_db: Callable[..., Path]) -> None:
    report = find_duplicates(make_db([]))

    assert report.items == []
    assert report.checked == 0
