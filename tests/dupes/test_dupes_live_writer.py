"""A database its app writes to during the scan: one consistent snapshot, never a traceback.

A WAL-mode database with no `-wal` file at open used to be read with `immutable=1`; when the app
wrote (and checkpointed) meanwhile, the scan read torn pages: "database disk image is malformed",
or a traceback from fetching bodies. The writer here is a separate process, as the app would be.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tamis.dupes import find_duplicates

WRITER = r"""
import random, sqlite3, sys, time
from pathlib import Path
db, started, seconds = sys.argv[1], Path(sys.argv[2]), float(sys.argv[3])
rng = random.Random(7)
words = [f"w{k}" for k in range(5000)]
next_id = 100_000
end = time.monotonic() + seconds
rounds = 0
while time.monotonic() < end:
    conn = sqlite3.connect(db, timeout=10)
    conn.execute("PRAGMA journal_mode=WAL")
    rows = []
    for _ in range(150):
        body = " ".join(rng.choices(words, k=300))
        rows.append((next_id, f"Live note {next_id}", body, "2024-06-01T00:00:00Z", "{}"))
        next_id += 1
    conn.executemany(
        "INSERT INTO nodes (id, title, notes, created_at, metadata) VALUES (?, ?, ?, ?, ?)", rows
    )
    conn.execute("DELETE FROM nodes WHERE id < ? AND id >= 100000", (next_id - 600,))
    for _ in range(100):  # the app edits notes too: pages split, move and are reused
        body = " ".join(rng.choices(words, k=rng.randint(20, 900)))
        target = 10_000 + rng.randrange(3000)
        conn.execute("UPDATE nodes SET notes = ? WHERE id = ?", (body, target))
    conn.commit()
    conn.close()  # the last connection checkpoints into the main file and removes the -wal
    rounds += 1
    started.write_text(str(rounds))  # after 4 rounds, every snapshot holds 600 live notes
    time.sleep(rng.uniform(0.02, 0.15))  # idle between writes: mostly no -wal file at all
"""


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def _filler(count: int) -> list[dict[str, Any]]:
    return [
        {
            "id": 10_000 + k,
            "title": f"Filler note {k}",
            "notes": " ".join(f"f{k}x{j}" for j in range(200)),
            "created_at": "2024-01-01",
            "metadata": {},
        }
        for k in range(count)
    ]


@pytest.mark.parametrize("wal", [True, False], ids=["wal", "rollback-journal"])
def test_an_app_writing_during_the_scan_never_breaks_it(
    make_db: Callable[..., Path], nodes: list[dict[str, Any]], tmp_path: Path, wal: bool
) -> None:
    db = make_db(nodes + _filler(3000), wal=wal)
    script = WRITER if wal else WRITER.replace('conn.execute("PRAGMA journal_mode=WAL")', "")
    assert not Path(f"{db}-wal").exists()
    started = tmp_path / "started"
    writer = subprocess.Popen([sys.executable, "-c", script, str(db), str(started), "6"])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and int(_read(started) or 0) < 4:
            time.sleep(0.01)
        assert int(_read(started) or 0) >= 4, "the writer process did not start"
        for _ in range(6):
            report = find_duplicates(db)  # neither "malformed" nor a traceback: a snapshot
            assert report.checked == len(nodes) - 2 + 3000 + 600  # 2 archived; 600 live notes
            found = {(i.verdict, tuple(i.ids)) for i in report.items}
            assert ("SAFE-MERGE", (40, 41)) in found
            assert ("HUMAN-DECISION", (50, 51)) in found
            assert ("WRITER-DEFECT", (500, 501, 502, 503, 504)) in found
    finally:
        writer.kill()
        writer.wait()


@pytest.mark.parametrize("wal", [False, True], ids=["rollback-journal", "wal"])
def test_the_app_can_write_while_the_scan_runs(
    make_db: Callable[..., Path],
    nodes: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
    wal: bool,
) -> None:
    import sqlite3

    import tamis.dupes.detect as detect

    db = make_db(nodes, wal=wal)
    find_stubs = detect.find_stubs
    wrote: list[int] = []

    def app_writes_mid_scan(*args: Any, **kwargs: Any) -> Any:
        app = sqlite3.connect(db, timeout=0)  # the app does not wait: a held lock would fail it
        app.execute("UPDATE nodes SET notes = notes || ' (edited)' WHERE id = 80")
        app.commit()
        app.close()
        wrote.append(80)
        return find_stubs(*args, **kwargs)

    monkeypatch.setattr(detect, "find_stubs", app_writes_mid_scan)

    report = find_duplicates(db)

    assert wrote == [80]
    assert ("SAFE-MERGE", [40, 41]) in [(i.verdict, i.ids) for i in report.items]
