"""Read-only duplicate detection for an agent's knowledge graph (`tamis dupes`).

Finds candidate clusters with a verdict a human can act on (WRITER-DEFECT run families,
SAFE-MERGE identical bodies, HUMAN-DECISION same-subject nodes) and never merges anything.

    from tamis.dupes import find_duplicates
    report = find_duplicates("rah.sqlite")
    for item in report.items:
        print(item.verdict, item.ids, item.action)
"""

from __future__ import annotations

from tamis.dupes.config import DupesConfig, load_config
from tamis.dupes.detect import find_duplicates
from tamis.dupes.models import Item, Report
from tamis.dupes.report import render_text, to_json
from tamis.errors import DupesError

__all__ = [
    "DupesConfig",
    "DupesError",
    "Item",
    "Report",
    "find_duplicates",
    "load_config",
    "render_text",
    "to_json",
]
