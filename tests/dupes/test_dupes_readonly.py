"""A run never writes the database: the file is byte-identical and no -wal/-shm/-journal appears."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tamis.dupes import find_duplicates


def snapshot(db: Path) -> tuple[str, list[str]]:
    return hashlib.sha256(db.read_bytes()).hexdigest(), sorted(p.name for p in db.parent.iterdir())


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_database_is_byte_identical_and_alone_after_a_run(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], wal: bool
) -> None:
    db = make_db(nodes, wal=wal)
    before = snapshot(db)

    report = find_duplicates(db)

    assert report.items  # the run really read the graph
    assert snapshot(db) == before


def test_a_live_wal_is_read_through_not_written(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]]
) -> None:
    db = make_db(nodes, wal=True)
    writer = sqlite3.connect(db)  # a writer holds the database open: -wal and -shm exist
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO nodes (id, title, notes, created_at, metadata) VALUES (?, ?, ?, ?, '{}')",
        (42, "Postgres backup runbook", nodes[5]["notes"], "2024-05-09"),
    )
    writer.commit()
    main_file = hashlib.sha256(db.read_bytes()).hexdigest()
    files = sorted(p.name for p in db.parent.iterdir())
    try:
        report = find_duplicates(db)
        assert hashlib.sha256(db.read_bytes()).hexdigest() == main_file
        assert sorted(p.name for p in db.parent.iterdir()) == files
    finally:
        writer.close()  # the writer's own close checkpoints the -wal into the file

    assert files == ["rah.sqlite", "rah.sqlite-shm", "rah.sqlite-wal"]
    safe = [item for item in report.items if item.verdict == "SAFE-MERGE"]
    assert safe[0].ids == [40, 41, 42]  # the committed row still in the -wal was seen


def test_a_leftover_wal_without_shm_is_read_from_a_private_copy(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], tmp_path: Path
) -> None:
    db = make_db(nodes, wal=True)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute(
        "INSERT INTO nodes (id, title, notes, created_at, metadata) VALUES (?, ?, ?, ?, '{}')",
        (42, "Postgres backup runbook", nodes[5]["notes"], "2024-05-09"),
    )
    writer.commit()
    # Simulate a crashed writer: keep the -wal, lose the -shm, without closing cleanly.
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    for suffix in ("", "-wal"):
        (crashed / f"rah.sqlite{suffix}").write_bytes(Path(f"{db}{suffix}").read_bytes())
    writer.close()
    target = crashed / "rah.sqlite"
    before = snapshot(target)

    report = find_duplicates(target)

    assert snapshot(target) == before
    assert [i.ids for i in report.items if i.verdict == "SAFE-MERGE"] == [[40, 41, 42]]
