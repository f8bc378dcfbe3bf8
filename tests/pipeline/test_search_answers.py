"""Whole searches over a SearXNG stand-in on 127.0.0.1: the intent in the answer, the note
when every result was a search page, queries that start with '-', wrappers as policy data.

The answers are small pieces of real archived engine answers (judged dev set)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from loopback import LoopbackServer, Reply

from tamis.interfaces.cli import cli
from tamis.settings import load_config

POLICY = load_config(None).config.policy


def hit(url: str, title: str, position: int, content: str = "") -> dict:
    return {"url": url, "title": title, "content": content, "engine": "google",
            "engines": ["google"], "positions": [position]}


def serve(results: list[dict]) -> LoopbackServer:
    server = LoopbackServer()
    server.route("/search", Reply(json={"query": "", "results": results}))
    return server


def search(tmp_path: Path, server: LoopbackServer, *args: str, extra: str = "") -> dict:
    config = tmp_path / "tamis.yaml"
    config.write_text(f"backends:\n  - name: searxng\n    base_url: {server.url}\n"
                      "cache: {enabled: false}\nstore: {url: 'memory:'}\n" + extra)
    result = CliRunner().invoke(cli, ["search", "--config", str(config), "--no-extract", *args])
    assert result.stdout.startswith("{"), result.output
    return json.loads(result.stdout)


HOLA = [
    hit("https://www.holagames.com/", "Hola Games", 1, "Hola Games, free online games"),
    hit("https://play.google.com/store/apps/details?id=com.holaverse.holagames&hl=en_US",
        "Hola Games - Apps on Google Play", 2, "Hola Games: play free games"),
    hit("https://www.youtube.com/c/HolaGames", "Hola Games - YouTube", 3, "Hola Games videos"),
]


def test_the_answer_names_the_intent_and_keeps_the_app_page_in_sight(tmp_path: Path) -> None:
    with serve(HOLA) as server:
        data = search(tmp_path, server, "--explain", "Hola Games")
    assert data["query_intent"] == {"kind": "navigational",
                                    "reason": "names site holagames.com"}
    urls = [r["url"] for r in data["results"]]
    assert urls[0] == "https://www.holagames.com/"
    store = next(r for r in data["results"] if "play.google.com" in r["url"])
    assert store["url"] == HOLA[1]["url"]  # byte for byte: the engine's URL
    # a store page (page kind "shop") moves down a bounded number of places, never out
    assert store["explain"]["places"]["kind"] == POLICY.ranking.kind_places["shop"]


def test_every_result_a_search_page_is_returned_as_a_last_resort(tmp_path: Path) -> None:
    pages = [hit(f"https://www.qwant.com/?l=fr&t=videos&q=guerre+froide&o=0%3A{i}",
                 "guerre froide", i) for i in range(1, 5)]
    ad = hit("https://www.bing.com/aclick?ld=e8xG5&u=aHR0cHMlM2E", "Ad", 5)
    with serve([*pages, ad]) as server:
        data = search(tmp_path, server, "--explain", "guerre froide")
    assert [r["url"] for r in data["results"]] == [p["url"] for p in pages]  # engine order
    assert {r["explain"]["kept_by"] for r in data["results"]} == {
        "last resort: search_or_shopping_query"}
    messages = [n["message"] for n in data["notes"] if n["source"] == "tamis"]
    assert any(m.startswith("every result (4) was a search-engine page: returned")
               for m in messages)
    assert [d["reason"] for d in data["dropped"]] == ["ad_click"]  # an ad is never returned


def test_every_result_a_search_page_is_dropped_when_the_policy_says_so(tmp_path: Path) -> None:
    pages = [hit(f"https://www.qwant.com/?l=fr&t=videos&q=guerre+froide&o=0%3A{i}",
                 "guerre froide", i) for i in range(1, 5)]
    with serve(pages) as server:
        data = search(tmp_path, server, "--explain", "guerre froide",
                      extra="policy: {non_answer: {search_pages_last_resort: false}}\n")
    assert data["status"] == "no_results" and data["results"] == []
    messages = [n["message"] for n in data["notes"] if n["source"] == "tamis"]
    assert any(m.startswith("every result (4) was a search-engine page") for m in messages)
    assert {d["reason"] for d in data["dropped"]} == {"search_or_shopping_query"}


def test_a_search_page_among_answers_is_still_dropped(tmp_path: Path) -> None:
    results = [hit("https://www.qwant.com/?t=videos&q=hola+games&o=0%3Ax1", "Hola", 1),
               *HOLA[:1]]
    with serve(results) as server:
        data = search(tmp_path, server, "--explain", "Hola Games")
    assert [r["url"] for r in data["results"]] == [HOLA[0]["url"]]
    assert [d["reason"] for d in data["dropped"]] == ["search_or_shopping_query"]


def test_a_query_starting_with_a_dash_is_a_query(tmp_path: Path) -> None:
    with serve(HOLA) as server:
        data = search(tmp_path, server, "--", "-site:x.org hola games")
        asked = [r.query.get("q") for r in server.seen]
    assert data["query"] == "-site:x.org hola games"
    assert asked == ["-site:x.org hola games"]


def test_ad_clicks_are_dropped_with_their_reason(tmp_path: Path) -> None:
    results = [hit("https://www.bing.com/aclick?ld=e8xG5&u=aHR0cHMlM2E", "Ad", 1),
               *HOLA[:1]]
    with serve(results) as server:
        data = search(tmp_path, server, "--explain", "Hola Games")
    assert [d["reason"] for d in data["dropped"]] == ["ad_click"]


def test_the_wrapper_list_is_policy_data(tmp_path: Path) -> None:
    # '/hop' is not named like a redirect endpoint (normalise.redirectors): only the list
    # can say this link is a wrapper
    results = [hit("https://go.example/hop?to=https%3A%2F%2Fwww.holagames.com%2Fabout",
                   "About Hola Games", 1)]
    extra = ("policy:\n  normalise:\n    wrappers:\n"
             "      - {host: go.example, paths: [/hop], param: [to]}\n")
    with serve(results) as server:
        data = search(tmp_path, server, "Hola Games", extra=extra)
        plain = search(tmp_path, server, "Hola Games")
    assert data["results"][0]["url"] == "https://www.holagames.com/about"
    assert plain["results"][0]["url"].startswith("https://go.example/hop")


def test_a_wrapper_without_a_target_is_a_config_error(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("policy:\n  normalise:\n    wrappers:\n      - {host: go.example}\n")
    result = CliRunner().invoke(cli, ["explain-url", "--config", str(config), "https://a.b/"])
    assert result.exit_code != 0
    assert "error:" in result.output and "go.example" in result.output
    assert "Traceback" not in result.output
