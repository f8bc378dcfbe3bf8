"""``tamis search``: the click command, and what it does once its arguments are read:
through ``TAMIS_URL`` when it is set (``cli_remote``), a stored answer when this exact
search was answered before (``cli_cache``), else the search itself.

Module level imports click only: ``tamis --help`` imports this module for its short help.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from tamis.interfaces.cli_common import QueryCommand, config_option, fail, friendly_errors


@click.command("search", cls=QueryCommand)
@click.argument("query")
@config_option
@click.option("--no-extract", is_flag=True, help="Ranking only: do not fetch page text.")
@click.option("--explain", is_flag=True,
              help="Add every result's score components and every dropped result's reason.")
@click.option("--format", "fmt", type=click.Choice(["json", "markdown"]), default="json",
              show_default=True)
@click.option("--max-results", type=click.IntRange(1, 100), default=None,
              help="How many results to return (config max_results, 8 by default).")
@click.option("--time-range", type=click.Choice(["day", "week", "month", "year"]))
@click.option("--language", help="Language code passed to backends, e.g. en, de-DE.")
@click.option("--categories", help="SearXNG categories, e.g. general,it.")
@click.option("--engines", help="SearXNG engines, e.g. bing,brave.")
@click.option("--safesearch", type=click.IntRange(0, 2))
@click.option("--pageno", type=click.IntRange(1, 50))
@friendly_errors
def search(query: str, config_path: str | None, no_extract: bool, explain: bool, fmt: str,
           max_results: int | None, **params: Any) -> None:
    """Search QUERY and print the cleaned, ranked results."""
    given = {k: v for k, v in params.items() if v is not None}
    if max_results is not None:
        given["max_results"] = max_results
    run(query, config_path, no_extract, explain, fmt, given)


def run(query: str, config_path: str | None, no_extract: bool, explain: bool, fmt: str,
        given: dict[str, Any]) -> None:
    """Search, print the answer, exit with its code (0 results, 1 none, 2 failed)."""
    # Building its first model, pydantic reads every installed package's metadata for
    # plugins (tens of ms of CPU); a search from the command line loads none, unless the
    # variable is set (empty: load them).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ.get("TAMIS_URL", "").strip():  # the warm path: a running tamis serve
        remote(config_path, fmt, {
            "query": query, **given, "extract": not no_extract, "explain": explain})
    from tamis.interfaces import cli_cache

    found = cli_cache.lookup(config_path, {**given, "query": query.strip()}, {
        "extract": not no_extract, "explain": explain, "max_results": None, "budget": None})
    if found.answer is not None:  # a repeat: the search core is not even imported
        from tamis.interfaces.render import answer_json, response_markdown

        if fmt == "json":
            click.echo(answer_json(found.answer))
        else:
            from tamis.models import SearchResponse

            click.echo(response_markdown(SearchResponse.model_validate(found.answer, strict=True)),
                       nl=False)
        sys.exit({"ok": 0, "no_results": 1}.get(found.answer.get("status"), 2))

    import asyncio

    from tamis.core import Tamis
    from tamis.failure import failure_reason
    from tamis.interfaces.render import response_json, response_markdown
    from tamis.models import SearchRequest

    try:
        request = SearchRequest(query=query, **given)
    except ValueError as exc:  # pydantic's: an option past the request model's bound
        first = exc.errors()[0]  # type: ignore[attr-defined]
        fail(f"--{str(first['loc'][0]).replace('_', '-')}: {first['msg']}")

    async def search() -> Any:
        from tamis.http_client import tamis_client
        from tamis.settings import load_config

        loaded = load_config(config_path, snapshots=cli_cache.snapshot_store(found))
        config = loaded.config
        async with tamis_client(config.timeout) as client, \
                Tamis(config, store=cli_cache.store_for(found, config), client=client,
                      config_source=loaded.source) as layer:
            cli_cache.known_hash(layer, found)
            answer = await layer.search(request, extract=not no_extract, explain=explain)
            cli_cache.remember(layer, found.fingerprint)
            return answer

    response = asyncio.run(search())
    click.echo(response_json(response) if fmt == "json" else response_markdown(response),
               nl=fmt == "json")
    if response.status == "failed":
        click.echo(f"error: {failure_reason(response)}", err=True)
    sys.exit(response.exit_code)


def remote(config_path: str | None, fmt: str, body: dict[str, Any]) -> None:
    """``tamis search`` through the service at TAMIS_URL (``cli_remote``): its answer printed
    as the CLI prints its own, the same exit code."""
    from tamis.errors import SearchFailed
    from tamis.interfaces import cli_remote

    if config_path is not None:
        raise SearchFailed("--config is not used with TAMIS_URL set: the service there"
                           " searches with its own config (unset TAMIS_URL to search with"
                           " this file)")
    answer, where = cli_remote.search(cli_remote.service_url() or "", body)
    try:  # an answer of another version (or not of tamis) is refused, never shown half-read
        why = cli_remote.failure_line(answer)
        if fmt == "json":
            from tamis.interfaces.render import answer_json

            shown = answer_json(answer)
        else:
            from tamis.interfaces.render import response_markdown
            from tamis.models import SearchResponse

            shown = response_markdown(SearchResponse.model_validate(answer, strict=True))
    except (ValueError, TypeError, AttributeError, KeyError):
        raise SearchFailed(f"{where} answered in a shape this tamis cannot read (another"
                           " version?)") from None
    click.echo(shown, nl=fmt == "json")
    if why is not None:
        click.echo(f"error: {why}", err=True)
    sys.exit(cli_remote.exit_code(answer))
