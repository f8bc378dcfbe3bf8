"""The report over time: compare with the previous one, then keep the new one (atomically).

Items are matched by their stable `key` (first writer and template for a run family, body hash for
SAFE-MERGE, smallest id for HUMAN-DECISION). Each item is marked `new`, `seen` or `changed`; a
run family that gained nodes since the previous report is `UNFIXED`, naming its writer: the
writer still adds a node per run (a job that moved keeps its key, its first writer's, and the
current writer is named). Clusters of the previous report no longer found are `vanished`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tamis.atomic import write_atomic
from tamis.dupes.models import Report, Vanished, id_sort_key
from tamis.errors import DupesError

PreviousItems = dict[str, dict[str, Any]]


def load_state(path: str | Path) -> PreviousItems | None:
    """The items of the previous report kept at `path`, by key; None when there is none yet."""
    p = Path(path)
    if not p.exists():
        return None
    hint = "delete it to start over"
    if not p.is_file():  # /dev/zero reads forever; a device would be replaced when saved
        raise DupesError(f"{p}: the state file must be a regular file, not a directory or a device")
    try:
        data = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise DupesError(f"{p}: state file is not a tamis dupes report ({exc}); {hint}") from None
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise DupesError(f"{p}: state file is not a tamis dupes report (no items list); {hint}")
    previous: PreviousItems = {}
    for n, item in enumerate(data["items"], start=1):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("key"), str)
            or not isinstance(item.get("ids"), list)
        ):
            raise DupesError(f"{p}: state file item {n} lacks a key or ids; {hint}")
        # a node id is a number or a text (NodeId): anything else cannot be compared with the
        # ids of this run
        if not all(isinstance(i, int | str) for i in item["ids"]):
            raise DupesError(f"{p}: state file item {n} has an id that is not a number or"
                             f" a text; {hint}")
        previous[item["key"]] = item
    return previous


def compare_with_previous(report: Report, previous: PreviousItems) -> None:
    """Mark each item new, seen, changed or UNFIXED, and list the vanished clusters."""
    current = set()
    for item in report.items:
        current.add(item.key)
        old = previous.get(item.key)
        if old is None:
            item.status = "new"
            continue
        old_ids = set(old["ids"])
        added = [i for i in item.ids if i not in old_ids]
        if item.run_family and added:
            item.status = "UNFIXED"
            item.added_ids = added
            writer = item.agents[-1] if item.agents else "?"
            earlier = f" (earlier {', '.join(item.agents[:-1])})" if len(item.agents) > 1 else ""
            item.action = (
                f"UNFIXED: writer {writer}{earlier} still adds a node per run "
                f"(+{len(added)} since the last report); " + item.action
            )
        elif added or old_ids != set(item.ids):
            item.status = "changed"
            item.added_ids = added
        else:
            item.status = "seen"
    vanished = [
        Vanished(key=key, verdict=str(old.get("verdict", "")), ids=list(old["ids"]))
        for key, old in previous.items()
        if key not in current
    ]
    vanished.sort(key=lambda v: (v.verdict, id_sort_key(v.ids[0]) if v.ids else (0, 0), v.key))
    report.vanished = vanished
    report.previous_report = True


def save_state(path: str | Path, report: Report) -> None:
    """Write the report as JSON to `path` atomically: a temporary file, then os.replace."""
    p = Path(path)
    text = json.dumps(report.to_dict(), indent=2, ensure_ascii=False) + "\n"
    try:
        write_atomic(p, text.encode("utf-8"), make_folder=False)
    except OSError as exc:
        raise DupesError(f"{p}: cannot write state file ({exc.strerror or exc})") from None
