"""What the adapters declare, and the rules every adapter now shares: request values win over
a line's ``params``, one injected environment, ``replay`` as another name of ``recorded``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import pytest
from loopback import Reply

from tamis.backends.base import AUTH_HEADERS, Adapter, ZeroConfig
from tamis.backends.recorded import RECORDING_FORMAT, Recorded, query_slug
from tamis.backends.registry import (
    adapter_classes,
    adapters,
    check_declaration,
    make_adapter,
    zero_config_classes,
)
from tamis.models import SearchRequest
from tamis.policy.schema import LineConfig

KEY = "test-key-0123456789abcdef"


def test_every_adapter_is_found_by_scanning_the_package() -> None:
    assert {cls.type for cls in adapter_classes()} == {
        "brave", "ddgs", "exa", "firecrawl", "generic", "recorded", "searxng", "serper",
        "tavily"}
    assert adapters()["replay"] is Recorded is adapters()["recorded"]
    assert [cls.type for cls in zero_config_classes()] == [
        "searxng", "tavily", "brave", "exa", "serper", "firecrawl", "ddgs"]


@pytest.mark.parametrize("field,value,message", [
    ("auth_style", "cookie", "auth_style 'cookie' is not one of"),
    ("options", ("no_such_key",), "options ['no_such_key'] are not line keys"),
    ("options", ("base_url",), "options repeat keys every line has"),
    ("zero_config", ZeroConfig(key_env="lower-case"), "'lower-case' is not an environment"),
])
def test_a_declaration_tamis_could_not_use_is_refused(field: str, value: Any,
                                                      message: str) -> None:
    bad = type("Bad", (Adapter,), {"type": "bad", field: value, "__module__": __name__})
    with pytest.raises(TypeError, match=re.escape(message)):
        check_declaration(bad)


def test_the_schema_accepts_every_auth_style_an_adapter_can_send(server, run) -> None:
    assert "x-subscription-token" in AUTH_HEADERS
    server.route("/s", Reply(json={"results": [{"url": "https://a.example/", "title": "A"}]}))
    cfg = LineConfig(name="g", base_url=server.url, search_path="/s",
                     auth_style="x-subscription-token", api_key_env="G_KEY")
    [answer] = run([make_adapter(cfg)], env={"G_KEY": KEY})
    assert answer.status == "ok"
    assert server.seen[0].header("x-subscription-token") == KEY


# One rule for params: they add fields and change an adapter's defaults, never a request value.
CASES: list[tuple[str, str, dict[str, Any], dict[str, Any]]] = [
    ("tavily", "/search", {"query": "params", "max_results": 99, "search_depth": "advanced"},
     {"query": "q", "max_results": 8, "search_depth": "advanced", "topic": "general"}),
    ("exa", "/search", {"query": "params", "numResults": 99, "type": "auto"},
     {"query": "q", "numResults": 8, "type": "auto"}),
    ("serper", "/search", {"q": "params", "num": 99, "gl": "de"},
     {"q": "q", "num": 8, "gl": "de"}),
    ("firecrawl", "/v1/search", {"query": "params", "limit": 99, "lang": "de"},
     {"query": "q", "limit": 8, "lang": "de"}),
]


@pytest.mark.parametrize("kind,path,params,sent", CASES)
def test_params_never_override_what_the_request_sets(server, run, kind: str, path: str,
                                                     params: dict[str, Any],
                                                     sent: dict[str, Any]) -> None:
    server.route(path, Reply(json={}))
    cfg = LineConfig(name=kind, base_url=server.url, params=params, api_key_env="K")
    run([make_adapter(cfg)], "q", env={"K": KEY})
    body = server.seen[0].json
    assert {name: body[name] for name in sent} == sent


def test_ddgs_params_never_override_the_request() -> None:
    adapter = make_adapter(LineConfig(name="ddgs", params={"region": "de-de", "backend": "x",
                                                            "safesearch": "on"}))
    asked = adapter.call_args(SearchRequest(query="q", language="en-US", safesearch=0))
    assert (asked["region"], asked["safesearch"], asked["backend"]) == ("us-en", "off", "x")
    alone = adapter.call_args(SearchRequest(query="q"))
    assert (alone["region"], alone["safesearch"]) == ("de-de", "on")


class _Env(dict[str, str]):
    """An environment that records what was read from it."""

    read: ClassVar[list[str]] = []

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.read.append(key)
        return super().get(key, default)


def test_searxng_reads_the_injected_environment_not_the_process_one(server, run,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("SEARXNG_URL", "http://127.0.0.1:9")  # never asked
    server.route("/search", Reply(json={"results": [{"url": "https://a.example/",
                                                     "title": "A"}]}))
    env = _Env(SEARXNG_URL=server.url)
    adapter = make_adapter(LineConfig(name="searxng"), env=env)
    assert adapter.endpoint() == server.url + "/search" and "SEARXNG_URL" in env.read
    [answer] = run([adapter])
    assert answer.status == "ok" and len(server.seen) == 1


def write_recording(folder: Path, query: str) -> None:
    answer = {"line": "web", "order": 0, "status": "ok", "seconds": 0.1, "notes": [], "hits": [
        {"url": "https://a.example/", "title": "A", "snippet": "", "line": "web",
         "engines": ["web"], "positions": [1]}]}
    (folder / f"{query_slug(query)}.json").write_text(json.dumps(
        {"format": RECORDING_FORMAT, "query": query, "lines": [
            {"line": "web", "type": "tavily", "answer": answer, "payload": None}]}))


def test_replay_is_the_recorded_adapter_under_its_older_name(tmp_path: Path, run) -> None:
    write_recording(tmp_path, "thin pool")
    adapter = make_adapter(LineConfig(name="web", type="replay", path=str(tmp_path)))
    assert isinstance(adapter, Recorded)
    [answer] = run([adapter], "thin pool")
    assert answer.status == "ok", answer.notes
    assert [h.url for h in answer.hits] == ["https://a.example/"]
    [missing] = run([adapter], "no such query")  # fails the line; never "no results"
    assert missing.status == "failed"
    assert "no recording for this query (no-such-query.json)" in missing.notes[0].message
    assert adapter.config_problems({}) == []
    unnamed = make_adapter(LineConfig(name="web", type="replay"))
    assert unnamed.config_problems({}) == [
        ("path", "missing: a replay line reads the folder of recordings named here")]
