"""``tamis check`` and ``tamis compare``: thin click shells over ``tamis.trust``.

``tamis check`` exits 0 on PASS, 1 on FAIL, 3 on INCOMPLETE (something could not be
checked: the guard had no queries, a line answered no results), 2 when it cannot run (config
error, missing recordings folder): one line ``error: ...`` on stderr, never a traceback. Its
last line is ``VERDICT: PASS``, ``FAIL`` or ``INCOMPLETE`` (on stderr with ``--json``, so
stdout stays JSON).

``tamis compare`` exits like ``tamis search``: 0 results, 1 none survived, 2 could not run.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tamis.interfaces.cli_common import (
    QueryCommand,
    config_option,
    failure_message,
    friendly_errors,
)
from tamis.interfaces.tables import print_comparison, styled, table


@click.command("check", short_help="Check the stack: every line's health and the ranking-quality"
               " guard.")
@config_option
@click.option("--json", "as_json", is_flag=True, help="The report as JSON on stdout.")
@click.option("--guard-only", is_flag=True,
              help="Only the ranking-quality guard: do not probe the lines.")
@click.option("--no-guard", is_flag=True, help="Only the lines' health: skip the guard.")
@click.option("--query", "-q", "queries", multiple=True,
              help="A guard query (repeatable); replaces quality.queries of the config.")
@click.option("--record", type=click.Path(file_okay=False), default=None,
              help="Save every line's answer to every guard query into this folder.")
@click.option("--replay", type=click.Path(file_okay=False), default=None,
              help="Run the guard offline on a folder of recordings (no network).")
@click.option("--probe", default=None,
              help="The query each line is probed with (default: the first guard query).")
@click.option("--slow", type=click.FloatRange(min=0), default=None,
              help="A line answering slower than this many seconds is a warning"
                   " (default: half the config timeout).")
@friendly_errors
def check(config_path: str | None, as_json: bool, guard_only: bool, no_guard: bool,
          queries: tuple[str, ...], record: str | None, replay: str | None,
          probe: str | None, slow: float | None) -> None:
    """Check the search stack: every line's health and the ranking-quality guard.

    \b
    Every line is asked once, for one result: reachable, latency, key accepted, answer
    shape; for SearXNG whether JSON output is enabled and which engines it reports
    unresponsive or suspended; which keys rest. The guard runs every quality.queries
    query: no demoted host in the top N, a demoted host never above a real result, no
    banned host returned, at least one result. Exit 0 PASS, 1 FAIL, 3 INCOMPLETE (a guard
    with no queries, a line that answered no results: not checked, so not a pass), 2
    cannot run.

    \b
    tamis check --record tests/recordings -q "your query"   # freeze today's answers
    tamis check --replay tests/recordings                   # the guard offline, in CI
    """
    import asyncio

    from tamis.errors import ConfigError
    from tamis.settings import load_config
    from tamis.trust.check import EXIT_CODES, run_check

    if guard_only and no_guard:
        raise ConfigError("--guard-only and --no-guard exclude each other")
    loaded = load_config(config_path, live=replay is None)
    report = asyncio.run(run_check(
        loaded, health=not guard_only, guard=not no_guard, queries=list(queries) or None,
        record=record, replay=replay, probe=probe, slow=slow))
    if as_json:
        click.echo(json.dumps(report.model_dump(mode="json"), indent=2))
        click.echo(f"VERDICT: {report.verdict}", err=True)
    else:
        print_report(report)
        click.echo(f"VERDICT: {report.verdict}")
    sys.exit(EXIT_CODES[report.verdict])


def _count(n: int) -> str:
    return f"{n} query" if n == 1 else f"{n} queries"


def _yes(value: bool | None) -> str:
    return {True: "yes", False: "NO", None: "-"}[value]


def print_report(report: Any) -> None:
    click.echo(f"tamis check ({report.mode}) with {report.config}")
    if report.replayed_from:
        click.echo(f"replaying recordings from {report.replayed_from}: no network")
    if report.lines is not None:
        rows = []
        for line in report.lines:
            details = []
            if line.json_output:
                details.append(f"JSON output {line.json_output}")
            details += [f"{e.engine}: {e.reason}" for e in line.unresponsive_engines]
            for key in line.keys:
                state = ("resting" if key.resting_until else "set" if key.set else "NOT SET")
                details.append(f"{key.env} {state}")
            style = {"fail": "red", "warn": "yellow", "ok": "green"}.get(line.verdict, "dim")
            rows.append([f"{line.name} ({line.type})", styled(line.status, style),
                         _yes(line.reachable),
                         f"{line.latency:.2f} s" if line.latency is not None else "-",
                         line.auth, line.shape, "; ".join(details)])
        headers = ["line", "status", "reachable", "latency", "auth", "shape", "details"]
        click.echo(table(headers, rows, right=[3], fit=6, title="lines"))
        for line in report.lines:
            for problem in line.problems:
                click.echo(f"FAIL line {line.name}: {problem}")
            for warning in line.warnings:
                click.echo(f"warn line {line.name}: {warning}")
    guard = report.guard
    if guard is not None:
        banned = ", ".join(guard.banned_hosts) or "none"
        if guard.skipped:
            click.echo(f"ranking-quality guard: skipped: {guard.skipped}")
        else:
            click.echo(f"ranking-quality guard: {_count(len(guard.queries))}, top"
                       f" {guard.top_n}, banned hosts: {banned}")
        for verdict in guard.queries:
            if verdict.passed:
                top = ", ".join(f"{t.rank}. {t.host}" for t in verdict.top)
                click.echo(f'PASS "{verdict.query}": top {guard.top_n}: {top}')
            for failure in verdict.failures:
                click.echo(f"FAIL {failure.message}")
    for reason in report.incomplete:
        click.echo(f"INCOMPLETE {reason}")
    if report.recorded:
        click.echo(f"recorded {_count(len(report.recorded))}:")
        for path in report.recorded:
            click.echo(f"  {path}")


@click.command("compare", cls=QueryCommand,
               short_help="Raw backend order beside tamis order: what moved, was dropped,"
               " and why.")
@click.argument("query")
@config_option
@click.option("--json", "as_json", is_flag=True, help="The comparison as JSON.")
@click.option("--replay", type=click.Path(file_okay=False), default=None,
              help="Answer from a folder of recordings (tamis check --record) offline.")
@friendly_errors
def compare(query: str, config_path: str | None, as_json: bool, replay: str | None) -> None:
    """Raw backend order beside tamis order for QUERY: what moved, what was dropped and why.

    \b
    tamis compare "proxmox thin pool metadata exhaustion recovery"
    tamis compare "..." --replay src/tamis/demo      # on recorded answers, offline
    """
    import asyncio

    from tamis.core import Tamis
    from tamis.settings import load_config
    from tamis.store.base import MemoryStore
    from tamis.trust.recording import check_folder, replay_config
    from tamis.trust.view import compare_query, view_payload

    loaded = load_config(config_path, live=replay is None)
    config = loaded.config
    if replay is not None:
        config = replay_config(config, check_folder(replay))

    async def run() -> Any:
        store = MemoryStore() if replay is not None else None
        async with Tamis(config, store=store, config_source=loaded.source) as layer:
            return await compare_query(layer, query)

    comparison, response = asyncio.run(run())
    if as_json:
        click.echo(json.dumps(view_payload(comparison, response, returned=config.max_results,
                                           config=loaded.source), indent=2))
    else:
        print_comparison(comparison, response, returned=config.max_results,
                         config=loaded.source)
    if response.status == "failed":
        click.echo(f"error: {failure_message(response)}", err=True)
    sys.exit(response.exit_code)
