"""The ranking-quality guard: passing on the measured recordings, failing (exit 1, naming
query, host and rank) when the policy loses its demote list or lets a banned host through."""

from __future__ import annotations

from pathlib import Path

from trust_support import BEST, DEMO, PROXMOX, invoke, report_of, searxng_line, write_config

from tamis.models import ExtractionSummary, Result, ScoreParts, SearchResponse, Timing
from tamis.settings import load_config
from tamis.trust.guard import banned_set, demote_reference, judge

UNUSED = "http://127.0.0.1:9"  # never asked: --replay answers from the recordings


def replay_config(tmp_path: Path, extra: str = "") -> Path:
    return write_config(tmp_path, searxng_line(UNUSED), extra)


def test_the_guard_passes_on_the_bundled_recordings(tmp_path: Path) -> None:
    config = replay_config(tmp_path)
    result = invoke(["check", "--config", str(config), "--replay", str(DEMO), "--json"])
    assert result.exit_code == 0, result.output
    report = report_of(result)
    assert report["verdict"] == "PASS" and report["mode"] == "replay"
    assert report["lines"] is None  # nothing to probe: the lines are recordings
    guard = report["guard"]
    assert guard["top_n"] == 3
    assert guard["banned_hosts"] == ["bestbuy.com", "merriam-webster.com"]  # the default
    assert [q["query"] for q in guard["queries"]] == [BEST, PROXMOX]
    assert all(q["failures"] == [] and q["returned"] > 10 for q in guard["queries"])
    assert [t["host"] for t in guard["queries"][1]["top"]] == ["forum.proxmox.com"] * 3
    human = invoke(["check", "--config", str(config), "--replay", str(DEMO)])
    assert f'PASS "{PROXMOX}": top 3: 1. forum.proxmox.com' in human.stdout
    assert human.stdout.strip().splitlines()[-1] == "VERDICT: PASS"


def test_the_guard_fails_when_the_policy_loses_its_demote_list(tmp_path: Path) -> None:
    config = replay_config(tmp_path, "policy: {demote_domains: []}\n")
    result = invoke(["check", "--config", str(config), "--replay", str(DEMO), "--json"])
    assert result.exit_code == 1
    report = report_of(result)
    assert report["verdict"] == "FAIL"
    best = report["guard"]["queries"][0]
    first = best["failures"][0]
    # Engine evidence first: without the demote list, the engines' second answer is second.
    assert first == {
        "query": BEST, "kind": "demoted_in_top_n", "host": "stackai.com", "rank": 2,
        "message": f'"{BEST}": demoted host stackai.com at rank 2 (top 3)'}
    assert {f["host"] for f in best["failures"]} >= {"medium.com", "mindstudio.ai", "dev.to"}
    human = invoke(["check", "--config", str(config), "--replay", str(DEMO)])
    assert human.exit_code == 1
    assert f'FAIL "{BEST}": demoted host stackai.com at rank 2 (top 3)' in human.stdout
    assert human.stdout.strip().splitlines()[-1] == "VERDICT: FAIL"


def test_a_demoted_host_in_the_top_n_fails(tmp_path: Path) -> None:
    # With the demote list and the preferred sources gone, content farms reach the top 10.
    config = replay_config(tmp_path, "policy: {demote_domains: [], prefer_domains: []}\n"
                                     "quality: {top_n: 10}\n")
    result = invoke(["check", "--config", str(config), "--replay", str(DEMO), "--json",
                     "-q", BEST])
    failures = report_of(result)["guard"]["queries"][0]["failures"]
    in_top = [f for f in failures if f["kind"] == "demoted_in_top_n"]
    assert in_top and all(f["rank"] <= 10 for f in in_top)
    assert in_top[0]["message"] == (f'"{BEST}": demoted host {in_top[0]["host"]} at rank'
                                    f' {in_top[0]["rank"]} (top 10)')
    assert result.exit_code == 1


def test_a_banned_host_returned_fails_with_its_rank(tmp_path: Path) -> None:
    # The policy no longer knows Best Buy for a shop: it comes back.
    config = replay_config(tmp_path, "policy:\n  page_kinds:\n    shop:\n"
                                     "      hosts: {remove: [bestbuy.com]}\n")
    result = invoke(["check", "--config", str(config), "--replay", str(DEMO), "--json"])
    assert result.exit_code == 1
    failures = [f for q in report_of(result)["guard"]["queries"] for f in q["failures"]]
    banned = [f for f in failures if f["kind"] == "banned_host"]
    assert len(banned) == 1 and banned[0]["host"] == "bestbuy.com"
    assert banned[0]["message"] == (f'"{BEST}": banned host bestbuy.com returned at rank'
                                    f' {banned[0]["rank"]} (banned_hosts: bestbuy.com)')


