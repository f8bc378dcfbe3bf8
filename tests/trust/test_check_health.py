"""`tamis check`: every line's health, against loopback backends in every state.

Healthy, slow, too slow (timeout), down, 403 (SearXNG JSON output disabled), suspended
engines, resting keys, refused keys, an unreadable answer shape; PASS/FAIL and exit codes;
config errors on one line. No assertion on wall-clock time beyond lower bounds the fakes
guarantee by sleeping.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from fake_searxng import FakeSearXNG, recorded
from loopback import LoopbackServer, Reply, Request, free_port
from trust_support import (
    BEST,
    FakeAPI,
    api_line,
    invoke,
    report_of,
    searxng_line,
    write_config,
)

from tamis.backends.keys import KeyPool
from tamis.store.base import open_store

KEY_ENV = {"ACME_KEY": "good-key"}


def line(report: dict, name: str) -> dict:
    return next(x for x in report["lines"] if x["name"] == name)


def test_healthy_stack_passes_with_every_fact_reported(tmp_path: Path, searxng, api) -> None:
    (sx_server, sx), (api_server, fake) = searxng, api
    config = write_config(tmp_path, searxng_line(sx_server.url) + api_line(api_server.url))
    result = invoke(["check", "--config", str(config), "--no-guard", "--json", "--probe", BEST],
                    env=KEY_ENV)
    assert result.exit_code == 0, result.output
    report = report_of(result)
    assert report["verdict"] == "PASS"
    assert result.stderr.strip().splitlines()[-1] == "VERDICT: PASS"
    sx_health = line(report, "searxng")
    assert sx_health["status"] == "ok"
    # The recording reports google suspended: a warning only.
    assert sx_health["verdict"] == "warn" and report["warnings"] == [
        "line searxng: engine google unresponsive: Suspended: too many requests"]
    assert sx_health["reachable"] is True
    assert sx_health["latency"] is not None and sx_health["latency"] >= 0
    assert sx_health["auth"] == "not needed"
    assert sx_health["shape"] == "recognised"
    assert sx_health["json_output"] == "enabled"
    assert sx_health["http_statuses"] == [200]
    acme = line(report, "acme")
    assert acme == {**acme, "status": "ok", "verdict": "ok", "reachable": True, "auth": "ok",
                    "shape": "recognised", "json_output": None, "problems": [],
                    "warnings": []}
    assert acme["keys"] == [{"env": "ACME_KEY", "set": True, "resting_until": None,
                             "rest_reason": None}]
    # Quota: the probe asks for ONE result, once per line.
    assert len(fake.seen) == 1 and fake.body()["max_results"] == 1
    assert len(sx.seen) == 1 and sx.seen[0].arg("format") == "json"


def test_human_output_is_a_table_and_ends_with_the_verdict(tmp_path: Path, api) -> None:
    server, _ = api
    config = write_config(tmp_path, api_line(server.url))
    result = invoke(["check", "--config", str(config), "--no-guard"], env=KEY_ENV)
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "VERDICT: PASS"
    assert any("acme (generic)" in x and "yes" in x and "ok" in x for x in lines)
    assert "ACME_KEY set" in result.stdout
    assert "good-key" not in result.output  # never a key value


def test_suspended_engines_are_listed_with_their_reason(tmp_path: Path) -> None:
    fake = FakeSearXNG(mode="custom")
    fake.answer = recorded(BEST)
    fake.answer["unresponsive_engines"] = [["google", "Suspended: too many requests"],
                                           ["qwant", "timeout"]]
    with LoopbackServer(fake) as server:
        config = write_config(tmp_path, searxng_line(server.url))
        result = invoke(["check", "--config", str(config), "--no-guard", "--json"])
        human = invoke(["check", "--config", str(config), "--no-guard"])
    report = report_of(result)
    health = line(report, "searxng")
    assert health["unresponsive_engines"] == [
        {"engine": "google", "reason": "Suspended: too many requests"},
        {"engine": "qwant", "reason": "timeout"}]
    assert health["verdict"] == "warn"
    assert "engine google unresponsive: Suspended: too many requests" in health["warnings"]
    # A suspended engine is a warning: the stack still answers.
    assert report["verdict"] == "PASS" and result.exit_code == 0
    assert "warn line searxng: engine google unresponsive: Suspended: too many requests" in \
        human.stdout


def test_json_output_disabled_fails_with_its_fix(tmp_path: Path) -> None:
    with LoopbackServer(FakeSearXNG(mode="403")) as server:
        config = write_config(tmp_path, searxng_line(server.url))
        result = invoke(["check", "--config", str(config), "--no-guard", "--json"])
        human = invoke(["check", "--config", str(config), "--no-guard"])
    assert result.exit_code == 1
    report = report_of(result)
    health = line(report, "searxng")
    assert health["reachable"] is True and health["json_output"] == "disabled"
    assert health["verdict"] == "fail"
    assert health["problems"][0].startswith("JSON output disabled")
    assert report["verdict"] == "FAIL"
    assert human.exit_code == 1
    assert "FAIL line searxng: JSON output disabled" in human.stdout
    assert human.stdout.strip().splitlines()[-1] == "VERDICT: FAIL"


def test_a_down_line_is_unreachable(tmp_path: Path, api) -> None:
    server, _ = api
    closed = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    config = write_config(tmp_path, api_line(server.url) + searxng_line(closed, "local"))
    result = invoke(["check", "--config", str(config), "--no-guard", "--json"], env=KEY_ENV)
    assert result.exit_code == 1
    report = report_of(result)
    down = line(report, "local")
    assert down["status"] == "failed" and down["reachable"] is False
    assert down["problems"][0].startswith("unreachable: cannot connect")
    assert line(report, "acme")["verdict"] == "ok"  # the other line is still judged
    assert any(f.startswith("line local: unreachable") for f in report["failures"])


def test_a_slow_line_warns_and_a_too_slow_line_fails(tmp_path: Path) -> None:
    slow, stuck = FakeAPI(delay=0.3), FakeAPI(delay=3.0)
    with LoopbackServer(slow) as a, LoopbackServer(stuck) as b:
        config = write_config(
            tmp_path, api_line(a.url, "slow") + api_line(b.url, "stuck"),
            "timeout: 1\n")
        result = invoke(["check", "--config", str(config), "--no-guard", "--json",
                         "--slow", "0.1"], env=KEY_ENV)
    report = report_of(result)
    slow_health, stuck_health = line(report, "slow"), line(report, "stuck")
    assert slow_health["status"] == "ok" and slow_health["verdict"] == "warn"
    assert slow_health["latency"] >= 0.3
    assert slow_health["warnings"][0].startswith("slow: answered in")
    assert stuck_health["verdict"] == "fail"
    assert stuck_health["reachable"] is None  # connected, but no answer in time
    assert "timed out" in stuck_health["problems"][0] or "timeout" in \
        stuck_health["problems"][0]
    assert result.exit_code == 1


def test_refused_key_and_unreadable_shape_fail(tmp_path: Path) -> None:
    refused, odd = FakeAPI(good={"other"}), FakeAPI(shape="odd")
    with LoopbackServer(refused) as a, LoopbackServer(odd) as b:
        config = write_config(tmp_path, api_line(a.url, "refused") + api_line(b.url, "odd"))
        result = invoke(["check", "--config", str(config), "--no-guard", "--json"], env=KEY_ENV)
    report = report_of(result)
    refused_health = line(report, "refused")
    assert refused_health["auth"] == "refused" and refused_health["http_statuses"] == [401]
    assert refused_health["problems"][0].startswith("key refused")
    odd_health = line(report, "odd")
    assert odd_health["shape"] == "not recognised" and odd_health["verdict"] == "fail"
    assert result.exit_code == 1


def test_resting_keys_are_reported_from_the_store(tmp_path: Path, api) -> None:
    server, fake = api
    store_path = tmp_path / "store.sqlite"
    config = write_config(
        tmp_path,
        api_line(server.url, "pool", ("POOL_KEY_A", "POOL_KEY_B")) +
        api_line(server.url, "solo", ("SOLO_KEY",)),
        store=str(store_path))
    store = open_store(str(store_path))
    env = {"POOL_KEY_A": "key-a", "POOL_KEY_B": "good-key", "SOLO_KEY": "good-key"}
    # Another process rested POOL_KEY_A after a 429, and the only key of `solo`.
    for line_name, key_env in (("pool", "POOL_KEY_A"), ("solo", "SOLO_KEY")):
        pool = KeyPool(line_name, [key_env], "fill_first", store=store, env=env)
        key = pool.candidates()[0]
        pool.rest(key, status=429, reason="HTTP 429: rate limited")
    store.close()
    result = invoke(["check", "--config", str(config), "--no-guard", "--json"], env=env)
    report = report_of(result)
    pool_health = line(report, "pool")
    resting = {k["env"]: k for k in pool_health["keys"]}
    assert resting["POOL_KEY_A"]["resting_until"] and \
        resting["POOL_KEY_A"]["rest_reason"] == "HTTP 429: rate limited"
    assert resting["POOL_KEY_B"]["resting_until"] is None
    # The pool still answers through its other key: a warning, not a failure.
    assert pool_health["status"] == "ok" and pool_health["verdict"] == "warn"
    assert any(w.startswith("key POOL_KEY_A rests until") for w in pool_health["warnings"])
    assert all(s.headers["authorization"] == "Bearer good-key" for s in fake.seen)
    # The only key of `solo` rests: the line cannot be asked.
    solo = line(report, "solo")
    assert solo["status"] == "no_key" and solo["auth"] == "no usable key"
    assert "SOLO_KEY rests until" in solo["problems"][0]
    assert result.exit_code == 1
    assert "key-a" not in result.output and "good-key" not in result.output


def test_unset_key_fails_without_asking(tmp_path: Path, api) -> None:
    server, fake = api
    config = write_config(tmp_path, api_line(server.url))
    result = invoke(["check", "--config", str(config), "--no-guard", "--json"])
    health = line(report_of(result), "acme")
    assert health["status"] == "no_key" and "ACME_KEY is not set" in health["problems"][0]
    assert fake.seen == [] and result.exit_code == 1


def test_a_line_that_answers_only_on_a_retry_warns(tmp_path: Path) -> None:
    calls: list[Request] = []

    def flaky(req: Request) -> Reply:
        calls.append(req)
        if len(calls) == 1:
            return Reply(502, json.dumps({"error": "bad gateway"}))
        return Reply(body=json.dumps({"results": [
            {"title": "t", "url": "https://docs.example.org/a", "content": "c"}]}))

    with LoopbackServer(flaky) as server:
        config = write_config(
            tmp_path, f"  - name: flaky\n    base_url: {server.url}\n    search_path: /s\n")
        result = invoke(["check", "--config", str(config), "--no-guard", "--json"])
    health = line(report_of(result), "flaky")
    assert health["status"] == "ok" and health["http_statuses"] == [502, 200]
    assert health["verdict"] == "warn"
    assert health["warnings"] == ["answered only on a retry: HTTP 502: server error"]
    assert result.exit_code == 0


def test_disabled_lines_are_listed_not_asked(tmp_path: Path, api) -> None:
    server, fake = api
    config = write_config(tmp_path, api_line(server.url) + "    enabled: false\n"
                          + api_line(server.url, name="other"))
    result = invoke(["check", "--config", str(config), "--no-guard", "--json"], env=KEY_ENV)
    assert line(report_of(result), "acme")["verdict"] == "skipped"
    assert len(fake.seen) == 1 and result.exit_code == 0  # only the enabled line was asked


def test_config_errors_are_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("quality:\n  top_n: 0\n")
    for args in (["check", "--config", str(bad)],
                 ["check", "--config", str(tmp_path / "missing.yaml")],
                 ["check", "--replay", str(tmp_path / "nowhere")],
                 ["check", "--record", str(tmp_path / "a"), "--replay", str(tmp_path)],
                 ["check", "--guard-only", "--no-guard"]):
        result = invoke(args)
        assert result.exit_code == 2, (args, result.output)
        assert result.stderr.startswith("error: ") and len(result.stderr.splitlines()) == 1
        assert "Traceback" not in result.output
    unknown = write_config(tmp_path, "  - name: x\n    type: nosuch\n", name="unknown.yaml")
    result = invoke(["check", "--config", str(unknown)])
    assert result.exit_code == 2 and "unknown type 'nosuch'" in result.stderr


def test_record_without_queries_is_a_config_error(tmp_path: Path, api) -> None:
    server, _ = api
    config = write_config(tmp_path, api_line(server.url))
    result = invoke(["check", "--config", str(config), "--record", str(tmp_path / "rec")],
                    env=KEY_ENV)
    assert result.exit_code == 2 and "nothing to record" in result.stderr


def test_the_probe_spends_one_request_per_line(tmp_path: Path, api) -> None:
    server, fake = api
    config = write_config(tmp_path, api_line(server.url))
    start = time.monotonic()
    invoke(["check", "--config", str(config), "--no-guard", "--probe", "hello"], env=KEY_ENV)
    assert time.monotonic() >= start  # (no timing assertion: only the request count)
    assert [json.loads(s.body)["q"] for s in fake.seen] == ["hello"]


def test_checking_almost_nothing_is_incomplete_not_pass(tmp_path: Path) -> None:
    """Out of the box: the probe got no results and there are no guard queries. That is
    VERDICT: INCOMPLETE with exit 3, never PASS."""
    with LoopbackServer() as server:
        server.route("/search", Reply(json={"results": []}))
        config = write_config(tmp_path, searxng_line(server.url))
        result = invoke(["check", "--config", str(config)])
    assert result.exit_code == 3, result.output
    out = result.stdout.splitlines()
    assert out[-1] == "VERDICT: INCOMPLETE"
    assert ("INCOMPLETE line searxng: answered no results to the probe query, so its answers"
            " were not checked") in out
    assert any(x.startswith("INCOMPLETE ranking-quality guard skipped") for x in out)


def test_a_fail_outranks_incomplete(tmp_path: Path) -> None:
    config = write_config(tmp_path, searxng_line(f"http://127.0.0.1:{free_port()}"))
    result = invoke(["check", "--config", str(config), "--json"])
    report = report_of(result)
    assert report["verdict"] == "FAIL" and result.exit_code == 1
    assert report["incomplete"]  # the skipped guard is still reported
