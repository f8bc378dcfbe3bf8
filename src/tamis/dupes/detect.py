"""`find_duplicates`, the one entry point of the package: read, find, order the verdicts, report.

Verdicts are found in an order that protects audit records: run families first (WRITER-DEFECT),
and their members are kept out of SAFE-MERGE and HUMAN-DECISION; then identical bodies
(SAFE-MERGE); then the same subject under different bodies, and stubs (HUMAN-DECISION). See
`families.py` and `verdicts.py` for each rule, `sketch.py` for how candidates are found without
comparing all pairs.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tamis.dupes.config import DupesConfig, load_config
from tamis.dupes.families import find_run_families
from tamis.dupes.models import Item, Report
from tamis.dupes.read_fields import Graph
from tamis.dupes.read_files import JsonlGraph, RecordsGraph
from tamis.dupes.read_sqlite import SqliteGraph
from tamis.dupes.state import compare_with_previous, load_state, save_state
from tamis.dupes.verdicts import find_identical_bodies, find_near_duplicates, find_stubs
from tamis.errors import DupesError


def detect(graph: Graph, config: DupesConfig) -> list[Item]:
    """Every candidate cluster in the graph, sorted by verdict, then first id."""
    families, in_family = find_run_families(graph, config)
    items = families
    items += find_identical_bodies(graph, in_family)
    items += find_near_duplicates(graph, config, in_family)
    items += find_stubs(graph, config, in_family)
    items.sort(key=Item.sort_key)
    return items


def open_graph(
    db: str | Path | None = None,
    *,
    jsonl: str | Path | None = None,
    nodes: Iterable[Mapping[str, Any]] | None = None,
    config: DupesConfig,
) -> Graph:
    """The source named by exactly one of `db`, `jsonl` and `nodes`."""
    given = [x is not None for x in (db, jsonl, nodes)]
    if sum(given) != 1:
        raise DupesError("give exactly one input: a database (--db) or a JSON Lines file (--jsonl)")
    if db is not None:
        return SqliteGraph(db, config)
    if jsonl is not None:
        return JsonlGraph(jsonl, config)
    assert nodes is not None
    return RecordsGraph(nodes, config)


def find_duplicates(
    db: str | Path | None = None,
    *,
    jsonl: str | Path | None = None,
    nodes: Iterable[Mapping[str, Any]] | None = None,
    config: DupesConfig | str | Path | None = None,
    state: str | Path | None = None,
) -> Report:
    """Detect duplicate candidates, read-only, and return the report.

    Give one input: `db` (an RA-H OS SQLite file), `jsonl` (one node per line) or `nodes`
    (mappings with id, title, notes/content, created_at, metadata). `config` is a `DupesConfig` or
    a YAML file with a `dupes:` section. With `state`, the previous report there marks items new,
    changed or UNFIXED and lists vanished ones, and this report replaces it (atomically).
    Raises `DupesError` with a one-line message for any bad input.
    """
    start = time.perf_counter()
    cfg = config if isinstance(config, DupesConfig) else load_config(config)
    previous = load_state(state) if state is not None else None
    graph = open_graph(db, jsonl=jsonl, nodes=nodes, config=cfg)
    try:
        items = detect(graph, cfg)
    except sqlite3.Error as exc:
        raise DupesError(f"{db}: cannot read database: {exc}") from None
    except (OSError, ValueError) as exc:
        if jsonl is None:
            raise
        raise DupesError(f"{jsonl}: cannot read it again: {exc}") from None
    finally:
        graph.close()
    report = Report(
        items=items,
        checked=len(graph.nodes),
        seconds=round(time.perf_counter() - start, 3),
        source=graph.info,
    )
    if previous is not None:
        compare_with_previous(report, previous)
    if state is not None:
        save_state(state, report)
    return report
