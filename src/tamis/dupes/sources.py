"""Readers for the graphs `tamis dupes` checks: an RA-H OS SQLite database, JSON Lines, or records.

The SQLite reader never writes: it opens `file:...?mode=ro` and reads the schema to find the body
column (`notes`, or `content` in older databases), the metadata, a dimensions table and the edges.
A WAL-mode database without a `-wal` file is opened with `immutable=1` too, because SQLite would
otherwise create `-wal`/`-shm` files next to it; with a `-wal` but no `-shm` (a crashed writer) the
pair is copied to a temporary directory and read there.

Nodes are streamed: each becomes a light `NodeRecord` (hash and length of its body, never the
body), and bodies are fetched again by id only for the candidates that need comparing.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from tamis.dupes.config import DupesConfig
from tamis.dupes.errors import DupesError
from tamis.dupes.models import NodeId, NodeRecord, SourceInfo
from tamis.dupes.similarity import body_hash, normalise_whitespace

_SQLITE_MAGIC = b"SQLite format 3\x00"
_TRUE_STRINGS = {"1", "true", "yes", "y", "on", "archived"}
_EDGE_COLUMNS = (("from_node_id", "to_node_id"), ("source_id", "target_id"), ("from_id", "to_id"))


class Graph(Protocol):
    """What detection needs from a source."""

    nodes: list[NodeRecord]
    info: SourceInfo

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        """The body text of each id (missing ids are left out)."""
        ...

    def connected(self, pairs: Iterable[tuple[NodeId, NodeId]]) -> set[frozenset[NodeId]] | None:
        """Which of these pairs are already joined by an edge; None when the source has no edges."""
        ...

    def close(self) -> None: ...


# -- shared field helpers -----------------------------------------------------------------------


def parse_time(value: object) -> float | None:
    """Epoch seconds (UTC) from an ISO-8601 string or a number (seconds or milliseconds)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value) / 1000.0 if value > 1e11 else float(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return float(text) / 1000.0 if float(text) > 1e11 else float(text)
        except ValueError:
            pass
        try:
            stamp = datetime.fromisoformat(text)
        except ValueError:
            return None
        if stamp.tzinfo is None:
            stamp = stamp.replace(tzinfo=UTC)
        return stamp.timestamp()
    return None


def _as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _truthy(value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value != 0
    if isinstance(value, str):
        return value.strip().casefold() in _TRUE_STRINGS
    return False


def _metadata(value: object) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str | bytes) and value:
        try:
            parsed = json.loads(value)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, Mapping) else {}
    return {}


def _dig(meta: Mapping[str, Any], path: tuple[str, ...]) -> object:
    current: object = meta
    for part in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(part)
        if current is None:
            return None
    return current


class RecordMaker:
    """Turns one node's fields into a light `NodeRecord`, with the config's rules precomputed."""

    def __init__(self, config: DupesConfig) -> None:
        self.min_body_chars = config.min_body_chars
        self.writer_paths = [tuple(k.split(".")) for k in config.writer_keys]
        self.writer_prefixes = [p.casefold() for p in config.writer_dimension_prefixes]
        self.archived_keys = list(config.archived_keys)
        self.archived_paths = [tuple(k.split(".")) for k in config.archived_keys]
        self.archived_dims = {d.casefold() for d in config.archived_dimensions}

    def writer(self, meta: Mapping[str, Any], dims: Iterable[str]) -> str | None:
        """The writer named by the first metadata key path that has one, else by a dimension."""
        if meta:
            for path in self.writer_paths:
                value = meta.get(path[0]) if len(path) == 1 else _dig(meta, path)
                if value is None:
                    continue
                if isinstance(value, Mapping):
                    value = value.get("name") or value.get("id")
                if isinstance(value, str | int) and not isinstance(value, bool):
                    text = str(value).strip()
                    if text:
                        return text
        for dim in dims:
            low = dim.casefold()
            for prefix in self.writer_prefixes:
                if low.startswith(prefix) and len(dim) > len(prefix):
                    return dim[len(prefix) :].strip()
        return None

    def archived(
        self, flags: Mapping[str, object], meta: Mapping[str, Any], dims: Iterable[str]
    ) -> bool:
        """True when a flag column, a metadata key or a dimension marks the node archived."""
        if flags and any(_truthy(flags.get(key)) for key in self.archived_keys):
            return True
        if meta and any(_truthy(_dig(meta, path)) for path in self.archived_paths):
            return True
        return any(d.casefold() in self.archived_dims for d in dims)

    def record(
        self,
        node_id: NodeId,
        title: object,
        body: object,
        created: object,
        meta: Mapping[str, Any],
        dims: Iterable[str],
    ) -> NodeRecord:
        """A light record: the body is reduced to a hash (None when too short) and a length."""
        text = normalise_whitespace(body if isinstance(body, str) else _as_text(body))
        return NodeRecord(
            id=node_id,
            title=(title if isinstance(title, str) else _as_text(title)).strip(),
            created=parse_time(created),
            writer=self.writer(meta, dims),
            body_hash=body_hash(text) if len(text) >= self.min_body_chars else None,
            body_chars=len(text),
        )


