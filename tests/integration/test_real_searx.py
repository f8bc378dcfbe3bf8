"""tamis against a real searx (Debian's package), its engines on loopback (conftest.py).

The SearXNG stand-in (tests/fake_searxng.py) encodes our reading of the API; these tests
check that reading against the real aggregator: its merge and provenance, its
``unresponsive_engines``, its error answers, and how it understands the parameters tamis
passes through. Each test uses queries of its own, so tests share one searx.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner, Result
from loopback import Reply, Request
from real_searx import ENGINE_TIMEOUT, RealSearx, hit, running_searx

from tamis.interfaces.cli import cli

pytestmark = pytest.mark.needs_program


def config(tmp_path: Path, searx: RealSearx | str, extra: str = "") -> Path:
    url = searx if isinstance(searx, str) else searx.url
    path = tmp_path / "tamis.yaml"
    path.write_text("backends:\n"
                    f"  - name: searxng\n    base_url: {url}\n{extra}"
                    "cache: {enabled: false}\n"
                    "store: {url: 'memory:'}\n")
    return path


def tamis(args: list[str]) -> Result:
    return CliRunner().invoke(cli, args)


def search(tmp_path: Path, searx: RealSearx, query: str, *options: str,
           extra: str = "") -> dict[str, Any]:
    result = tamis(["search", "--config", str(config(tmp_path, searx, extra)), "--no-extract",
                    *options, query])
    assert result.stdout.startswith("{"), (result.stdout, result.stderr, searx.log()[-2000:])
    return json.loads(result.stdout)


def by_url(answer: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["url"]: r for r in answer["results"]}


def late(delay: float, *hits: dict[str, str]) -> Reply:
    """An engine answer that arrives ``delay`` seconds late: sets which engine searx hears
    from first, and so the order of a merged result's ``positions``."""
    return Reply(json={"results": list(hits)}, delay=delay)


def notes_of(answer: dict[str, Any], kind: str) -> list[tuple[str, str]]:
    return [(n["source"], n["message"]) for n in answer["notes"] if n["kind"] == kind]


# -- fan-out and merge ---------------------------------------------------------------------

@pytest.mark.parametrize("first", ["alpha", "beta"])
def test_merged_page_keeps_each_engines_own_position(tmp_path, searx, first):
    """searx sends a merged result's ``engines`` as a set (any order) and its ``positions``
    in the order the engines answered: tamis must not pair them blindly."""
    query = f"merge provenance {first} first"
    shared = "https://shared.example/page"
    second = "beta" if first == "alpha" else "alpha"
    searx.answer(query, **{
        first: [hit(f"https://{first}.example/1"), hit(shared)],  # shared at 2, first to answer
        second: late(0.4, hit(shared), hit(f"https://{second}.example/2")),  # shared at 1
    })
    raw = httpx.get(searx.url + "/search", params={"q": query, "format": "json"},
                    timeout=10).json()
    [merged] = [r for r in raw["results"] if r["url"] == shared]
    assert sorted(merged["engines"]) == ["alpha", "beta"]
    # arrival order, whatever the order of engines: [2, 1] when `first` answered first
    truth = {first: 2, second: 1}
    assert merged["positions"][0] == truth[merged["engine"]]
    assert sorted(merged["positions"]) == [1, 2]

    answer = search(tmp_path, searx, query)
    results = by_url(answer)
    assert answer["status"] == "ok" and len(results) == 3
    assert results[shared]["positions"] == {f"searxng:{first}": 2, f"searxng:{second}": 1}
    assert results[f"https://{first}.example/1"]["positions"] == {f"searxng:{first}": 1}
    assert results[f"https://{second}.example/2"]["positions"] == {f"searxng:{second}": 2}
    assert answer["results"][0]["url"] == shared  # two engines' votes outrank one
    assert answer["engines"] == ["searxng:alpha", "searxng:beta"]


def test_three_engines_one_page_is_one_result_with_all_three(tmp_path, searx):
    query = "merge three engines"
    shared = "https://shared.example/three"
    searx.answer(query, alpha=[hit(shared)], beta=late(0.3, hit("https://b.example/x"),
                 hit(shared)), gamma=late(0.6, hit(shared)))
    answer = search(tmp_path, searx, query)
    [result] = [r for r in answer["results"] if r["url"] == shared]
    assert result["engines"] == ["searxng:alpha", "searxng:beta", "searxng:gamma"]
    assert result["positions"]["searxng:alpha"] == 1  # the first to answer: known exactly
    assert sorted(result["positions"].values()) == [1, 1, 2]
    assert [r["url"] for r in answer["results"]].count(shared) == 1


# -- engines that fail ---------------------------------------------------------------------

def test_failing_engines_are_notes_from_real_unresponsive_engines(tmp_path, searx):
    query = "engines that fail"
    searx.answer(query, alpha=[hit("https://ok.example/1")],
                 beta=Reply(status=500, json={"error": "boom"}),
                 gamma=Reply(body='{"results": [{"url": '))  # malformed JSON
    answer = search(tmp_path, searx, query)
    assert answer["status"] == "ok"
    assert [r["url"] for r in answer["results"]] == ["https://ok.example/1"]
    assert notes_of(answer, "unresponsive_engine") == [
        ("searxng:beta", "HTTP error"), ("searxng:gamma", "unexpected crash")]
    assert answer["lines"][0]["status"] == "ok"


