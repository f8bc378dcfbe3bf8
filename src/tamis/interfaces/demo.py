"""``tamis demo``: the two measured queries, offline, raw order beside tamis order."""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from importlib import resources
from typing import Any

import click

from tamis.core import Tamis
from tamis.pipeline.compare import Comparison, compare
from tamis.policy.schema import LineConfig
from tamis.settings import load_config
from tamis.store.base import MemoryStore

DEMO_QUERIES = [
    "best practices agent context management",
    "proxmox thin pool metadata exhaustion recovery",
]


def recordings_dir() -> str:
    return str(resources.files("tamis").joinpath("demo"))


async def demo_comparisons(queries: list[str] | None = None) -> list[Comparison]:
    config = load_config(None).config
    config = config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})
    out = []
    async with Tamis(config, store=MemoryStore()) as layer:
        for query in queries or DEMO_QUERIES:
            response, answers = await layer.search_detailed(
                query, extract=False, explain=True, max_results=100)
            out.append(compare(answers, response, config.policy.normalise.tracking_params))
    return out


def print_comparison(c: Comparison, top: int = 10) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=max(Console().width, 110))  # readable when piped, too
    table = Table(title=f"“{c.query}”", title_justify="left", show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("raw engine order (SearXNG)")
    table.add_column("what tamis did")
    table.add_column("tamis order")
    rows = max(len(c.raw), top)
    for i in range(rows):
        raw = c.raw[i] if i < len(c.raw) else None
        tam = c.tamis[i] if i < len(c.tamis) and i < top else None
        fate = raw.fate if raw else ""
        style = "red" if fate.startswith("dropped") else ("dim" if "demoted" in fate or
                                                           fate.startswith("merged") else "")
        table.add_row(
            str(i + 1),
            raw.host if raw else "",
            f"[{style}]{fate}[/{style}]" if style else fate,
            f"{tam.host} [dim]({tam.source_type})[/dim]" if tam else "",
        )
    console.print(table)
    console.print(f"{len(c.raw)} raw results -> {len(c.tamis)} kept, {c.dropped} dropped,"
                  f" {c.merged} merged duplicates\n")


def run_demo(as_json: bool = False) -> None:
    comparisons = asyncio.run(demo_comparisons())
    if as_json:
        data: list[dict[str, Any]] = [asdict(c) for c in comparisons]
        click.echo(json.dumps(data, indent=2))
        return
    for c in comparisons:
        print_comparison(c)
    click.echo("Search your own stack: SEARXNG_URL=http://127.0.0.1:8888 tamis search \"...\"")
