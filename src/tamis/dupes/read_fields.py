"""Reading a node's fields: times, metadata, writer, archived flags, and the light record.

Shared by every reader (`read_sqlite`, `read_files`). A node becomes a `NodeRecord` (the hash and
length of its body, never the body); while the body is in hand it is also handed to the
`BodySketcher`, so candidate generation needs no second pass over the bodies.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from tamis.dupes.config import DupesConfig
from tamis.dupes.models import NodeId, NodeRecord, SourceInfo
from tamis.dupes.similarity import body_hash, normalise_whitespace
from tamis.dupes.sketch import BodySketcher, Sketches

_TRUE_STRINGS = {"1", "true", "yes", "y", "on", "archived"}


class Graph(Protocol):
    """What detection needs from a source."""

    nodes: list[NodeRecord]
    info: SourceInfo
    sketches: Sketches  # MinHash/LSH of every body, see sketch.py

    def bodies(self, ids: Iterable[NodeId]) -> dict[NodeId, str]:
        """The body text of each id (missing ids are left out)."""
        ...

    def connected(self, pairs: Iterable[tuple[NodeId, NodeId]]) -> set[frozenset[NodeId]] | None:
        """Which of these pairs are already joined by an edge; None when the source has no edges."""
        ...

    def close(self) -> None: ...


# -- shared field helpers -----------------------------------------------------------------------


def parse_time(value: object) -> float | None:
    """Epoch seconds (UTC) from an ISO-8601 string or a number (seconds or milliseconds);
    None for anything else, or a time outside the years 1-9999 (no date can show it)."""
    if value is None or isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        seconds = float(value)
        seconds = seconds / 1000.0 if seconds > 1e11 else seconds  # milliseconds
    except (ValueError, OverflowError):
        try:
            stamp = datetime.fromisoformat(value.strip())  # type: ignore[union-attr]
        except (ValueError, AttributeError):
            return None
        seconds = (stamp if stamp.tzinfo else stamp.replace(tzinfo=UTC)).timestamp()
    return seconds if -62135596800.0 <= seconds <= 253402300799.0 else None


def without_surrogates(text: str) -> str:
    """`text` with lone surrogates (valid in JSON escapes, not in UTF-8) replaced, so a title,
    an id or a writer can always be printed and saved."""
    return text if text.isascii() else text.encode("utf-8", "replace").decode("utf-8")


def as_text(value: object) -> str:
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


def metadata(value: object) -> Mapping[str, Any]:
    if isinstance(value, Mapping):
        return value
    if isinstance(value, str | bytes) and value:
        try:
            parsed = json.loads(value)
        except (ValueError, RecursionError):  # metadata nested too deep: none
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
        self.sketcher = BodySketcher(
            config.minhash_size, config.lsh_rows, config.shingle_size, config.stop_shingle_share
        )
        self.count = 0

    def writer(self, meta: Mapping[str, Any], dims: Iterable[str]) -> str | None:
        """The writer named by the first metadata key path that has one, else by a dimension
        (lone surrogates replaced, so it can be printed and saved)."""
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
                        return without_surrogates(text)
        for dim in dims:
            low = dim.casefold()
            for prefix in self.writer_prefixes:
                if low.startswith(prefix) and len(dim) > len(prefix):
                    return without_surrogates(dim[len(prefix) :].strip())
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
        """A light record: the body is reduced to a hash (None when too short) and a length.

        Records must be kept in the order they are made: the sketch refers to them by position.
        """
        text = normalise_whitespace(body if isinstance(body, str) else as_text(body))
        long_enough = len(text) >= self.min_body_chars
        if long_enough:
            self.sketcher.add(self.count, text)
        self.count += 1
        return NodeRecord(
            id=node_id,
            title=without_surrogates(title if isinstance(title, str) else as_text(title)).strip(),
            created=parse_time(created),
            writer=self.writer(meta, dims),
            body_hash=body_hash(text) if long_enough else None,
            body_chars=len(text),
        )


def inline_dimensions(raw: object) -> list[str]:
    """A `dimensions` column holding a JSON list or a comma-separated string."""
    text = as_text(raw).strip()
    if text.startswith("["):
        try:
            parsed = json.loads(text)
        except (ValueError, RecursionError):
            parsed = []
        return [str(d) for d in parsed if isinstance(d, str | int)]
    return [d.strip() for d in text.split(",") if d.strip()]


