"""Rendering a `Report`: stable JSON for machines, a short block of lines for a person.

The text block always carries its heading, and `none` when nothing was found, so a daily report
shows that the scan ran even when it found nothing.
"""

from __future__ import annotations

import json

from tamis.dupes.models import Item, NodeId, Report
from tamis.text import cut, printable

HEADING = "Duplicate clusters (candidates, never merged automatically)"
_MAX_IDS = 6
_MAX_TITLE = 48


def to_json(report: Report) -> str:
    """The report as indented JSON: items sorted by verdict, then first id."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False)


def _ids(ids: list[NodeId]) -> str:
    shown = ", ".join(str(i) for i in ids[:_MAX_IDS])
    more = len(ids) - _MAX_IDS
    return f"ids {shown}" + (f" (+{more} more)" if more > 0 else "")


def _line(item: Item) -> str:
    head = f"  {item.verdict:<14} {item.status:<7} {_ids(item.ids)}"
    if item.run_family:
        what = item.why or f"writer {', '.join(item.agents)}: {len(item.ids)} nodes"
        if item.status == "UNFIXED":
            what += f", +{len(item.added_ids)} since the last report"
        advice = "never merge (audit records); fix the writer"
    elif item.verdict == "SAFE-MERGE":
        what = f'"{cut(item.titles[0], _MAX_TITLE)}" {item.why}'
        advice = "merge only on an explicit human decision"
    elif item.reason == "stub":
        what = item.why
        advice = "delete or fill the stub by hand; never merge"
    else:
        what = f'"{cut(item.titles[0], _MAX_TITLE)}" {item.why}'
        advice = (
            "already connected"
            if item.pairs and all(p.connected for p in item.pairs)
            else "propose connect (edge), never merge"
        )
    notes = f" [{'; '.join(item.notes)}]" if item.notes and not item.run_family else ""
    return f"{head}  {what}{notes} -> {advice}"


def render_text(report: Report) -> str:
    """The block for a person: a heading, one line per cluster (or `none`), vanished clusters."""
    lines = [f"{HEADING}: {report.checked:,} nodes checked in {report.seconds:.2f} s"]
    if report.items:
        lines.extend(_line(item) for item in report.items)
    else:
        lines.append("  none")
    if report.vanished:
        lines.append("Vanished since the last report:")
        lines.extend(f"  {v.verdict:<14} {_ids(v.ids)}" for v in report.vanished)
    return printable("\n".join(lines))  # titles and ids from the graph: no terminal sequence