# -- SQLite -------------------------------------------------------------------------------------


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
        except sqlite3.DatabaseError as exc:
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
        wal = Path(f"{p}-wal")
        shm = Path(f"{p}-shm")
        target = p.resolve()
        params = "mode=ro"
        if wal_mode and not wal.exists():
            # Nothing pending in a WAL; without immutable=1 SQLite would create -wal/-shm here.
            params += "&immutable=1"
        elif wal_mode and not shm.exists():
            # A leftover -wal from a crashed writer: read a private copy, never the original.
            self._tmpdir = tempfile.TemporaryDirectory(prefix="tamis-dupes-")
            copy = Path(self._tmpdir.name) / p.name
            try:
                shutil.copyfile(p, copy)
                shutil.copyfile(wal, Path(f"{copy}-wal"))
            except OSError as exc:
                self._cleanup_tmp()
                raise DupesError(f"{p}: cannot copy it with its -wal to read: {exc}") from None
            target = copy
        try:
            conn = sqlite3.connect(f"{target.as_uri()}?{params}", uri=True)
            conn.text_factory = lambda b: b.decode("utf-8", "replace")
            conn.execute("PRAGMA query_only = ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            self._cleanup_tmp()
            raise DupesError(f"{p}: not a readable SQLite database ({exc})") from None
        return conn

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
            meta = _metadata(meta_raw)
            node_dims = dims.get(node_id, no_dims)
            if dims_raw:
                node_dims = [*node_dims, *_inline_dimensions(dims_raw)]
            if not include_archived:
                flags = dict(zip(self.flag_cols, row[6:], strict=True)) if self.flag_cols else {}
                if maker.archived(flags, meta, node_dims):
                    skipped += 1
                    continue
            append(maker.record(node_id, title, body, created, meta, node_dims))
        self.info.archived_skipped = skipped

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        out: dict[NodeId, str] = {}
        wanted = list(dict.fromkeys(ids))
        sql_head = f"SELECT {_q(self.id_col)}, {_q(self.body_col)} FROM {_q(self.table)} WHERE "
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            sql = f"{sql_head}{_q(self.id_col)} IN ({','.join('?' * len(chunk))})"
            for node_id, body in self.conn.execute(sql, chunk):
                out[node_id] = _as_text(body)
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


def _inline_dimensions(raw: object) -> list[str]:
    """A `dimensions` column holding a JSON list or a comma-separated string."""
    text = _as_text(raw).strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = []
        return [str(d) for d in parsed if isinstance(d, str | int)]
    return [d.strip() for d in text.split(",") if d.strip()]


# -- JSON Lines and in-memory records -----------------------------------------------------------


def _record_fields(
    obj: Mapping[str, Any], config: DupesConfig, where: Callable[[], str]
) -> tuple[NodeId, str, object, object, Mapping[str, Any], list[str]]:
    if "id" not in obj:
        raise DupesError(f"{where()}: missing 'id'")
    node_id = obj["id"]
    if isinstance(node_id, bool) or not isinstance(node_id, int | str):
        raise DupesError(f"{where()}: 'id' must be an integer or a string")
    title = obj.get("title")
    if not isinstance(title, str):
        raise DupesError(f"{where()}: missing or non-text 'title'")
    body_key = next((k for k in config.body_columns if k in obj), None)
    body = obj.get(body_key) if body_key else None
    meta = _metadata(obj.get("metadata"))
    raw_dims = obj.get("dimensions") or []
    dims = (
        [str(d) for d in raw_dims] if isinstance(raw_dims, list) else _inline_dimensions(raw_dims)
    )
    return node_id, title, body, obj.get("created_at"), meta, dims


class _MemoryBodies:
    """Shared logic for sources that are lists of node mappings."""

    nodes: list[NodeRecord]
    info: SourceInfo

    def connected(self, pairs: Iterable[tuple[NodeId, NodeId]]) -> set[frozenset[NodeId]] | None:
        return None

    def close(self) -> None:
        return None


class JsonlGraph(_MemoryBodies):
    """One node per line; bodies are re-read by byte offset, so memory stays small."""

    def __init__(self, path: str | Path, config: DupesConfig) -> None:
        self.path = Path(path)
        self.config = config
        self.nodes = []
        self._offsets: dict[NodeId, int] = {}
        body_key: str | None = None
        if not self.path.exists():
            raise DupesError(f"JSONL file not found: {self.path}")
        if not self.path.is_file():
            raise DupesError(f"{self.path}: not a file")
        skipped = 0
        maker = RecordMaker(config)
        first_line: dict[NodeId, int] = {}
        with self.path.open("rb") as fh:
            offset = 0
            for lineno, raw in enumerate(fh, start=1):
                here, offset = offset, offset + len(raw)
                if not raw.strip():
                    continue
                try:
                    obj = json.loads(raw)
                except (ValueError, UnicodeDecodeError) as exc:
                    reason = exc.msg if isinstance(exc, json.JSONDecodeError) else "not UTF-8"
                    raise DupesError(f"{self.path}:{lineno}: not valid JSON ({reason})") from None
                if not isinstance(obj, dict):
                    raise DupesError(f"{self.path}:{lineno}: expected a JSON object (one node)")
                fields = _record_fields(obj, config, lambda n=lineno: f"{self.path}:{n}")
                node_id, title, body, created, meta, dims = fields
                if node_id in first_line:
                    raise DupesError(
                        f"{self.path}:{lineno}: duplicate id {node_id!r} "
                        f"(first on line {first_line[node_id]})"
                    )
                first_line[node_id] = lineno
                if body_key is None:
                    body_key = next((k for k in config.body_columns if k in obj), None)
                if not config.include_archived and maker.archived(obj, meta, dims):
                    skipped += 1
                    continue
                self._offsets[node_id] = here
                self.nodes.append(maker.record(node_id, title, body, created, meta, dims))
        self.info = SourceInfo(
            kind="jsonl",
            path=str(self.path),
            body_column=body_key,
            has_dimensions=True,
            archived_skipped=skipped,
        )

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        out: dict[NodeId, str] = {}
        with self.path.open("rb") as fh:
            for node_id in ids:
                offset = self._offsets.get(node_id)
                if offset is None or node_id in out:
                    continue
                fh.seek(offset)
                obj = json.loads(fh.readline())
                key = next((k for k in self.config.body_columns if k in obj), None)
                out[node_id] = _as_text(obj.get(key)) if key else ""
        return out


class RecordsGraph(_MemoryBodies):
    """Nodes given in memory as mappings (the Python API)."""

    def __init__(self, records: Iterable[Mapping[str, Any]], config: DupesConfig) -> None:
        self.nodes = []
        self._bodies: dict[NodeId, str] = {}
        skipped = 0
        maker = RecordMaker(config)
        body_key: str | None = None
        for n, obj in enumerate(records, start=1):
            if not isinstance(obj, Mapping):
                raise DupesError(f"node #{n}: expected a mapping")
            node_id, title, body, created, meta, dims = _record_fields(
                obj, config, lambda n=n: f"node #{n}"
            )
            if body_key is None:
                body_key = next((k for k in config.body_columns if k in obj), None)
            if not config.include_archived and maker.archived(obj, meta, dims):
                skipped += 1
                continue
            self._bodies[node_id] = _as_text(body)
            self.nodes.append(maker.record(node_id, title, body, created, meta, dims))
        self.info = SourceInfo(
            kind="records", path=None, body_column=body_key, archived_skipped=skipped
        )

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        return {i: self._bodies[i] for i in ids if i in self._bodies}
