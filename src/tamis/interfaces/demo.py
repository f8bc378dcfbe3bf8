"""``tamis demo``: the two measured queries, offline, raw order beside tamis order.

The same view as ``tamis compare`` (``tamis.trust.view``), on the bundled recordings with
the built-in policy: every kept result in the tamis column, so every rank "what tamis did"
cites is on the page, and the cut an agent gets (``max_results``) is marked.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import asdict
from importlib import resources
from typing import Any

import click

from tamis.core import Tamis
from tamis.models import SearchResponse
from tamis.pipeline.compare import Comparison
from tamis.policy.schema import Config, LineConfig
from tamis.settings import load_config
from tamis.store.base import MemoryStore

DEMO_QUERIES = [
    "best practices agent context management",
    "proxmox thin pool metadata exhaustion recovery",
]
SHOWN_CONFIG = "the built-in policy, on the recordings in src/tamis/demo (no network)"


def recordings_dir() -> str:
    return str(resources.files("tamis").joinpath("demo"))


def demo_config() -> Config:
    config = load_config(None).config
    return config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})


async def demo_comparisons(queries: list[str] | None = None
                           ) -> list[tuple[Comparison, SearchResponse]]:
    """Each query ranked in full on the recordings, beside the raw order."""
    from tamis.trust.view import compare_query

    out = []
    async with Tamis(demo_config(), store=MemoryStore()) as layer:
        for query in queries or DEMO_QUERIES:
            out.append(await compare_query(layer, query))
    return out


def run_demo(as_json: bool = False) -> None:
    from tamis.interfaces.tables import print_comparison

    compared = asyncio.run(demo_comparisons())
    if as_json:
        data: list[dict[str, Any]] = [asdict(c) for c, _ in compared]
        click.echo(json.dumps(data, indent=2))
        return
    returned = demo_config().max_results
    for comparison, response in compared:
        print_comparison(comparison, response, returned=returned, config=SHOWN_CONFIG)
        click.echo()
    click.echo("Search your own stack: SEARXNG_URL=http://127.0.0.1:8888 tamis search \"...\"")
