"""Builders for small RA-H OS graphs with planted duplicate cases, shared by the dupes tests.

`example_nodes()` is the graph the tests (and docs/dupes.md) talk about:

- WRITER-DEFECT: `digest-bot` writes "Daily digest <date>" every morning (ids 500-504);
- SAFE-MERGE: the Postgres backup runbook saved twice, bodies equal up to whitespace (40, 41);
- HUMAN-DECISION: an onboarding checklist and its edited draft (50, 51);
- hard negatives, never reported: four client workflows of one family (357-360: titles nearly
  equal, bodies 0.1-0.3 similar), two machines' migrations (1792, 1793), two service requests
  whose titles differ only in their number (SR-2023-052/053), a person's weekly reviews, trivially
  short identical bodies, and an archived copy of the runbook.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

DAY = "2024-05-{:02d}T06:00:{:02d}Z"

BOILERPLATE = (
    "This workflow covers intake, scoping and weekly reporting for the client. The account lead "
    "owns the relationship and the analyst prepares the weekly summary for the steering call."
)
CLIENTS = {
    357: (
        "Acme",
        "Acme sends purchase orders by EDI every Monday; invoices go to their Lisbon office; "
        "escalations go to Maria Okafor; the SLA is two business days and data arrives as CSV "
        "exports from SAP. Their finance team closes the books on the third working day.",
    ),
    358: (
        "Apex",
        "Apex uploads drawings to a shared Dropbox; change requests need sign-off from the chief "
        "engineer; billing is quarterly in Norwegian kroner and the freight forwarder is DSV. "
        "Site visits need steel-toe boots and a badge.",
    ),
    359: (
        "Axis",
        "Axis is a hospital group, so every document passes a privacy review first; meetings are "
        "on Thursdays in Ghent and the contract renews each January after an audit. Their IT "
        "desk blocks large attachments.",
    ),
    360: (
        "Aero",
        "Aero runs three hangars and reports fuel usage per tail number; their controller wants "
        "variance explained above five percent and all files arrive through an SFTP drop. Their "
        "fiscal year starts in April, not January.",
    ),
}

RUNBOOK = (
    "Nightly pg_dump runs at 02:00 on db-1 and is copied to the object store. To restore, fetch "
    "the latest dump, create an empty database and run pg_restore with four jobs. Verify row "
    "counts against the monitoring dashboard before switching traffic back."
)
CHECKLIST = (
    "Before the first day, order a laptop and create accounts for mail, chat and the code host. "
    "On day one, pair the new engineer with a buddy, walk through the architecture overview and "
    "the on-call policy, and make sure they can build the main service locally. In the first week "
    "they ship one small change to production with their buddy reviewing it. At the end of the "
    "first month the manager holds a feedback session and agrees goals for the quarter."
)
CHECKLIST_DRAFT = CHECKLIST.replace(
    "walk through the architecture overview and the on-call policy",
    "walk through the architecture overview, the security training and the on-call policy",
).replace("one small change", "one small documentation change")


def _node(node_id: int, title: str, body: str, created: str, **meta: Any) -> dict[str, Any]:
    return {"id": node_id, "title": title, "notes": body, "created_at": created, "metadata": meta}


def example_nodes() -> list[dict[str, Any]]:
    """The planted graph described in the module docstring, as node mappings."""
    nodes: list[dict[str, Any]] = []
    headlines = ["rates unchanged", "new GPU launch", "port strike ends", "heatwave", "chip export"]
    for k, headline in enumerate(headlines):
        nodes.append(
            _node(
                500 + k,
                f"Daily digest 2024-05-{k + 1:02d}",
                f"Top story of the day: {headline}. Five links collected from the feeds, "
                f"summarised in two lines each, run number {k + 1}.",
                DAY.format(k + 1, k),
                agent="digest-bot",
            )
        )
    nodes.append(_node(40, "Postgres backup runbook", RUNBOOK, "2024-03-01T10:00:00Z"))
    nodes.append(
        _node(
            41,
            "Postgres backup runbook (copy)",
            RUNBOOK.replace(". ", ".\n\n  "),
            "2024-04-11T16:20:00Z",
        )
    )
    nodes.append(_node(50, "Onboarding checklist for new engineers", CHECKLIST, "2024-02-01"))
    nodes.append(
        _node(51, "Onboarding checklist for new engineers (draft)", CHECKLIST_DRAFT, "2024-04-02")
    )
    for node_id, (client, specifics) in CLIENTS.items():
        nodes.append(
            _node(
                node_id,
                f"Client workflow: intake, scoping and weekly reporting ({client})",
                f"{BOILERPLATE} {specifics}",
                f"2024-01-{node_id - 350:02d}T09:00:00Z",
                agent="ops-agent",
            )
        )
    nodes.append(
        _node(
            1792,
            "Migration of workstation mbp-alpha to the new backup server",
            "Steps: install restic, register the host with the backup server, schedule the job and "
            "test a restore. mbp-alpha moved from Time Machine to restic on the new backup "
            "server. Its home "
            "directory holds 410 GB, mostly video projects, so the first snapshot ran overnight "
            "over Ethernet. Excluded the Steam library. Verified a restore of ~/Documents.",
            "2024-04-20T12:00:00Z",
        )
    )
    nodes.append(
        _node(
            1793,
            "Migration of workstation mbp-bravo to the new backup server",
            "Steps: install restic, register the host with the backup server, schedule the job and "
            "test a restore. mbp-bravo is the accounting laptop; it only syncs over Wi-Fi, so "
            "restic runs hourly "
            "with a bandwidth cap. The ledger database needs a pre-backup hook that pauses the "
            "sync client. Verified a restore of the ledger to a scratch folder.",
            "2024-04-21T12:00:00Z",
        )
    )
    ticket = (
        "Printer on floor 3 shows offline for all users. Power cycled it and re-added the queue "
        "on the print server. Reporter confirmed test page printed. Closing after 24 hours "
        "without further complaints. Reported by {who}."
    )
    nodes.append(
        _node(52, "SR-2023-052 printer offline", ticket.format(who="Dana"), "2023-11-02T08:00:00")
    )
    nodes.append(
        _node(53, "SR-2023-053 printer offline", ticket.format(who="Lee"), "2023-11-09T08:00:00")
    )
    for k in range(4):  # a person, not a scheduled writer
        nodes.append(
            _node(
                600 + k,
                f"Weekly review 2024-W{10 + k}",
                f"Wins, misses and next steps for week {10 + k}: "
                f"shipped item {k}, slipped item {k + 1}.",
                f"2024-03-{4 + 7 * k:02d}T18:00:00Z",
                source="user",
            )
        )
    nodes.append(_node(70, "Scratch", "TODO", "2024-05-01"))
    nodes.append(_node(71, "Scratch 2", "TODO", "2024-05-02"))
    nodes.append(
        _node(
            80,
            "Distributed tracing primer",
            "Spans, traces and context propagation "
            "explained with OpenTelemetry examples for the payments service.",
            "2024-01-02",
        )
    )
    archived_by_dimension = _node(81, "Old Postgres runbook", RUNBOOK, "2023-01-01")
    archived_by_dimension["dimensions"] = ["archived", "ops"]
    nodes.append(archived_by_dimension)
    nodes.append(_node(82, "Postgres runbook (old copy)", RUNBOOK, "2022-06-01", archived=True))
    return nodes


def write_rah_db(
    path: Path,
    nodes: Iterable[dict[str, Any]],
    *,
    body_column: str = "notes",
    edges: Iterable[tuple[int, int]] = (),
    wal: bool = False,
    with_dimensions: bool = True,
) -> Path:
    """An RA-H OS style database: nodes (`notes` or `content` body), edges, node_dimensions.

    A node's "dimensions" list goes to node_dimensions, its "metadata" mapping to the JSON column.
    """
    conn = sqlite3.connect(path)
    if wal:
        conn.execute("PRAGMA journal_mode=WAL")
    conn.execute(
        f"""CREATE TABLE nodes (
            id INTEGER PRIMARY KEY, title TEXT NOT NULL, description TEXT, {body_column} TEXT,
            link TEXT, created_at TEXT, updated_at TEXT, metadata TEXT)"""
    )
    conn.execute(
        """CREATE TABLE edges (id INTEGER PRIMARY KEY, from_node_id INTEGER, to_node_id INTEGER,
            context TEXT, source TEXT, explanation TEXT, created_at TEXT)"""
    )
    if with_dimensions:
        conn.execute("CREATE TABLE dimensions (name TEXT PRIMARY KEY, description TEXT)")
        conn.execute("CREATE TABLE node_dimensions (node_id INTEGER, dimension TEXT)")
    for node in nodes:
        conn.execute(
            f"INSERT INTO nodes (id, title, {body_column}, created_at, updated_at, metadata) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (
                node["id"],
                node["title"],
                node.get("notes"),
                node.get("created_at"),
                node.get("created_at"),
                json.dumps(node.get("metadata") or {}),
            ),
        )
        for dimension in node.get("dimensions", []) if with_dimensions else []:
            conn.execute("INSERT INTO node_dimensions VALUES (?, ?)", (node["id"], dimension))
    for a, b in edges:
        conn.execute(
            "INSERT INTO edges (from_node_id, to_node_id, source) VALUES (?, ?, 'user')", (a, b)
        )
    conn.commit()
    conn.close()
    return path


def write_jsonl(path: Path, nodes: Iterable[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for node in nodes:
            fh.write(json.dumps(node) + "\n")
    return path


@pytest.fixture
def nodes() -> list[dict[str, Any]]:
    """A fresh copy of the example graph's nodes, free to edit in a test."""
    return example_nodes()


@pytest.fixture
def make_db(tmp_path: Path) -> Callable[..., Path]:
    """make_db(nodes, name="rah.sqlite", **kw): write nodes to a fresh RA-H OS database."""

    def make(nodes: list[dict[str, Any]], name: str = "rah.sqlite", **kw: Any) -> Path:
        return write_rah_db(tmp_path / name, nodes, **kw)

    return make


@pytest.fixture
def example_db(make_db: Callable[..., Path], nodes: list[dict[str, Any]]) -> Path:
    """The example graph in a database with the current `notes` body column."""
    return make_db(nodes)


@pytest.fixture
def make_jsonl(tmp_path: Path) -> Callable[..., Path]:
    """make_jsonl(nodes, name="nodes.jsonl"): write one node per line."""

    def make(nodes: list[dict[str, Any]], name: str = "nodes.jsonl") -> Path:
        return write_jsonl(tmp_path / name, nodes)

    return make
