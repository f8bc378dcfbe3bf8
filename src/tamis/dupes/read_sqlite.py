"""Reading an RA-H OS SQLite database strictly read-only, from one consistent snapshot.

The file is opened `file:...?mode=ro` and never written: it stays byte-identical and no
`-wal`/`-shm`/`-journal` file appears next to it. The app may write while the scan runs, so every
read comes from one snapshot:

- WAL mode with the writer's `-wal` and `-shm` present: one read transaction on the read-only
  connection holds the snapshot for the whole scan, while the app keeps writing;
- rollback-journal mode: a read lock would hold the app's writes for the whole scan, so the
  database is copied to a private temporary directory through SQLite's backup API (one step,
  one read lock) and the copy is read;
- WAL mode with no `-wal` file (no connection open): SQLite would create `-wal`/`-shm` to read it,
  so the file is copied to a private temporary directory and the copy is read; the copy is kept
  only when the file did not change while it was made (else it is made again);
- WAL mode with a `-wal` but no `-shm` (a crashed writer): the pair is copied the same way.

The schema is read, not assumed: the body column (`notes`, or `content` in older databases), the
metadata, a dimensions table and the edges.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Iterable
from contextlib import closing
from pathlib import Path

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import NodeId, NodeRecord, SourceInfo
from tamis.dupes.read_fields import RecordMaker, as_text, inline_dimensions, metadata
from tamis.errors import DupesError

_SQLITE_MAGIC = b"SQLite format 3\x00"
_EDGE_COLUMNS = (("from_node_id", "to_node_id"), ("source_id", "target_id"), ("from_id", "to_id"))
_COPY_ATTEMPTS = 5


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


class SqliteGraph:
    """An RA-H OS database opened strictly read-only."""

    def __init__(self, path: str | Path, config: DupesConfig) -> None:
        self.path = Path(path)
        self.config = config
        self._tmpdir: tempfile.TemporaryDirectory[str] | None = None
        self.conn = self._open()
        try:
            self._read_schema()
            self.nodes: list[NodeRecord] = []
            self._load()
        except sqlite3.Error as exc:
            self.close()
            raise DupesError(f"{self.path}: cannot read database: {exc}") from None
        except BaseException:
            self.close()
            raise

    # opening ------------------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        p = self.path
        if not p.exists():
            raise DupesError(f"database not found: {p}")
        if not p.is_file():
            raise DupesError(f"{p}: not a file")
        try:
            with p.open("rb") as fh:
                header = fh.read(100)
        except OSError as exc:
            raise DupesError(f"{p}: cannot read: {exc.strerror or exc}") from None
        if header and not header.startswith(_SQLITE_MAGIC):
            raise DupesError(f"{p}: not an SQLite database (no SQLite header)")
        wal_mode = len(header) > 19 and header[18] == 2
        wal, shm = Path(f"{p}-wal"), Path(f"{p}-shm")
        target = p.resolve()
        if wal_mode and not (wal.exists() and shm.exists()):
            target = self._private_copy(p, [wal] if wal.exists() else [])
        elif not wal_mode:
            target = self._backup_copy(p)
        try:
            conn = sqlite3.connect(f"{target.as_uri()}?mode=ro", uri=True, isolation_level=None)
            conn.text_factory = lambda b: b.decode("utf-8", "replace")
            conn.execute("PRAGMA query_only = ON")
            conn.execute("BEGIN")  # one read transaction: one snapshot for the whole scan
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            self._cleanup_tmp()
            raise DupesError(f"{p}: not a readable SQLite database ({exc})") from None
        return conn

    def _backup_copy(self, p: Path) -> Path:
        """Rollback-journal mode: copy through SQLite's backup API in one step, under one read
        lock, so the app's writes wait only for the copy, not for the whole scan."""
        self._tmpdir = tempfile.TemporaryDirectory(prefix="tamis-dupes-")
        copy = Path(self._tmpdir.name) / p.name
        try:
            with (closing(sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)) as source,
                  closing(sqlite3.connect(copy)) as target):
                source.backup(target)
        except sqlite3.Error as exc:
            self._cleanup_tmp()
            raise DupesError(f"{p}: not a readable SQLite database ({exc})") from None
        return copy

    def _private_copy(self, p: Path, extra: list[Path]) -> Path:
        """Copy the database (and its leftover -wal) to a private directory, unchanged meanwhile."""
        self._tmpdir = tempfile.TemporaryDirectory(prefix="tamis-dupes-")
        copy = Path(self._tmpdir.name) / p.name
        sources = [p, *extra]
        for _attempt in range(_COPY_ATTEMPTS):
            try:
                before = [_stamp(f) for f in sources]
                shutil.copyfile(p, copy)
                for f in extra:
                    shutil.copyfile(f, Path(f"{copy}{f.name[len(p.name):]}"))
                after = [_stamp(f) for f in sources]
            except OSError as exc:
                self._cleanup_tmp()
                raise DupesError(f"{p}: cannot copy it to read a snapshot: {exc}") from None
            if before == after:  # a writer that appeared meanwhile wrote only to its own -wal
                return copy
        self._cleanup_tmp()
        raise DupesError(
            f"{p}: the database kept changing while it was copied ({_COPY_ATTEMPTS} tries); "
            "run again when the app is idle"
        )

    def _columns(self, table: str) -> list[str]:
        return [row[1] for row in self.conn.execute(f"PRAGMA table_info({_q(table)})")]

    def _read_schema(self) -> None:
        tables = [
            row[0]
            for row in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
            )
        ]
        lower = {t.casefold(): t for t in tables}
        if "nodes" not in lower:
            listed = ", ".join(tables) if tables else "none"
            raise DupesError(f"{self.path}: no 'nodes' table (tables: {listed})")
        self.table = lower["nodes"]
        cols = self._columns(self.table)
        by_lower = {c.casefold(): c for c in cols}
        if "id" not in by_lower or "title" not in by_lower:
            raise DupesError(
                f"{self.path}: table {self.table!r} lacks an id or title column "
                f"(columns: {', '.join(cols)})"
            )
        self.id_col, self.title_col = by_lower["id"], by_lower["title"]
        body = next(
            (by_lower[c.casefold()] for c in self.config.body_columns if c.casefold() in by_lower),
            None,
        )
        if body is None:
            raise DupesError(
                f"{self.path}: table {self.table!r} has no body column "
                f"(looked for {', '.join(self.config.body_columns)}; columns: {', '.join(cols)})"
            )
        self.body_col = body
        self.created_col = by_lower.get("created_at")
        self.meta_col = by_lower.get("metadata")
        self.flag_cols = [
            by_lower[k.casefold()] for k in self.config.archived_keys if k.casefold() in by_lower
        ]
        self.dims_col = by_lower.get("dimensions")

        self.dim_table: tuple[str, str, str] | None = None
        for t in tables:
            if "dimension" not in t.casefold() or t == self.table:
                continue
            tcols = {c.casefold(): c for c in self._columns(t)}
            name_col = next(
                (tcols[c] for c in ("dimension", "dimension_name", "name") if c in tcols), None
            )
            if "node_id" in tcols and name_col is not None:
                self.dim_table = (t, tcols["node_id"], name_col)
                break

        self.edge_table: tuple[str, str, str] | None = None
        if "edges" in lower:
            ecols = {c.casefold(): c for c in self._columns(lower["edges"])}
            for a, b in _EDGE_COLUMNS:
                if a in ecols and b in ecols:
                    self.edge_table = (lower["edges"], ecols[a], ecols[b])
                    break

        self.info = SourceInfo(
            kind="sqlite",
            path=str(self.path),
            body_column=self.body_col,
            has_dimensions=self.dim_table is not None or self.dims_col is not None,
            has_edges=self.edge_table is not None,
        )

    # reading ------------------------------------------------------------------------------

    def _dimensions(self) -> dict[NodeId, list[str]]:
        """Only the dimensions that matter here: archived ones and writer-prefixed ones."""
        dims: defaultdict[NodeId, list[str]] = defaultdict(list)
        if self.dim_table is None:
            return dims
        table, node_col, name_col = self.dim_table
        wanted = {d.casefold() for d in self.config.archived_dimensions}
        prefixes = [p.casefold() for p in self.config.writer_dimension_prefixes]
        sql = f"SELECT {_q(node_col)}, {_q(name_col)} FROM {_q(table)}"
        for node_id, name in self.conn.execute(sql):
            if not isinstance(name, str):
                continue
            low = name.casefold()
            if low in wanted or any(low.startswith(p) for p in prefixes):
                dims[node_id].append(name)
        return dims

    def _load(self) -> None:
        maker = RecordMaker(self.config)
        include_archived = self.config.include_archived
        dims = self._dimensions()
        cols = [self.id_col, self.title_col, self.body_col]
        optional = [self.created_col, self.meta_col, self.dims_col]
        cols += [c if c is not None else "NULL" for c in optional]
        cols += self.flag_cols
        select = ", ".join(c if c == "NULL" else _q(c) for c in cols)
        sql = f"SELECT {select} FROM {_q(self.table)}"
        skipped = 0
        no_dims: list[str] = []
        append = self.nodes.append
        for row in self.conn.execute(sql):
            node_id, title, body, created, meta_raw, dims_raw = row[:6]
            meta = metadata(meta_raw)
            node_dims = dims.get(node_id, no_dims)
            if dims_raw:
                node_dims = [*node_dims, *inline_dimensions(dims_raw)]
            if not include_archived:
                flags = dict(zip(self.flag_cols, row[6:], strict=True)) if self.flag_cols else {}
                if maker.archived(flags, meta, node_dims):
                    skipped += 1
                    continue
            append(maker.record(node_id, title, body, created, meta, node_dims))
        self.info.archived_skipped = skipped
        self.sketches = maker.sketcher.finish()

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        out: dict[NodeId, str] = {}
        wanted = list(dict.fromkeys(ids))
        sql_head = f"SELECT {_q(self.id_col)}, {_q(self.body_col)} FROM {_q(self.table)} WHERE "
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            sql = f"{sql_head}{_q(self.id_col)} IN ({','.join('?' * len(chunk))})"
            for node_id, body in self.conn.execute(sql, chunk):
                out[node_id] = as_text(body)
        return out

    def connected(self, pairs: Iterable[tuple[NodeId, NodeId]]) -> set[frozenset[NodeId]] | None:
        if self.edge_table is None:
            return None
        table, a_col, b_col = self.edge_table
        wanted = {frozenset(p) for p in pairs}
        ids = sorted({i for p in wanted for i in p}, key=str)
        found: set[frozenset[NodeId]] = set()
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            marks = ",".join("?" * len(chunk))
            sql = f"SELECT {_q(a_col)}, {_q(b_col)} FROM {_q(table)} WHERE {_q(a_col)} IN ({marks})"
            for a, b in self.conn.execute(sql, chunk):
                pair = frozenset((a, b))
                if pair in wanted:
                    found.add(pair)
        return found

    def _cleanup_tmp(self) -> None:
        if self._tmpdir is not None:
            self._tmpdir.cleanup()
            self._tmpdir = None

    def close(self) -> None:
        conn = getattr(self, "conn", None)
        if conn is not None:
            conn.close()
            self.conn = None  # type: ignore[assignment]
        self._cleanup_tmp()




def _stamp(path: Path) -> tuple[int, int, int]:
    st = os.stat(path)
    return (st.st_ino, st.st_size, st.st_mtime_ns)
