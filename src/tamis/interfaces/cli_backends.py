"""``tamis backends``: list every configured line, its endpoint and its keys (names only);
``--types``: every adapter type tamis knows (from the adapters' declarations, no config read).

A thin shell over ``tamis.backends.listing``. Exit 0; a config error prints
``error: <message>`` on stderr and exits 2. A store that cannot be opened is a warning:
the lines are listed without their rest state.
"""

from __future__ import annotations

import json
import os

import click

from tamis.errors import TamisError
from tamis.interfaces.cli_common import config_option, friendly_errors


@click.command("backends",
               short_help="List every line, its endpoint, and whether each key is set.")
@config_option
@click.option("--json", "as_json", is_flag=True, help="JSON on stdout instead of text.")
@click.option("--types", "types", is_flag=True,
              help="List every backend type tamis knows instead: key, endpoint, what it"
              " supports, the variables that enable it with no config.")
@friendly_errors
def backends(config_path: str | None, as_json: bool, types: bool) -> None:
    """List every line: type, endpoint, key variables (set? resting?), what it supports."""
    from tamis.backends.listing import describe_lines, describe_types, format_lines, format_types
    from tamis.settings import load_config

    if types:
        known = describe_types()
        click.echo(json.dumps({"types": known}, indent=2) if as_json else format_types(known))
        return
    from tamis.store.base import open_store

    loaded = load_config(config_path)  # a ConfigError is friendly_errors' one line
    store = None
    try:
        store = open_store(loaded.config.store.url)
    except TamisError as exc:
        click.echo(f"warning: {exc}; key rests are not shown", err=True)
    try:
        lines = describe_lines(loaded.config, store, os.environ)
    finally:
        if store is not None:
            store.close()
    from tamis.interfaces.cli_lists import list_statuses

    lists = list_statuses(loaded)  # community lists and their age
    if as_json:
        click.echo(json.dumps({"source": loaded.source, "lines": lines,
                               "lists": [s.as_json() for s in lists]}, indent=2))
    else:
        click.echo(format_lines(lines, loaded.source))
        for status in lists:
            click.echo(status.describe())


if __name__ == "__main__":  # pragma: no cover - `python -m tamis.interfaces.cli_backends`
    backends()
