"""Reading JSON Lines (one node per line) and in-memory node mappings (the Python API).

JSON Lines bodies are re-read by byte offset when candidates need them, so memory stays small.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import NodeId, NodeRecord, SourceInfo
from tamis.dupes.read_fields import (
    RecordMaker,
    as_text,
    inline_dimensions,
    metadata,
    without_surrogates,
)
from tamis.dupes.sketch import Sketches
from tamis.errors import DupesError


def _record_fields(
    obj: Mapping[str, Any], config: DupesConfig, where: Callable[[], str]
) -> tuple[NodeId, str, object, object, Mapping[str, Any], list[str]]:
    if "id" not in obj:
        raise DupesError(f"{where()}: missing 'id'")
    node_id = obj["id"]
    if isinstance(node_id, bool) or not isinstance(node_id, int | str):
        raise DupesError(f"{where()}: 'id' must be an integer or a string")
    if isinstance(node_id, str):
        node_id = without_surrogates(node_id)
    title = obj.get("title")
    if not isinstance(title, str):
        raise DupesError(f"{where()}: missing or non-text 'title'")
    body_key = next((k for k in config.body_columns if k in obj), None)
    body = obj.get(body_key) if body_key else None
    meta = metadata(obj.get("metadata"))
    raw_dims = obj.get("dimensions") or []
    dims = (
        [str(d) for d in raw_dims] if isinstance(raw_dims, list) else inline_dimensions(raw_dims)
    )
    return node_id, title, body, obj.get("created_at"), meta, dims


class _MemoryBodies:
    """Shared logic for sources that are lists of node mappings."""

    nodes: list[NodeRecord]
    info: SourceInfo
    sketches: Sketches

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
                except (ValueError, UnicodeDecodeError, RecursionError) as exc:
                    reason = exc.msg if isinstance(exc, json.JSONDecodeError) else (
                        "nested too deep" if isinstance(exc, RecursionError) else "not UTF-8")
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
        self.sketches = maker.sketcher.finish()
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
                out[node_id] = as_text(obj.get(key)) if key else ""
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
            self._bodies[node_id] = as_text(body)
            self.nodes.append(maker.record(node_id, title, body, created, meta, dims))
        self.sketches = maker.sketcher.finish()
        self.info = SourceInfo(
            kind="records", path=None, body_column=body_key, archived_skipped=skipped
        )

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        return {i: self._bodies[i] for i in ids if i in self._bodies}