def test_an_engine_that_times_out_is_a_note(tmp_path, searx):
    query = "an engine that is slow"
    searx.answer(query, alpha=[hit("https://ok.example/2")],
                 gamma=late(ENGINE_TIMEOUT + 2, hit("https://late.example/never")))
    answer = search(tmp_path, searx, query)
    assert [r["url"] for r in answer["results"]] == ["https://ok.example/2"]
    assert notes_of(answer, "unresponsive_engine") == [("searxng:gamma", "timeout")]


def test_every_engine_failing_is_an_empty_answer_with_the_reasons(tmp_path, searx):
    query = "every engine fails"
    searx.answer(query, alpha=Reply(status=503), beta=Reply(status=500),
                 gamma=Reply(body="<html>not json</html>", content_type="text/html"))
    answer = search(tmp_path, searx, query)
    assert answer["results"] == [] and answer["lines"][0]["status"] == "empty"
    assert notes_of(answer, "unresponsive_engine") == [
        ("searxng:alpha", "HTTP error"), ("searxng:beta", "HTTP error"),
        ("searxng:gamma", "unexpected crash")]


def test_a_parameter_searx_refuses_is_named_in_the_note(tmp_path, searx):
    """searx answers 400 with ``{"error": "Invalid value ... for parameter ..."}``."""
    raw = httpx.get(searx.url + "/search", params={"q": "x", "format": "json",
                                                   "time_range": "fortnight"}, timeout=10)
    assert raw.status_code == 400
    assert raw.json() == {"error": 'Invalid value "fortnight" for parameter time_range'}
    answer = search(tmp_path, searx, "bad parameter",
                    extra="    params: {time_range: fortnight}\n")
    assert answer["lines"][0]["status"] == "failed"
    [(source, message)] = notes_of(answer, "line_failed")
    assert source == "searxng"
    assert 'Invalid value "fortnight" for parameter time_range' in message


# -- parameters passed through -------------------------------------------------------------

def paged(request: Request) -> Reply:
    page = request.arg("p")
    return Reply(json={"results": [hit(f"https://paged.example/p{page}-{i}") for i in (1, 2)]})


def test_pageno_reaches_only_the_engines_that_page(tmp_path, searx):
    query = "paging through searx"
    searx.answer(query, alpha=paged, beta=[hit("https://beta.example/page1-only")])
    answer = search(tmp_path, searx, query, "--pageno", "2")
    assert sorted(r["url"] for r in answer["results"]) == [
        "https://paged.example/p2-1", "https://paged.example/p2-2"]
    assert [(r.path, r.arg("p")) for r in searx.asked(query)] == [("/alpha", "2")]


@pytest.mark.parametrize(("options", "engines_asked"), [
    (["--time-range", "day"], ["/alpha"]),  # only alpha supports time_range
    (["--categories", "news"], ["/gamma"]),
    (["--engines", "beta"], ["/beta"]),
    (["--engines", "beta", "--categories", "news"], ["/beta", "/gamma"]),
    ([], ["/alpha", "/beta", "/gamma"]),  # general: all three
])
def test_filters_are_understood_by_real_searx(tmp_path, searx, options, engines_asked):
    query = "filters " + (" ".join(options) or "none")
    searx.answer(query, **{name: [hit(f"https://{name}.example/{len(options)}")]
                           for name in ("alpha", "beta", "gamma")})
    answer = search(tmp_path, searx, query, *options)
    assert sorted(r.path for r in searx.asked(query)) == engines_asked
    assert sorted(r["engines"][0] for r in answer["results"]) == [
        "searxng:" + path.strip("/") for path in engines_asked]


# -- tamis check ---------------------------------------------------------------------------

def test_tamis_check_on_a_real_instance(tmp_path, searx):
    searx.answer("check probe", alpha=[hit("https://probe.example/1")],
                 gamma=Reply(status=500))
    result = tamis(["check", "--config", str(config(tmp_path, searx)), "--json",
                    "--no-guard", "--probe", "check probe"])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    report = json.loads(result.stdout)
    [line] = report["lines"]
    assert report["verdict"] == "PASS"
    assert line["reachable"] is True and line["status"] == "ok"
    assert line["json_output"] == "enabled" and line["shape"] == "recognised"
    assert line["unresponsive_engines"] == [{"engine": "gamma", "reason": "HTTP error"}]
    assert line["verdict"] == "warn"
    assert "engine gamma unresponsive: HTTP error" in line["warnings"]


def test_json_output_off_in_settings_still_answers_json_in_searx_1_1(tmp_path, searx):
    """SearXNG answers 403 to format=json when ``json`` is not in ``search.formats`` (tamis
    then says how to enable it: the stand-in tests). Debian's searx 1.1 has no such setting:
    with ``formats: [html]`` it still answers JSON, and tamis must not call it disabled."""
    query = "json output off in settings"
    searx.answer(query, alpha=[hit("https://formats.example/1")])
    with running_searx(tmp_path, searx.engines, formats=["html"]) as url:
        raw = httpx.get(url + "/search", params={"q": query, "format": "json"}, timeout=10)
        assert raw.status_code == 200
        assert raw.headers["content-type"] == "application/json"
        assert [r["url"] for r in raw.json()["results"]] == ["https://formats.example/1"]
        result = tamis(["check", "--config", str(config(tmp_path, url)), "--json",
                        "--no-guard", "--probe", query])
    assert result.exit_code == 0, (result.stdout, result.stderr)
    [line] = json.loads(result.stdout)["lines"]
    assert line["json_output"] == "enabled" and line["problems"] == []
