"""``tamis lists``: the community lists in the policy (``policy.lists``).

``tamis lists update`` fetches every URL list (the only command that does: searches read
the last fetched copy); ``tamis lists show`` says what each list holds, how old it is, and
which lines were skipped. Exit codes: 0 ok; 1 a fetch failed (its previous copy is kept);
2 bad config.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from tamis.interfaces.cli_common import config_option, friendly_errors

if TYPE_CHECKING:
    from tamis.policy.lists.load import ListStatus


def _load(config_path: str | None):  # type: ignore[no-untyped-def]
    from tamis.settings import load_config

    loaded = load_config(config_path)  # a ConfigError is friendly_errors' one line
    path = Path(loaded.source)
    return loaded, (path.parent if path.is_file() else None)


@click.group("lists", short_help="Community lists: fetch them (update), see what each holds"
             " (show).")
def lists() -> None:
    """Community lists (uBlacklist, uBlock Origin / Adblock Plus, hosts, domains)."""


@lists.command("update")
@config_option
@click.argument("names", nargs=-1)
@click.option("--timeout", type=click.FloatRange(0.1, 600), default=30, show_default=True,
              help="Seconds per list.")
@click.option("--json", "as_json", is_flag=True, help="The outcome of each list as JSON.")
@friendly_errors
def update(config_path: str | None, names: tuple[str, ...], timeout: float,
           as_json: bool) -> None:
    """Fetch every URL list (or the lists NAMES): conditional GET, size cap, atomic
    replace; a failed fetch keeps the previous copy."""
    from tamis.policy.lists.update import update_lists

    loaded, _base = _load(config_path)
    entries = loaded.config.policy.lists
    known = {e.name for e in entries}
    for name in names:
        if name not in known:
            click.echo(f"error: {loaded.source}: no list named {name!r} in policy.lists"
                       f" (known: {', '.join(sorted(known)) or 'none'})", err=True)
            sys.exit(2)
    if not entries:
        click.echo(f"no lists in policy.lists ({loaded.source}); see README 'Community"
                   " lists'", err=True)
        return
    results = update_lists(entries, timeout=timeout, only=set(names) or None)
    if as_json:
        click.echo(json.dumps({"source": loaded.source,
                               "lists": [r.as_json() for r in results]}, indent=2))
    else:
        for r in results:
            click.echo(r.line())
            for bad in r.bad[:20]:
                click.echo(f"  skipped {bad}")
            if len(r.bad) > 20:
                click.echo(f"  ... and {len(r.bad) - 20} more bad lines")
    failed = [r for r in results if r.failed]
    if failed:
        click.echo(f"error: {len(failed)} of {len(results)} lists could not be fetched:"
                   f" {', '.join(r.name for r in failed)}", err=True)
        sys.exit(1)


@lists.command("show")
@config_option
@click.option("--json", "as_json", is_flag=True, help="Each list's state as JSON.")
@friendly_errors
def show(config_path: str | None, as_json: bool) -> None:
    """Each list: rules, format, age, and every line that was skipped."""
    from tamis.policy.lists.load import load_lists

    loaded, base = _load(config_path)
    _matcher, statuses = load_lists(loaded.config.policy.lists, base)
    if as_json:
        click.echo(json.dumps({"source": loaded.source,
                               "lists": [s.as_json() for s in statuses]}, indent=2))
        return
    if not statuses:
        click.echo(f"no lists in policy.lists ({loaded.source})")
        return
    for s in statuses:
        click.echo(s.describe())
        for bad in s.bad:
            click.echo(f"  skipped {bad}")


def list_statuses(loaded) -> list[ListStatus]:  # type: ignore[no-untyped-def]
    """Each list's state, for ``tamis backends`` and ``tamis config check``."""
    from tamis.policy.lists.load import load_lists

    if not loaded.config.policy.lists:
        return []
    path = Path(loaded.source)
    _matcher, statuses = load_lists(loaded.config.policy.lists,
                                    path.parent if path.is_file() else None)
    return statuses


if __name__ == "__main__":  # pragma: no cover
    lists()
