"""`tamis dupes`: a thin click shell over `tamis.dupes.find_duplicates`.

Errors in the inputs (missing or non-SQLite database, no `nodes` table, bad JSONL line, bad config
key, unreadable state file) print one line on stderr and exit 2, never a traceback.
"""

from __future__ import annotations

from pathlib import Path

import click

from tamis.interfaces.cli_common import friendly_errors

_PATH = click.Path(path_type=Path)


@click.command("dupes",
               short_help="Find duplicate nodes in an agent's knowledge graph (read-only).")
@click.option("--db", type=_PATH, help="RA-H OS SQLite database (opened read-only).")
@click.option("--jsonl", type=_PATH, help="JSON Lines input instead: one node per line.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON (same as --format json).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["report", "json"]),
    default="report",
    show_default=True,
    help="Output: a block for a person, or JSON.",
)
@click.option(
    "--state", type=_PATH, help="Previous report file: mark new/UNFIXED/vanished, then update it."
)
@click.option("--config", "config_path", type=_PATH, help="YAML file with a `dupes:` section.")
@friendly_errors
def dupes(
    db: Path | None,
    jsonl: Path | None,
    as_json: bool,
    fmt: str,
    state: Path | None,
    config_path: Path | None,
) -> None:
    """Find duplicate-node candidates in a knowledge graph; read-only, never merges.

    Verdicts: WRITER-DEFECT (a scheduled writer adds a node per run: fix the writer),
    SAFE-MERGE (identical bodies: a human decides), HUMAN-DECISION (same subject, bodies
    differ: propose an edge).
    """
    from tamis.extras import require

    require("numpy", "dupes")
    from tamis.dupes import find_duplicates, render_text, to_json

    if (db is None) == (jsonl is None):
        raise click.UsageError("give exactly one input: --db PATH or --jsonl PATH")
    report = find_duplicates(db, jsonl=jsonl, config=config_path, state=state)
    click.echo(to_json(report) if as_json or fmt == "json" else render_text(report))


if __name__ == "__main__":
    dupes()
