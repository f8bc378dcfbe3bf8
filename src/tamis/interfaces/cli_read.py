"""``tamis read URL``: one page's text under a budget, for an agent that follows a link.

A thin shell over ``Tamis.read``: same client (no cookies, tamis's user agent), safety
checks, statuses and cache as the search's extraction. Exit 0 ok or truncated, 1 empty /
blocked / unsupported, 2 failed or the command could not run (bad config, bad store). No
traceback reaches the user.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from tamis.interfaces.cli_common import config_option, friendly_errors
from tamis.text import printable

if TYPE_CHECKING:
    from tamis.extract import ReadResponse


def as_markdown(answer: ReadResponse) -> str:
    lines = [f"# {answer.title or answer.final_url}", "", f"<{answer.final_url}>", ""]
    if answer.content:
        lines += [answer.content, ""]
    footer = f"status: {answer.status}"
    if answer.detail:
        footer += f" ({answer.detail})"
    footer += f"; chars {answer.start}-{answer.start + answer.chars} of {answer.total_chars}"
    if answer.next_start is not None:
        footer += f"; more with --start {answer.next_start}"
    if answer.warnings:
        footer += f"; warnings: {len(answer.warnings)} instructions_to_ai"
    return printable("\n".join([*lines, f"<!-- {footer} -->"]))


async def _read(url: str, config_path: str | None, max_chars: int | None, start: int,
                query: str | None) -> ReadResponse:
    from tamis.core import Tamis

    async with Tamis(config_path) as layer:
        try:
            return await layer.read(url, max_chars=max_chars, start=start, query=query)
        finally:
            layer.store.close()


@click.command("read", short_help="Read one page's text under a budget.")
@click.argument("url")
@click.option("--max-chars", type=click.IntRange(min=1), default=None,
              help="Characters of text to return (default: extraction.total_chars).")
@click.option("--start", type=click.IntRange(min=0), default=0, show_default=True,
              help="Offset in the page text (pass the previous answer's next_start).")
@click.option("--query", default=None, help="Return the passages most relevant to this.")
@config_option
@click.option("--format", "output", type=click.Choice(["json", "markdown"]), default="json",
              show_default=True)
@friendly_errors
def read(url: str, max_chars: int | None, start: int, query: str | None, config_path: str | None,
         output: str) -> None:
    """Read one page (URL) under a character budget: JSON or markdown on stdout."""
    import asyncio

    answer = asyncio.run(_read(url, config_path, max_chars, start, query))
    click.echo(json.dumps(answer.model_dump(mode="json"), indent=2, ensure_ascii=False)
               if output == "json" else as_markdown(answer))
    if answer.exit_code:
        detail = f": {answer.detail}" if answer.detail else ""
        click.echo(f"error: {answer.url}: {answer.status}{detail}", err=True)
    sys.exit(answer.exit_code)
