"""A lone surrogate (``\\ud800``, legal as a JSON escape, not encodable as UTF-8) in any
backend's answer is cleaned where answers enter tamis: the answer is cached, serialised and
printed, and the other lines' answers are kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from loopback import LoopbackServer, Reply

from tamis.backends.ddgs import DDGSAdapter
from tamis.backends.registry import make_adapter
from tamis.policy.schema import LineConfig
from tamis.store.sqlite import SQLiteStore

BAD = "bad \ud800 text"
URL = "https://bad.example/\ud800"

# adapter -> (path, answer, line keys, env)
CASES: dict[str, tuple[str, Any, dict[str, Any]]] = {
    "searxng": ("/search", {"results": [{"title": BAD, "url": URL, "content": BAD,
                                         "engines": ["e\ud800"], "positions": [1]}],
                            "unresponsive_engines": [["x\udfff", BAD]]}, {}),
    "tavily": ("/search", {"results": [{"title": BAD, "url": URL, "content": BAD}]},
               {"api_key_env": "K"}),
    "brave": ("/res/v1/web/search", {"web": {"results": [
        {"title": BAD, "url": URL, "description": BAD, "page_age": BAD}]}},
        {"api_key_env": "K"}),
    "exa": ("/search", {"results": [{"title": BAD, "url": URL, "summary": BAD}]},
            {"api_key_env": "K"}),
    "serper": ("/search", {"organic": [{"title": BAD, "link": URL, "snippet": BAD,
                                        "date": BAD}]}, {"api_key_env": "K"}),
    "firecrawl": ("/v1/search", {"success": True, "data": [
        {"url": URL, "title": BAD, "description": BAD}]}, {"api_key_env": "K"}),
    "generic": ("/api", {"weird\ud800": [1]}, {"search_path": "/api"}),
}


def encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class SurrogateDDGS:
    def __init__(self, timeout: int = 5) -> None:
        pass

    def text(self, query: str, **kwargs: Any) -> Any:
        return [{"title": BAD, "href": URL, "body": BAD}]


@pytest.mark.parametrize("kind", [*CASES, "ddgs"])
def test_every_adapter_survives_a_lone_surrogate(kind: str, server, run,
                                                 tmp_path: Path) -> None:
    server.route("/ok", Reply(json={"results": [{"title": "fine", "url": "https://ok.example/",
                                                 "content": "ok"}]}))
    if kind == "ddgs":
        adapter = make_adapter(LineConfig(name="ddgs"))
        assert isinstance(adapter, DDGSAdapter)
        adapter.factory = SurrogateDDGS
    else:
        path, answer, keys = CASES[kind]
        server.route(path, Reply(json=answer))
        adapter = make_adapter(LineConfig(name="bad", type=kind, base_url=server.url, **keys))
    good = make_adapter(LineConfig(name="good", base_url=server.url, search_path="/ok"))
    store = SQLiteStore(tmp_path / "store.sqlite3")
    try:
        answers = run([adapter, good], "q", env={"K": "k-0123456789"}, store=store,
                      cache_ttl=60)
        again = run([adapter, good], "q", env={"K": "k-0123456789"}, store=store,
                    cache_ttl=60)
    finally:
        store.close()
    assert answers[1].status == "ok" and answers[1].hits[0].url == "https://ok.example/"
    assert answers[0].status in ("ok", "empty"), answers[0].notes
    assert again[0].cached  # the cleaned answer was written to the store and read back
    for answer in answers + again:
        text = answer.model_dump_json()
        assert encodable(text) and "\ud800" not in text and "\udfff" not in text
    if kind != "generic":
        assert answers[0].hits[0].title == "bad \ufffd text"


def test_cli_prints_the_answer_when_one_line_sends_a_surrogate(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.route("/search", Reply(json=CASES["searxng"][1]))
        server.route("/ok", Reply(json={"results": [{"title": "fine", "url":
                                                     "https://ok.example/a", "content": "ok"}]}))
        config = tmp_path / "tamis.yaml"
        config.write_text(f"backends:\n  - name: searxng\n    base_url: {server.url}\n"
                          f"  - name: good\n    base_url: {server.url}\n    search_path: /ok\n"
                          f"store: {{url: '{tmp_path / 's.sqlite3'}'}}\n")
        proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "search", "q",
                               "--no-extract", "--config", str(config)],
                              capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert {r["url"] for r in data["results"]} >= {"https://ok.example/a"}
    assert b"Traceback" not in proc.stderr
