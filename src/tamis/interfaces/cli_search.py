"""What ``tamis search`` does once its arguments are read, without click: the click command
(``cli.search``) and the console script's quick path (``cli_quick``) both call it, so a
search prints the same bytes and exits the same way whichever read the arguments.

``echo(text, nl=True, err=False)`` prints (``click.echo`` for the click command).
"""

from __future__ import annotations

import gc
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Callable


def run(query: str, config_path: str | None, no_extract: bool, explain: bool, fmt: str,
        given: dict[str, Any], echo: Callable[..., Any], own_process: bool = False) -> None:
    """Search (through TAMIS_URL when it is set), print the answer, exit with its code.

    ``own_process``: the process is this one call's (the console script's quick path): the
    garbage collector is off while the modules load (about 90 collections, 7% of a search's
    CPU, that find nothing: what an import makes lives until the process ends), and the
    search itself runs with it on again, what the imports made frozen out of its passes."""
    collecting = own_process and gc.isenabled()
    if not collecting:
        _run(query, config_path, no_extract, explain, fmt, given, echo, False)
        return
    gc.disable()
    try:
        _run(query, config_path, no_extract, explain, fmt, given, echo, True)
    finally:
        gc.enable()


def _run(query: str, config_path: str | None, no_extract: bool, explain: bool, fmt: str,
         given: dict[str, Any], echo: Callable[..., Any], collecting: bool) -> None:
    # Building its first model, pydantic reads every installed package's metadata for
    # plugins (tens of ms of CPU); a search from the command line loads none, unless the
    # variable is set (empty: load them).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if os.environ.get("TAMIS_URL", "").strip():  # the warm path: a running tamis serve
        remote(config_path, fmt, {
            "query": query, **given, "extract": not no_extract, "explain": explain}, echo)
    from tamis.interfaces import cli_cache

    found = cli_cache.lookup(config_path, {**given, "query": query.strip()}, {
        "extract": not no_extract, "explain": explain, "max_results": None, "budget": None})
    if found.answer is not None:  # a repeat: the search core is not even imported
        from tamis.interfaces.render import answer_json, response_markdown

        if fmt == "json":
            echo(answer_json(found.answer))
        else:
            from tamis import typed
            from tamis.models import SearchResponse

            echo(response_markdown(typed.from_data(SearchResponse, found.answer)), nl=False)
        sys.exit({"ok": 0, "no_results": 1}.get(found.answer.get("status"), 2))

    import asyncio

    from tamis.core import Tamis
    from tamis.failure import failure_reason
    from tamis.interfaces.render import response_json, response_markdown
    from tamis.models import SearchRequest

    request = SearchRequest(query=query, **given)

    async def search() -> Any:
        from tamis.http_client import tamis_client
        from tamis.settings import load_config

        config = load_config(config_path, snapshots=cli_cache.snapshot_store(found)).config
        async with tamis_client(config.timeout) as client, \
                Tamis(config, store=cli_cache.store_for(found, config), client=client) as layer:
            cli_cache.known_hash(layer, found)
            answer = await layer.search(request, extract=not no_extract, explain=explain)
            cli_cache.remember(layer, found.fingerprint)
            return answer

    if collecting:
        gc.freeze()  # start-up's objects: never garbage, never traversed again
        gc.enable()
    response = asyncio.run(search())
    echo(response_json(response) if fmt == "json" else response_markdown(response),
         nl=fmt == "json")
    if response.status == "failed":
        echo(f"error: {failure_reason(response)}", err=True)
    sys.exit(response.exit_code)


def remote(config_path: str | None, fmt: str, body: dict[str, Any],
           echo: Callable[..., Any]) -> None:
    """``tamis search`` through the service at TAMIS_URL (``cli_remote``): its answer printed
    as the CLI prints its own, the same exit code."""
    from tamis.errors import SearchFailed
    from tamis.interfaces import cli_remote

    if config_path is not None:
        raise SearchFailed("--config is not used with TAMIS_URL set: the service there"
                           " searches with its own config (unset TAMIS_URL to search with"
                           " this file)")
    answer, where = cli_remote.search(cli_remote.service_url() or "", body)
    why = cli_remote.failure_line(answer)
    if fmt == "json":
        from tamis.interfaces.render import answer_json

        echo(answer_json(answer))
    else:
        from tamis import typed
        from tamis.interfaces.render import response_markdown
        from tamis.models import SearchResponse

        try:
            response = typed.from_data(SearchResponse, answer)
        except ValueError:
            raise SearchFailed(f"{where} answered in a shape this tamis cannot read (another"
                               " version?)") from None
        echo(response_markdown(response), nl=False)
    if why is not None:
        echo(f"error: {why}", err=True)
    sys.exit(cli_remote.exit_code(answer))