def test_a_query_with_no_recording_fails_with_no_results(tmp_path: Path) -> None:
    config = replay_config(tmp_path)
    result = invoke(["check", "--config", str(config), "--replay", str(DEMO), "--json",
                     "-q", "a query nobody recorded"])
    failure = report_of(result)["guard"]["queries"][0]["failures"][0]
    assert failure["kind"] == "no_results"
    assert failure["message"].startswith('"a query nobody recorded": no results')
    assert result.exit_code == 1


def test_no_queries_configured_skips_the_guard(tmp_path: Path) -> None:
    config = tmp_path / "none.yaml"
    config.write_text("backends:\n  - {name: searxng, base_url: 'http://127.0.0.1:9'}\n"
                      "store: {url: 'memory:'}\n")
    result = invoke(["check", "--config", str(config), "--guard-only", "--json"])
    report = report_of(result)
    assert report["guard"]["skipped"].startswith("no quality.queries")
    # A skipped guard checked nothing: not a pass, and its own exit code.
    assert report["verdict"] == "INCOMPLETE" and result.exit_code == 3
    assert report["incomplete"] == [
        "ranking-quality guard skipped: no quality.queries in the config (set them, or give"
        " --query)"]
    assert result.stderr.strip().splitlines()[-1] == "VERDICT: INCOMPLETE"


def _response(hosts: list[tuple[str, str]], primary: frozenset[str] = frozenset()
              ) -> SearchResponse:
    results = [Result(rank=i, title="t", url=f"https://{h}/p", host=h, domain=h,
                      source_type=kind, engines=["x"], positions={"x": i}, score=1.0,
                      snippet="", explain=ScoreParts(
                          fusion=1.0, total=1.0,
                          tier="primary" if h in primary else "normal"))  # type: ignore[arg-type]
               for i, (h, kind) in enumerate(hosts, 1)]
    return SearchResponse(query="q", status="ok", raw_result_count=len(hosts),
                          returned_count=len(hosts), dropped_count=0, engines=["x"], lines=[],
                          results=results, extraction=ExtractionSummary(), notes=[],
                          timing=Timing(fanout_seconds=0, pipeline_seconds=0,
                                        extract_seconds=0, total_seconds=0))


def test_judge_matches_subdomains_and_names_every_failure() -> None:
    config = load_config(None).config
    verdict = judge("q", _response([
        ("forum.proxmox.com", "forum"), ("blog.medium.com", "web"), ("docs.example.org", "web"),
        ("shop.bestbuy.com", "web"), ("x.example.org", "content-farm"),
    ]), top_n=3, banned=banned_set(config), demoted=demote_reference(config))
    assert [(f.kind, f.host, f.rank) for f in verdict.failures] == [
        ("demoted_in_top_n", "blog.medium.com", 2),
        ("banned_host", "shop.bestbuy.com", 4),
    ]
    assert [t.demoted for t in verdict.top] == [False, True, False]


def test_a_demoted_host_above_a_primary_source_fails_and_above_others_does_not() -> None:
    config = load_config(None).config
    hosts = [("a.example", "web"), ("b.example", "web"), ("c.example", "web"),
             ("medium.com", "web"), ("d.example", "web"), ("github.com", "code")]
    verdict = judge("q", _response(hosts, primary=frozenset({"github.com"})), top_n=3,
                    banned=banned_set(config), demoted=demote_reference(config))
    assert [(f.kind, f.host, f.rank) for f in verdict.failures] == [
        ("demoted_outranks", "medium.com", 4)]
    moved = judge("q", _response(hosts[:5]), top_n=3, banned=banned_set(config),
                  demoted=demote_reference(config))
    assert moved.failures == []  # below the top 3, above no primary source: moved, not hidden


def test_the_reference_keeps_the_builtin_list_when_the_config_empties_it(tmp_path: Path) -> None:
    path = tmp_path / "c.yaml"
    path.write_text("policy: {demote_domains: [contentfarm.example]}\n"
                    "quality: {banned_hosts: [www.Example.COM]}\n")
    config = load_config(path).config
    assert {"contentfarm.example", "medium.com"} <= demote_reference(config)
    assert banned_set(config) == {"example.com"}
