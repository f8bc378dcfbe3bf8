"""`tamis dupes` on the command line: the outputs, the config, and one clean line per error."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from tamis.interfaces.cli_dupes import dupes

HEADING = "Duplicate clusters (candidates, never merged automatically)"


def run(*args: str | Path) -> Any:
    return CliRunner().invoke(dupes, [str(a) for a in args])


def run_process(*args: str | Path, hash_seed: str = "0") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tamis.interfaces.cli_dupes", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": hash_seed},
    )


# -- outputs ------------------------------------------------------------------------------------


def test_json_lists_items_checked_and_seconds(example_db: Path) -> None:
    result = run("--db", example_db, "--json")

    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["checked"] == 24  # 26 nodes, two archived
    assert isinstance(out["seconds"], float)
    assert [(i["verdict"], i["ids"]) for i in out["items"]] == [
        ("WRITER-DEFECT", [500, 501, 502, 503, 504]),
        ("SAFE-MERGE", [40, 41]),
        ("HUMAN-DECISION", [50, 51]),
    ]
    family = out["items"][0]
    assert family["run_family"] is True
    assert family["agents"] == ["digest-bot"]
    assert family["span_days"] == 4.0
    for item in out["items"]:
        assert {"title_similarity", "body_similarity", "template"} <= item["evidence"].keys()


def test_json_is_stable_from_run_to_run(example_db: Path) -> None:
    first = json.loads(run("--db", example_db, "--format", "json").stdout)
    second = json.loads(run("--db", example_db, "--format", "json").stdout)

    first.pop("seconds")
    second.pop("seconds")
    assert first == second


def test_json_does_not_depend_on_the_hash_seed(example_db: Path) -> None:
    outputs = [run_process("--db", example_db, "--json", hash_seed=seed) for seed in ("1", "2")]

    reports = [json.loads(p.stdout) for p in outputs]
    for report in reports:
        report.pop("seconds")
    assert reports[0] == reports[1]


def test_the_report_has_one_line_per_cluster(example_db: Path) -> None:
    result = run("--db", example_db)  # the report is the default

    assert result.exit_code == 0
    heading, *lines = result.stdout.splitlines()
    assert heading.startswith(HEADING)
    assert [line.split()[0] for line in lines] == [
        "WRITER-DEFECT",
        "SAFE-MERGE",
        "HUMAN-DECISION",
    ]
    assert "writer digest-bot" in lines[0] and "never merge" in lines[0]
    assert "propose connect" in lines[2]


def test_an_empty_report_still_says_none(make_db: Callable[..., Path]) -> None:
    result = run("--db", make_db([]), "--format", "report")

    assert result.exit_code == 0
    assert result.stdout.splitlines()[1:] == ["  none"]


def test_the_report_shows_unfixed_and_vanished(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], tmp_path: Path
) -> None:
    state = tmp_path / "state.json"
    run("--db", make_db(nodes, name="a.sqlite"), "--state", state)
    later = [n for n in nodes if n["id"] != 41]
    later.append({**nodes[4], "id": 505, "created_at": "2024-05-06T06:00:00Z"})
    later[-1]["title"] = "Daily digest 2024-05-06"

    result = run("--db", make_db(later, name="b.sqlite"), "--state", state)

    assert result.exit_code == 0, result.output
    unfixed = next(line for line in result.stdout.splitlines() if "WRITER-DEFECT" in line)
    assert unfixed.split()[1] == "UNFIXED"
    assert "writer digest-bot" in unfixed and "+1 since the last report" in unfixed
    assert "Vanished since the last report:" in result.stdout
    assert result.stdout.rstrip().endswith("SAFE-MERGE     ids 40, 41")


def test_jsonl_input(make_jsonl: Callable[..., Path], nodes: list[dict[str, Any]]) -> None:
    result = run("--jsonl", make_jsonl(nodes), "--json")

    assert result.exit_code == 0
    assert len(json.loads(result.stdout)["items"]) == 3



def test_the_report_sends_no_terminal_sequence_from_the_graph(
    make_jsonl: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    """A title that writes the clipboard (OSC 52) or clears the screen, in a node of the
    graph, is shown without its sequence: the report is read on a terminal."""
    for node in nodes:
        if node["id"] in (40, 41):
            node["title"] = "\x1b]52;c;ZXZpbA==\x07\x1b[2J" + node["title"]

    result = run("--jsonl", make_jsonl(nodes))

    assert result.exit_code == 0
    merge = next(line for line in result.stdout.splitlines() if "SAFE-MERGE" in line)
    assert "ids 40, 41" in merge
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout

# -- config -------------------------------------------------------------------------------------


def test_config_thresholds_change_what_is_reported(example_db: Path, tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("dupes:\n  body_threshold: 0.95\n  family_min_nodes: 6\n")

    result = run("--db", example_db, "--config", config, "--json")

    assert result.exit_code == 0, result.output
    assert [i["verdict"] for i in json.loads(result.stdout)["items"]] == ["SAFE-MERGE"]


@pytest.mark.parametrize(
    ("yaml_text", "expected"),
    [
        ("dupes:\n  body_treshold: 0.4\n", "dupes.body_treshold: unknown setting"),
        ("dupes:\n  body_threshold: 1.5\n", "dupes.body_threshold: Input should be less than"),
        ("dupes:\n  writer_keys: agent\n", "dupes.writer_keys: Input should be a valid list"),
        ("dupes: [1, 2]\n", "dupes: expected a mapping"),
        ("dupes:\n  body_threshold: [\n", "not valid YAML"),
    ],
)
def test_a_bad_config_is_one_line_naming_file_and_key(
    example_db: Path, tmp_path: Path, yaml_text: str, expected: str
) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text(yaml_text)

    result = run("--db", example_db, "--config", config)

    assert result.exit_code == 2
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert str(config) in line and expected in line


# -- errors -------------------------------------------------------------------------------------


def sqlite_with(path: Path, create: str) -> Path:
    conn = sqlite3.connect(path)
    conn.execute(create)
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize(
    ("make_input", "expected"),
    [
        (lambda d: ("--db", d / "missing.sqlite"), "database not found: {d}/missing.sqlite"),
        (
            lambda d: ("--db", (d / "notes.txt", (d / "notes.txt").write_text("hello"))[0]),
            "{d}/notes.txt: not an SQLite database",
        ),
        (
            lambda d: ("--db", sqlite_with(d / "other.sqlite", "CREATE TABLE notes (id, text)")),
            "{d}/other.sqlite: no 'nodes' table (tables: notes)",
        ),
        (
            lambda d: ("--db", sqlite_with(d / "odd.sqlite", "CREATE TABLE nodes (id, title)")),
            "{d}/odd.sqlite: table 'nodes' has no body column (looked for notes, content, body;",
        ),
        (
            lambda d: (
                "--jsonl",
                (d / "n.jsonl", (d / "n.jsonl").write_text('{"id": 1, "title": "a"}\n{oops\n'))[0],
            ),
            "{d}/n.jsonl:2: not valid JSON",
        ),
        (
            lambda d: (
                "--jsonl",
                (d / "m.jsonl", (d / "m.jsonl").write_text('{"title": "no id"}\n'))[0],
            ),
            "{d}/m.jsonl:1: missing 'id'",
        ),
        (lambda d: ("--jsonl", d / "gone.jsonl"), "JSONL file not found: {d}/gone.jsonl"),
        (
            lambda d: (
                "--jsonl",
                (d / "deep.jsonl", (d / "deep.jsonl").write_text("[" * 100_000 + "]" * 100_000))[0],
            ),
            "{d}/deep.jsonl:1: not valid JSON (nested too deep)",
        ),
    ],
    ids=[
        "missing",
        "not-sqlite",
        "no-nodes-table",
        "no-body-column",
        "bad-jsonl-line",
        "jsonl-no-id",
        "no-jsonl",
        "jsonl-nested-too-deep",
    ],
)
def test_input_errors_are_one_clean_line_and_exit_2(
    tmp_path: Path, make_input: Callable[[Path], tuple[str, Path]], expected: str
) -> None:
    args = make_input(tmp_path)

    result = run(*args)
    process = run_process(*args)

    message = f"error: {expected.format(d=tmp_path)}"
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr.splitlines()[0].startswith(message)
    assert len(result.stderr.splitlines()) == 1
    assert process.returncode == 2
    assert process.stderr.strip().startswith(message)
    assert "Traceback" not in process.stderr


@pytest.mark.parametrize("bad_id", [{"id": 1}, [1]], ids=["mapping", "list"])
def test_a_state_item_whose_ids_are_not_ids_is_one_clean_line(
    example_db: Path, tmp_path: Path, bad_id: object
) -> None:
    state = tmp_path / "state.json"
    key = json.loads(run("--db", example_db, "--json").stdout)["items"][0]["key"]
    text = json.dumps({"items": [{"key": key, "ids": [bad_id]}]})
    state.write_text(text)

    result = run("--db", example_db, "--state", state)

    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == (f"error: {state}: state file item 1 has an id that is not a number"
                             " or a text; delete it to start over\n")
    assert state.read_text() == text  # left for the person to look at


def test_metadata_nested_too_deep_is_no_metadata(make_db: Callable[..., Path],
                                                 nodes: list[dict[str, Any]]) -> None:
    db = make_db(nodes)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE nodes SET metadata = ?", ("[" * 100_000 + "]" * 100_000,))
    conn.close()

    result = run("--db", db)

    assert (result.exit_code, result.stderr) == (0, "")


def test_times_no_date_can_show_are_no_times(make_jsonl: Callable[..., Path]) -> None:
    """A created_at in the year 3 million, 1e30, NaN or Infinity: the node has no time."""
    stamps = [99_999_999_999_999_999, "1e30", "NaN", "Infinity", 10**400, "2026-01-01T00:00Z"]
    path = make_jsonl([{"id": i, "title": "digest", "notes": "same body of text", "created_at": t,
                        "metadata": {"agent": "bot"}} for i, t in enumerate(stamps)])

    result = run("--jsonl", path, "--json")

    assert (result.exit_code, result.stderr) == (0, "")
    assert json.loads(result.stdout)["checked"] == len(stamps)


def test_exactly_one_input_is_required(example_db: Path, tmp_path: Path) -> None:
    neither = run("--json")
    both = run("--db", example_db, "--jsonl", tmp_path / "x.jsonl")

    assert neither.exit_code == both.exit_code == 2
    assert "give exactly one input" in neither.stderr


def test_the_module_runs_as_a_program(example_db: Path) -> None:
    process = run_process("--db", example_db)

    assert process.returncode == 0, process.stderr
    assert process.stdout.startswith(HEADING)


def test_lone_surrogates_in_a_jsonl_file_never_break_the_output(tmp_path: Path) -> None:
    body = "some body text that is long enough to be compared by its word shingles here"
    lines = [
        '{"id": "n\\ud800", "title": "Bad \\ud800 title", "notes": "' + body + '"}',
        '{"id": 2, "title": "Bad \\ud800 title", "notes": "", "metadata": {"agent": "b\\udfff"}}',
    ]
    path = tmp_path / "nodes.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    for extra in ([], ["--json"]):
        done = subprocess.run(
            [sys.executable, "-m", "tamis.interfaces.cli_dupes", "--jsonl", str(path), *extra],
            capture_output=True, text=True, encoding="utf-8",
        )
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    report = json.loads(done.stdout)
    assert [item["evidence"]["reason"] for item in report["items"]] == ["stub"]
