"""Why a search failed, in one line: the one function every interface says it with (the
CLI's ``error:`` line, the MCP tool error, the compatibility endpoints' 502).

It reads only the answer's data: each line's status, and the notes of the kinds the fan-out
writes for a line that answered nothing (``line_failed``, ``line_timeout``,
``no_usable_key``), matched by source and kind, never by their text.
"""

from __future__ import annotations

from typing import Any

LINE_FAILURES = ("line_failed", "line_timeout", "no_usable_key")


def failure_reason(response: Any) -> str:
    """Why a ``SearchResponse`` with status ``failed`` failed: each line that answered
    nothing, and why."""
    answered = [x for x in response.lines if x.status in ("ok", "empty")]
    why = {x.line: "; ".join(n.message for n in response.notes
                             if n.source == x.line and n.kind in LINE_FAILURES) or x.status
           for x in response.lines if x.status not in ("ok", "empty")}
    if not answered:
        if not response.lines:
            return "the search could not run: no backends configured"
        lines = "; ".join(f"line {name!r}: {reason}" for name, reason in why.items())
        return f"the search could not run: no line could be reached ({lines})"
    reasons = "; ".join(n.message for n in response.notes if n.kind == "info"
                        and n.source not in why) or "see the notes"
    failed = "".join(f"; line {name!r}: {reason}" for name, reason in why.items())
    return f"the search could not run: {reasons}{failed}"
