"""Render a SearchResponse as stable JSON or as markdown for a person or a prompt."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from tamis.text import printable

if TYPE_CHECKING:  # pragma: no cover
    from tamis.models import SearchResponse


def response_dict(response: SearchResponse) -> dict[str, Any]:
    """The JSON contract: ``dropped`` only with --explain, ``explain`` only when asked."""
    return answer_dict(response.model_dump(mode="json"))


def answer_dict(data: dict[str, Any]) -> dict[str, Any]:
    """``response_dict`` of an answer already dumped as JSON data (a cached answer)."""
    if data.get("dropped") is None:
        data.pop("dropped", None)
    for result in data["results"]:
        if result.get("explain") is None:
            result.pop("explain", None)
    return data


def response_json(response: SearchResponse) -> str:
    return json.dumps(response_dict(response), indent=2, ensure_ascii=False)


def answer_json(data: dict[str, Any]) -> str:
    return json.dumps(answer_dict(data), indent=2, ensure_ascii=False)


def response_markdown(response: SearchResponse) -> str:
    lines = [f"# Search: {response.query}", ""]
    answered = sum(1 for line in response.lines if line.status in ("ok", "empty"))
    count, total = response.returned_count, len(response.lines)
    lines.append(
        f"{count} result{'' if count == 1 else 's'} from {answered} of {total}"
        f" line{'' if total == 1 else 's'}"
        f" ({response.raw_result_count} raw, {response.dropped_count} dropped) in"
        f" {response.timing.total_seconds:.2f} s"
    )
    for note in response.notes:
        if note.kind not in ("cached",):
            lines.append(f"> note ({note.source}): {note.message}")
    lines.append("")
    for r in response.results:
        engines = ", ".join(r.engines)
        lines.append(f"## {r.rank}. {r.title}")
        lines.append(f"{r.url}  ")
        lines.append(f"*{r.source_type}* · {engines} · score {r.score:g}")
        if r.snippet:
            lines += ["", r.snippet]
        if r.excerpt:
            lines += ["", "<excerpt>", r.excerpt, "</excerpt>"]
        elif r.extraction not in ("skipped", "ok"):
            detail = f": {r.extraction_detail}" if r.extraction_detail else ""
            lines += ["", f"(page text: {r.extraction}{detail})"]
        if r.explain:
            e = r.explain
            moved = ", ".join(f"{part} {places:+g}" for part, places in e.places.items())
            lines.append(
                f"\nscore {e.total:g}: the engines' {e.fusion:g} moved {e.shift:+g} places"
                f" ({moved or 'no evidence'}; + is down), tier {e.tier}"
            )
        lines.append("")
    if response.dropped:
        lines.append("## Dropped")
        for d in response.dropped:
            lines.append(f"- #{d.position} {d.url}: {d.reason}")
        lines.append("")
    return printable("\n".join(lines).rstrip()) + "\n"
