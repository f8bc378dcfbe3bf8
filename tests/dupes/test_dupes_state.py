"""Over time: a family that grew is UNFIXED and names its writer; new and vanished are marked."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tamis.dupes import DupesError, Item, Report, find_duplicates


def item(report: Report, verdict: str) -> Item:
    (found,) = [i for i in report.items if i.verdict == verdict]
    return found


def another_digest(day: int) -> dict[str, Any]:
    return {
        "id": 499 + day,
        "title": f"Daily digest 2024-05-{day:02d}",
        "notes": f"Top story of the day: story {day}. Five links collected from the feeds today.",
        "created_at": f"2024-05-{day:02d}T06:00:00Z",
        "metadata": {"agent": "digest-bot"},
    }


def test_first_run_marks_everything_new_and_keeps_the_report(
    example_db: Path, tmp_path: Path
) -> None:
    state = tmp_path / "dupes-state.json"

    report = find_duplicates(example_db, state=state)

    assert {i.status for i in report.items} == {"new"}
    assert report.previous_report is False
    kept = json.loads(state.read_text())
    assert [i["key"] for i in kept["items"]] == [i.key for i in report.items]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".dupes-state")] == []


def test_an_unchanged_graph_is_seen_again(example_db: Path, tmp_path: Path) -> None:
    state = tmp_path / "state.json"
    find_duplicates(example_db, state=state)

    again = find_duplicates(example_db, state=state)

    assert {i.status for i in again.items} == {"seen"}
    assert again.vanished == []


def test_a_family_that_grew_is_unfixed_and_names_its_writer(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    find_duplicates(make_db(nodes, name="monday.sqlite"), state=state)

    nodes += [another_digest(6), another_digest(7)]  # the writer still adds a node per run
    report = find_duplicates(make_db(nodes, name="wednesday.sqlite"), state=state)

    family = item(report, "WRITER-DEFECT")
    assert family.status == "UNFIXED"
    assert family.added_ids == [505, 506]
    assert family.action.startswith("UNFIXED: writer digest-bot still adds a node per run (+2")
    assert report.counts()["UNFIXED"] == 1
    assert item(report, "SAFE-MERGE").status == "seen"


def test_a_job_that_moved_to_another_writer_keeps_its_key_and_names_the_new_one(
    tmp_path: Path,
) -> None:
    state = tmp_path / "state.json"
    nodes = [another_digest(day) for day in range(1, 6)]
    find_duplicates(nodes=nodes, state=state)

    moved = [{**another_digest(day), "metadata": {"agent": "digest@scheduler"}}
             for day in (6, 7, 8)]
    report = find_duplicates(nodes=nodes + moved, state=state)

    (family,) = report.items
    assert family.agents == ["digest-bot", "digest@scheduler"]
    assert (family.status, family.added_ids) == ("UNFIXED", [505, 506, 507])
    assert family.action.startswith(
        "UNFIXED: writer digest@scheduler (earlier digest-bot) still adds a node per run (+3"
    )
    assert report.vanished == []


def test_new_and_vanished_clusters_are_marked(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    find_duplicates(make_db(nodes, name="before.sqlite"), state=state)

    without_copy = [n for n in nodes if n["id"] != 41]  # someone resolved the runbook copy
    third_copy = {**nodes[7], "id": 54, "title": "Onboarding checklist for new engineers v"}
    third_copy["notes"] = nodes[7]["notes"].replace("buddy", "mentor")
    report = find_duplicates(make_db([*without_copy, third_copy], name="after.sqlite"), state=state)

    assert [(v.verdict, v.ids) for v in report.vanished] == [("SAFE-MERGE", [40, 41])]
    human = item(report, "HUMAN-DECISION")
    assert human.ids == [50, 51, 54]
    assert human.status == "changed"
    assert human.added_ids == [54]
    assert report.to_dict()["vanished"] == [
        {"key": report.vanished[0].key, "verdict": "SAFE-MERGE", "ids": [40, 41]}
    ]


@pytest.mark.parametrize("text", ["{not json", "[" * 100_000 + "]" * 100_000])
def test_a_corrupt_state_file_is_a_clean_error(example_db: Path, tmp_path: Path,
                                              text: str) -> None:
    state = tmp_path / "state.json"
    state.write_text(text)

    with pytest.raises(DupesError, match="delete it to start over") as caught:
        find_duplicates(example_db, state=state)

    assert str(caught.value).startswith(f"{state}: state file is not a tamis dupes report")
    assert state.read_text() == text  # left for the person to look at


def test_a_state_path_that_is_not_a_regular_file_is_refused(example_db: Path,
                                                            tmp_path: Path) -> None:
    """A directory, or a device (/dev/zero would be read forever, /dev/full replaced by a
    file when the report is saved): refused before anything is read or written."""
    paths = [tmp_path] + [Path(d) for d in ("/dev/zero", "/dev/full") if Path(d).exists()]
    for path in paths:
        with pytest.raises(DupesError, match="must be a regular file"):
            find_duplicates(example_db, state=path)
    assert all(not p.is_file() for p in paths)
