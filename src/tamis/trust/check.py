"""``tamis check``: stack health and the ranking-quality guard, one PASS/FAIL verdict.

Modes:

- live (default): every line is probed once (``tamis.trust.health``), then the guard runs
  every ``quality.queries`` query through the real pipeline (cache off);
- record (``record=DIR``): live, and every line's answer to every guard query is written
  to DIR (``tamis.trust.recording``);
- replay (``replay=DIR``): no network. Every line answers what it answered when recorded,
  and the guard runs on that. With no queries configured, every recording in DIR is one.

The verdict is FAIL when a line fails its probe or the guard finds a failure; else
INCOMPLETE when something asked for could not be checked (the guard skipped for want of
queries, a line that answered no results to the probe or to a guard query): not a pass;
else PASS. Warnings (slow line, unresponsive engines, a resting key while another works) do
not change it. Exit codes: ``EXIT_CODES`` (0 PASS, 1 FAIL, 3 INCOMPLETE; 2 cannot run).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

import httpx
from pydantic import BaseModel

from tamis.backends.registry import make_adapters
from tamis.core import Tamis
from tamis.errors import ConfigError
from tamis.http_client import tamis_client
from tamis.models import SearchRequest
from tamis.policy.loader import LoadedConfig
from tamis.policy.schema import CacheConfig, Config
from tamis.store.base import MemoryStore, Store, open_store
from tamis.trust.guard import GuardReport, banned_set, demote_reference, judge
from tamis.trust.health import LineHealth, check_lines, record_status
from tamis.trust.recording import (
    PayloadTap,
    check_folder,
    key_values,
    recorded_queries,
    replay_config,
    write_recording,
)

# Rank every kept result, so "never returned" holds whatever max_results an agent asks for.
FULL_RANKING = 100
DEFAULT_PROBE = "open source software"


Verdict = Literal["PASS", "FAIL", "INCOMPLETE"]
# The exit code of each verdict (2 is "could not run": a config error, bad options).
EXIT_CODES: dict[str, int] = {"PASS": 0, "FAIL": 1, "INCOMPLETE": 3}


class CheckReport(BaseModel):
    verdict: Verdict
    mode: Literal["live", "record", "replay"]
    config: str
    lines: list[LineHealth] | None = None
    guard: GuardReport | None = None
    recorded: list[str] | None = None
    replayed_from: str | None = None
    failures: list[str] = []
    incomplete: list[str] = []  # what could not be checked: not a pass
    warnings: list[str] = []


async def run_guard(config: Config, queries: list[str], *, client: httpx.AsyncClient,
                    store: Store, env: Mapping[str, str], tap: PayloadTap | None = None,
                    record: Path | None = None, config_source: str = ""
                    ) -> tuple[GuardReport, list[str], list[str]]:
    """Run every query through the pipeline and judge it; with ``record``, write each
    line's answers (``tap``: a response hook of ``client``, keeping their bodies). Returns
    the report, the files written, and what went unchecked (a line that answered nothing
    to a query)."""
    quality = config.quality
    config = config.model_copy(update={"cache": CacheConfig(enabled=False)})
    banned = banned_set(config)
    demoted = demote_reference(config)
    report = GuardReport(top_n=quality.top_n, banned_hosts=sorted(banned), queries=[])
    written: list[str] = []
    unchecked: list[str] = []
    layer = Tamis(config, store=store, client=client, env=env)
    adapters = layer.adapters()
    secrets = key_values(config, env)
    for query in queries:
        if tap is not None:
            tap.clear()
        response, answers = await layer.search_detailed(
            query, extract=False, explain=True, max_results=FULL_RANKING)
        report.queries.append(judge(query, response, top_n=quality.top_n, banned=banned,
                                    demoted=demoted))
        unchecked += [f"line {a.line}: answered nothing to the guard query {query!r}"
                      f" ({a.status})" for a in answers if a.status != "ok"]
        if record is not None and tap is not None:
            req = SearchRequest(query=response.query)
            payloads = {a.name: tap.payload_for(a, adapters, req) for a in adapters}
            path = write_recording(record, query, answers, adapters, payloads, secrets,
                                   config_source=config_source)
            written.append(str(path))
    return report, written, unchecked


async def run_check(loaded: LoadedConfig, *, env: Mapping[str, str] | None = None,
                    health: bool = True, guard: bool = True, queries: list[str] | None = None,
                    record: str | os.PathLike[str] | None = None,
                    replay: str | os.PathLike[str] | None = None,
                    probe: str | None = None, slow: float | None = None) -> CheckReport:
    """The whole check. Raises ConfigError for what the user must fix first."""
    env = os.environ if env is None else env
    if record is not None and replay is not None:
        raise ConfigError("--record and --replay cannot be used together")
    config = loaded.config
    make_adapters(config)  # a line that cannot be built is a config error, before any probe
    mode: Literal["live", "record", "replay"] = (
        "replay" if replay is not None else "record" if record is not None else "live")
    wanted = list(queries or config.quality.queries)
    replay_dir = check_folder(replay) if replay is not None else None
    record_dir = Path(record).expanduser() if record is not None else None
    if replay_dir is not None:
        config = replay_config(config, replay_dir)
        health = False  # the lines are recordings: nothing to probe
        if not wanted:
            wanted = recorded_queries(replay_dir)
            if not wanted:
                raise ConfigError(f"recordings folder {str(replay_dir)!r} holds no recording")
    if record_dir is not None and not wanted:
        raise ConfigError("nothing to record: give --query, or set quality.queries in the"
                          " config")
    if record_dir is not None:
        guard = True
    report = CheckReport(verdict="PASS", mode=mode, config=loaded.source,
                         replayed_from=str(replay_dir) if replay_dir else None)
    store: Store = MemoryStore() if replay_dir is not None else open_store(config.store.url)
    # One client for every request of the check: the probes' statuses are filed by line
    # (``record_status``), the guard's answers kept by the tap when recording.
    tap = PayloadTap() if record_dir is not None else None
    hooks = {"response": [record_status, *([tap] if tap is not None else [])]}
    try:
        async with tamis_client(config.timeout, event_hooks=hooks) as client:
            if health:
                threshold = slow if slow is not None else config.timeout / 2
                report.lines = await check_lines(
                    config, client=client, store=store, env=env,
                    probe=probe or (wanted[0] if wanted else DEFAULT_PROBE), slow=threshold)
                _count_lines(report)
            if guard:
                await _guard(report, config, wanted, client=client, tap=tap, store=store,
                             env=env, record_dir=record_dir, config_source=loaded.source)
    finally:
        store.close()
    report.verdict = ("FAIL" if report.failures else "INCOMPLETE" if report.incomplete
                      else "PASS")
    return report


def _count_lines(report: CheckReport) -> None:
    """Each probed line's problems, warnings and unchecked answers, into the report."""
    for line in report.lines or []:
        report.failures += [f"line {line.name}: {p}" for p in line.problems]
        report.warnings += [f"line {line.name}: {w}" for w in line.warnings]
        if line.status == "empty" and not line.problems:
            report.incomplete.append(f"line {line.name}: answered no results to the"
                                     " probe query, so its answers were not checked")


async def _guard(report: CheckReport, config: Config, wanted: list[str], *,
                 client: httpx.AsyncClient, tap: PayloadTap | None, store: Store,
                 env: Mapping[str, str], record_dir: Path | None, config_source: str) -> None:
    """The ranking-quality guard's part of the report (skipped without queries)."""
    if not wanted:
        report.guard = GuardReport(
            top_n=config.quality.top_n, banned_hosts=sorted(banned_set(config)),
            queries=[], skipped="no quality.queries in the config (set them, or give"
                                " --query)")
        report.incomplete.append(f"ranking-quality guard skipped: {report.guard.skipped}")
        return
    report.guard, written, unchecked = await run_guard(
        config, wanted, client=client, store=store, env=env, tap=tap, record=record_dir,
        config_source=config_source)
    report.failures += [f.message for f in report.guard.failures]
    report.incomplete += unchecked
    if record_dir is not None:
        report.recorded = written
