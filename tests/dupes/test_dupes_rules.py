"""The rules of issue 12 one at a time, on small graphs built beside the example graph."""

from __future__ import annotations

from typing import Any

from tamis.dupes import DupesConfig, find_duplicates

QUIET = (
    "Quiet run: nothing new since the last run. No items collected, no alerts raised, "
    "nothing to summarise. Next run as scheduled."
)
BODY = (
    "The cache warms from the nightly export; a cold start takes forty minutes on the big "
    "cluster, so deploys happen after the warm-up finishes and the hit rate passes ninety "
    "percent. Eviction follows the least recently used rule with a two hour floor."
)


def _node(node_id: int, title: str, body: str, created: str, **meta: Any) -> dict[str, Any]:
    return {"id": node_id, "title": title, "notes": body, "created_at": created, "metadata": meta}


def _verdicts(nodes: list[dict[str, Any]], **config: Any) -> list[tuple[str, list[Any]]]:
    report = find_duplicates(nodes=nodes, config=DupesConfig(**config))
    return [(item.verdict, item.ids) for item in report.items]


def test_quiet_runs_with_run_ids_are_a_family_never_a_safe_merge() -> None:
    nodes = [
        _node(k, f"Feed crawl run-{0x3F9A2C + 7919 * k:06x}", QUIET,
              f"2024-05-{k:02d}T06:0{k % 10}:00Z", agent="crawl-bot")
        for k in range(1, 8)
    ]

    assert _verdicts(nodes) == [("WRITER-DEFECT", [1, 2, 3, 4, 5, 6, 7])]


def test_ui_nodes_are_no_writer_and_source_is_not_a_writer_key() -> None:
    typed = [
        _node(k, f"Journal 2024-05-{k:02d}", f"{BODY} Day {k} notes.", f"2024-05-{k:02d}T21:00:00Z",
              source="ui")
        for k in range(1, 8)
    ]
    assert _verdicts(typed) == []
    assert _verdicts(typed, writer_keys=["source"], human_writers=[]) == [
        ("WRITER-DEFECT", list(range(1, 8)))
    ]
    assert _verdicts(typed, writer_keys=["source"]) == []  # "ui" is on the human/UI list


def test_a_burst_by_one_agent_is_a_safe_merge_not_a_schedule() -> None:
    nodes = [
        _node(k, "Cache warm-up notes", BODY, f"2024-05-01T10:0{k}:00Z", agent="clipper")
        for k in range(1, 4)
    ]

    assert _verdicts(nodes) == [("SAFE-MERGE", [1, 2, 3])]


def test_meetings_titled_by_date_are_neither_a_family_nor_the_same_subject() -> None:
    agenda = "Agenda: status of open items, blockers, decisions and next steps for the team. "
    days = ["2024-03-04T10:40:00Z", "2024-03-06T15:10:00Z", "2024-03-11T09:55:00Z",
            "2024-03-19T16:30:00Z", "2024-03-25T11:20:00Z"]
    nodes = [
        _node(k, f"Team sync {day[:10]}", agenda + BODY, day, agent="notetaker")
        for k, day in enumerate(days, start=1)
    ]

    assert _verdicts(nodes) == []  # same bodies, but each date names its own meeting


def test_record_numbers_reject_and_version_markers_do_not() -> None:
    edited = BODY.replace("forty minutes", "forty five minutes").replace("two hour", "three hour")
    nodes = [
        _node(1, "SR-2023-052 cache cold start", BODY, "2024-01-01"),
        _node(2, "SR-2023-053 cache cold start", edited, "2024-01-02"),
        _node(3, "Cache warm-up runbook", BODY + " Owner: platform.", "2024-01-03"),
        _node(4, "Cache warm-up runbook (v2)", edited + " Owner: platform.", "2024-01-04"),
    ]

    assert _verdicts(nodes) == [("HUMAN-DECISION", [3, 4])]


def test_identical_bodies_under_different_record_numbers_are_two_records() -> None:
    template = "Invoice generated from the monthly template; see the attached PDF for the lines."
    nodes = [
        _node(1, "Invoice 2024-05", template, "2024-05-31"),
        _node(2, "Invoice 2024-06", template, "2024-06-30"),
        _node(3, "Invoice 2024-06 (copy)", template, "2024-07-01"),
    ]

    assert _verdicts(nodes) == [("SAFE-MERGE", [2, 3])]


def test_a_stub_beside_its_full_node_is_reported_with_its_own_reason() -> None:
    nodes = [
        _node(1, "Cache warm-up runbook", BODY, "2024-01-01"),
        _node(2, "Cache warm-up runbook", "TODO", "2024-01-02"),
        _node(3, "Untitled", "", "2024-01-03"),
        _node(4, "Untitled", "", "2024-01-04"),
        _node(5, "Scratch pad", "todo", "2024-01-05"),
        _node(6, "Scratch pad 2", "todo", "2024-01-06"),
    ]

    report = find_duplicates(nodes=nodes)

    (item,) = report.items
    assert (item.verdict, item.ids, item.reason) == ("HUMAN-DECISION", [1, 2], "stub")
    assert item.why == (
        f'identical titles "Cache warm-up runbook"; stub 2 (4 chars) beside 1 ({len(BODY)} chars)'
    )
    assert item.to_dict()["evidence"]["reason"] == "stub"


def test_every_item_says_why_in_one_line() -> None:
    nodes = [
        _node(1, "Cache warm-up runbook", BODY, "2024-01-01"),
        _node(2, "Cache warm-up runbook (copy)", BODY, "2024-01-02"),
        _node(3, "Cache warm-up runbook", "", "2024-01-02"),
    ]
    for item in find_duplicates(nodes=nodes).items:
        assert item.why and "\n" not in item.why
