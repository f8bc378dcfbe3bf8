"""Each adapter against a real HTTP server on 127.0.0.1 answering in its provider's shape:
the request it sends (method, path, key header, field names) and the answer it reads."""

from __future__ import annotations

import asyncio
import itertools
import time
from typing import Any, ClassVar

import httpx
import pytest
from loopback import Reply, Seen

from tamis.backends.ddgs import DDGSAdapter
from tamis.backends.registry import make_adapter
from tamis.errors import ConfigError
from tamis.models import SearchRequest
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.policy.schema import LineConfig

KEY = "test-key-0123456789abcdef"


def line(server: Any, **kw: Any) -> LineConfig:
    return LineConfig(base_url=server.url, **kw)


def only(server: Any, path: str) -> Seen:
    seen = server.requests_to(path)
    assert len(seen) == 1, [s.path for s in server.seen]
    return seen[0]


def test_tavily_request_and_answer(server, run):
    server.route("/search", Reply(json={"query": "q", "results": [
        {"title": "One", "url": "https://one.example/a", "content": "first <b>hit</b>",
         "score": 0.9, "published_date": "2026-11-01"},
        {"title": "Two", "url": "https://two.example/b", "content": "second", "score": 0.5},
        {"title": "no url", "content": "skipped"},
    ]}))
    request = SearchRequest(query="agent context", time_range="week",
                            include_domains=["one.example"], exclude_domains=["x.example"])
    [answer] = run([make_adapter(line(server, name="tavily"), max_results=5)], request,
                   env={"TAVILY_API_KEY": KEY})
    seen = only(server, "/search")
    assert seen.method == "POST"
    assert seen.header("authorization") == f"Bearer {KEY}"
    assert seen.json == {"query": "agent context", "max_results": 5, "search_depth": "basic",
                         "topic": "general", "time_range": "week",
                         "include_domains": ["one.example"], "exclude_domains": ["x.example"]}
    assert answer.status == "ok"
    assert [h.url for h in answer.hits] == ["https://one.example/a", "https://two.example/b"]
    assert answer.hits[0].snippet == "first hit"
    assert answer.hits[0].published == "2026-11-01"
    assert answer.hits[1].engines == ["tavily"] and answer.hits[1].positions == [2]
    assert [n.kind for n in answer.notes] == ["skipped_hit"]


def test_brave_request_and_answer(server, run):
    server.route("/res/v1/web/search", Reply(json={"type": "search", "web": {"results": [
        {"title": "Brave one", "url": "https://b.example/1",
         "description": "a <strong>bold</strong> word", "age": "3 days ago",
         "page_age": "2026-11-27T10:00:00"},
        {"title": "Brave two", "url": "https://b.example/2", "description": "plain",
         "age": "1 week ago"},
    ]}}))
    request = SearchRequest(query="rust", time_range="month", language="en-US", pageno=2,
                            safesearch=2)
    [answer] = run([make_adapter(line(server, name="brave"), max_results=30)], request,
                   env={"BRAVE_API_KEY": KEY})
    seen = only(server, "/res/v1/web/search")
    assert seen.method == "GET"
    assert seen.header("x-subscription-token") == KEY
    assert seen.header("authorization") is None
    assert seen.query == {"q": "rust", "count": "20", "offset": "1", "freshness": "pm",
                          "search_lang": "en", "safesearch": "strict"}
    assert [h.title for h in answer.hits] == ["Brave one", "Brave two"]
    assert answer.hits[0].snippet == "a bold word"
    assert answer.hits[0].published == "2026-11-27T10:00:00"
    assert answer.hits[1].published == "1 week ago"


def test_brave_without_web_section_is_empty(server, run):
    server.route("/res/v1/web/search", Reply(json={"type": "search", "query": {}}))
    [answer] = run([make_adapter(line(server, name="brave"))], env={"BRAVE_API_KEY": KEY})
    assert answer.status == "empty"
    assert [n.kind for n in answer.notes] == ["line_empty"]


def test_exa_request_and_answer(server, run):
    server.route("/search", Reply(json={"requestId": "r", "results": [
        {"id": "1", "title": "Summary", "url": "https://e.example/1",
         "publishedDate": "2026-10-01T00:00:00.000Z", "summary": "the summary",
         "text": "long text"},
        {"id": "2", "title": "Highlights", "url": "https://e.example/2",
         "highlights": ["first passage", "second passage"]},
        {"id": "3", "title": "Text", "url": "https://e.example/3", "text": "x " * 1000},
    ]}))
    request = SearchRequest(query="neural", include_domains=["e.example"], time_range="day")
    [answer] = run([make_adapter(line(server, name="exa"), max_results=7, max_chars=100)],
                   request, env={"EXA_API_KEY": KEY})
    seen = only(server, "/search")
    assert seen.method == "POST"
    assert seen.header("x-api-key") == KEY
    body = seen.json
    assert body["query"] == "neural" and body["numResults"] == 7
    assert body["includeDomains"] == ["e.example"]
    assert body["startPublishedDate"].endswith("T00:00:00.000Z")
    assert body["contents"] == {"highlights": {"maxCharacters": 100}}
    assert [h.snippet for h in answer.hits][:2] == ["the summary",
                                                    "first passage … second passage"]
    assert len(answer.hits[2].snippet) <= 100
    assert answer.hits[0].published == "2026-10-01T00:00:00.000Z"


def test_serper_request_and_answer(server, run):
    server.route("/search", Reply(json={"searchParameters": {"q": "x"}, "organic": [
        {"title": "G1", "link": "https://g.example/1", "snippet": "s1", "position": 1,
         "date": "Nov 2, 2026"},
        {"title": "G2", "link": "https://g.example/2", "snippet": "s2", "position": 2},
    ]}))
    request = SearchRequest(query="proxmox", time_range="year", language="de-DE", pageno=3)
    [answer] = run([make_adapter(line(server, name="serper"), max_results=10)], request,
                   env={"SERPER_API_KEY": KEY})
    seen = only(server, "/search")
    assert seen.method == "POST"
    assert seen.header("x-api-key") == KEY
    assert seen.json == {"q": "proxmox", "num": 10, "tbs": "qdr:y", "hl": "de", "gl": "de",
                         "page": 3}
    assert [(h.url, h.positions) for h in answer.hits] == [("https://g.example/1", [1]),
                                                           ("https://g.example/2", [2])]
    assert answer.hits[0].published == "Nov 2, 2026"


def test_firecrawl_v1_hosted_shape_with_key(server, run):
    server.route("/v1/search", Reply(json={"success": True, "data": [
        {"url": "https://f.example/1", "title": "F1", "description": "d1"}]}))
    # A base_url that is not the hosted service sends no key unless the line names one.
    cfg = line(server, name="firecrawl", api_key_env="FIRECRAWL_API_KEY")
    [answer] = run([make_adapter(cfg)], SearchRequest(query="q", time_range="day"),
                   env={"FIRECRAWL_API_KEY": KEY})
    seen = only(server, "/v1/search")
    assert seen.header("authorization") == f"Bearer {KEY}"
    assert seen.json == {"query": "q", "limit": 8, "tbs": "qdr:d"}
    assert [(h.title, h.snippet) for h in answer.hits] == [("F1", "d1")]


def test_firecrawl_v2_shape_self_hosted_sends_no_key(server, run):
    server.route("/v2/search", Reply(json={"success": True, "data": {"web": [
        {"url": "https://f.example/2", "title": "F2", "description": "d2"}]}}))
    cfg = line(server, name="fc-local", type="firecrawl", search_path="/v2/search")
    [answer] = run([make_adapter(cfg)], env={"FIRECRAWL_API_KEY": KEY})
    seen = only(server, "/v2/search")
    assert seen.header("authorization") is None
    assert [h.url for h in answer.hits] == ["https://f.example/2"]


def test_firecrawl_success_false_is_a_failure(server, run):
    server.route("/v1/search", Reply(json={"success": False, "error": "quota"}))
    [answer] = run([make_adapter(line(server, name="fc", type="firecrawl"))])
    assert answer.status == "failed"
    assert "success=false: quota" in answer.notes[0].message


def test_hosted_firecrawl_without_key_is_no_key(run):
    [answer] = run([make_adapter(LineConfig(name="firecrawl"))], env={})
    assert answer.status == "no_key"
    assert "FIRECRAWL_API_KEY is not set" in answer.notes[0].message


@pytest.mark.parametrize(("payload", "expected"), [
    ({"organic": [{"title": "O", "link": "https://o.example/", "snippet": "os"}]},
     ("https://o.example/", "O", "os")),
    ({"data": {"web": [{"title": "W", "url": "https://w.example/", "description": "wd"}]}},
     ("https://w.example/", "W", "wd")),
    ({"results": [{"title": "R", "url": "https://r.example/", "content": "rc"}]},
     ("https://r.example/", "R", "rc")),
])
def test_generic_reads_the_three_shapes(server, run, payload, expected):
    server.route("/api", Reply(json=payload))
    [answer] = run([make_adapter(line(server, name="mine", search_path="/api"))])
    assert answer.status == "ok"
    hit = answer.hits[0]
    assert (hit.url, hit.title, hit.snippet) == expected
    assert hit.engines == ["mine"] and hit.line == "mine"


def test_generic_unknown_shape_is_empty_with_a_note(server, run):
    server.route("/api", Reply(json={"items": [{"href": "https://x.example/"}], "total": 1}))
    [answer] = run([make_adapter(line(server, name="odd", search_path="/api"))])
    assert answer.status == "empty"
    kinds = [n.kind for n in answer.notes]
    assert "unknown_shape" in kinds
    note = next(n for n in answer.notes if n.kind == "unknown_shape")
    assert "items, total" in note.message and note.source == "odd"


def test_generic_get_with_custom_params_and_x_api_key(server, run):
    server.route("/s", Reply(json={"results": []}))
    cfg = line(server, name="g", search_path="s", method="GET", query_param="query",
               count_param="limit", auth_style="x-api-key", api_key_env="G_KEY",
               params={"lang": "en"})
    run([make_adapter(cfg, max_results=4)], "hello", env={"G_KEY": KEY})
    seen = only(server, "/s")
    assert seen.method == "GET"
    assert seen.query == {"query": "hello", "limit": "4", "lang": "en"}
    assert seen.header("x-api-key") == KEY and seen.header("authorization") is None


def test_generic_post_defaults_bearer_and_no_count(server, run):
    server.route("/", Reply(json={"results": []}))
    cfg = line(server, name="g", count_param="", api_key_env="G_KEY")
    run([make_adapter(cfg)], "hello", env={"G_KEY": KEY})
    seen = only(server, "/")
    assert seen.method == "POST" and seen.json == {"q": "hello"}
    assert seen.header("authorization") == f"Bearer {KEY}"


def test_generic_keyless_sends_no_auth_header(server, run):
    server.route("/", Reply(json={"results": []}))
    run([make_adapter(line(server, name="open", auth_style=""))], env={"X": KEY})
    assert only(server, "/").header("authorization") is None


def test_generic_empty_auth_style_with_keys_is_refused():
    with pytest.raises(ConfigError, match=r"'g'.*auth_style is empty"):
        make_adapter(LineConfig(name="g", base_url="http://127.0.0.1:9", auth_style="",
                                api_key_env="G_KEY"))


def test_generic_not_json_and_not_object(server, run):
    server.route("/html", Reply(body=b"<html></html>", content_type="text/html"))
    server.route("/list", Reply(json=[1, 2]))
    server.route("/num", Reply(json=3))
    answers = run([make_adapter(line(server, name="h", search_path="/html")),
                   make_adapter(line(server, name="l", search_path="/list")),
                   make_adapter(line(server, name="n", search_path="/num"))])
    assert [a.status for a in answers] == ["failed", "empty", "failed"]
    assert "text/html, not JSON" in answers[0].notes[0].message
    assert "a bare list" in answers[1].notes[0].message


def test_searxng_instances_by_name_keep_engine_provenance(server, run):
    server.route("/search", Reply(json={"results": [
        {"url": "https://s.example/", "title": "S", "content": "c",
         "engines": ["brave", "bing"], "positions": [1, 3]}],
        "unresponsive_engines": [["google", "timeout"]]}))
    cfg = line(server, name="home", type="searxng")
    [answer] = run([make_adapter(cfg)], SearchRequest(query="q", time_range="day"))
    seen = only(server, "/search")
    assert seen.method == "GET" and seen.query["format"] == "json"
    assert seen.query["time_range"] == "day"
    hit = answer.hits[0]
    assert hit.engines == ["home:brave", "home:bing"] and hit.positions == [1, 3]
    assert any(n.kind == "unresponsive_engine" and n.source == "home:google"
               for n in answer.notes)


def test_every_line_accepts_weight_and_base_url(server, run):
    for name in ("tavily", "brave", "exa", "serper", "firecrawl", "searxng"):
        adapter = make_adapter(LineConfig(name=name, base_url=server.url + "/", weight=2.5))
        assert adapter.endpoint().startswith(server.url + "/")
        assert "//" not in adapter.endpoint().removeprefix("http://")
    server.route("/search", Reply(json={"results": [
        {"title": "T", "url": "https://t.example/", "content": "c"}]}))
    [answer] = run([make_adapter(line(server, name="tavily", weight=2.5))],
                   env={"TAVILY_API_KEY": KEY})
    assert answer.weight == 2.5 and answer.status == "ok"


# -- ddgs: the one backend that cannot run offline; a fake DDGS class stands in -------------
class FakeDDGS:
    calls: ClassVar[list[tuple[str, dict[str, Any]]]] = []
    delay = 0.0
    result: Any = None
    error: Exception | None = None

    def __init__(self, timeout: int = 5) -> None:
        self.timeout = timeout

    def text(self, query: str, **kwargs: Any) -> Any:
        type(self).calls.append((query, kwargs))
        time.sleep(type(self).delay)  # blocking, like the real library
        if type(self).error is not None:
            raise type(self).error
        return type(self).result


@pytest.fixture
def fake_ddgs() -> type[FakeDDGS]:
    FakeDDGS.calls = []
    FakeDDGS.delay = 0.0
    FakeDDGS.error = None
    FakeDDGS.result = [
        {"title": "D1", "href": "https://d.example/1", "body": "b1"},
        {"title": "D2", "href": "https://d.example/2", "body": "b2"},
        {"title": "no href", "body": "x"},
    ]
    return FakeDDGS


def ddgs_adapter(fake: type[FakeDDGS], **kw: Any) -> DDGSAdapter:
    adapter = make_adapter(LineConfig(name="ddgs", **kw))
    assert isinstance(adapter, DDGSAdapter)
    adapter.factory = fake
    return adapter


def test_ddgs_call_and_answer(run, fake_ddgs):
    adapter = ddgs_adapter(fake_ddgs, params={"backend": "duckduckgo"})
    request = SearchRequest(query="python", time_range="week", language="en-GB", safesearch=0)
    [answer] = run([adapter], request)
    assert fake_ddgs.calls == [("python", {"max_results": 8, "timelimit": "w",
                                           "region": "gb-en", "safesearch": "off",
                                           "backend": "duckduckgo"})]
    assert answer.status == "ok"
    assert [(h.url, h.title, h.snippet) for h in answer.hits] == [
        ("https://d.example/1", "D1", "b1"), ("https://d.example/2", "D2", "b2")]
    assert answer.hits[0].engines == ["ddgs"]
    assert [n.kind for n in answer.notes] == ["skipped_hit"]


def test_ddgs_no_results_is_empty_and_errors_fail(run, fake_ddgs):
    from ddgs.exceptions import DDGSException, RatelimitException

    fake_ddgs.error = DDGSException("No results found.")
    [answer] = run([ddgs_adapter(fake_ddgs)])
    assert answer.status == "empty"
    fake_ddgs.error = RatelimitException("202 Ratelimit")
    [answer] = run([ddgs_adapter(fake_ddgs)])
    assert answer.status == "failed"
    assert answer.notes[0].message == "ddgs: RatelimitException: 202 Ratelimit"


def test_ddgs_runs_in_a_thread_and_never_stalls_the_loop(server, run, fake_ddgs):
    """A blocking 300 ms ddgs call and a 300 ms HTTP line finish together, and the event
    loop keeps ticking while ddgs blocks."""
    fake_ddgs.delay = 0.3
    server.route("/search", Reply(json={"results": [
        {"title": "T", "url": "https://t.example/", "content": "c"}]}, delay=0.3))
    adapters = [ddgs_adapter(fake_ddgs), make_adapter(line(server, name="tavily"))]

    ticks: list[float] = []

    async def ticker(stop: asyncio.Event) -> None:
        while not stop.is_set():
            ticks.append(time.perf_counter())
            await asyncio.sleep(0.01)

    async def main() -> list[Any]:
        stop = asyncio.Event()
        tick = asyncio.create_task(ticker(stop))
        async with httpx.AsyncClient() as client:
            answers = await fan_out(SearchRequest(query="q"), adapters, FanoutContext(
                client=client, env={"TAVILY_API_KEY": KEY}))
        stop.set()
        await tick
        return answers

    answers = asyncio.run(main())
    assert [a.status for a in answers] == ["ok", "ok"]
    gaps = [b - a for a, b in itertools.pairwise(ticks)]
    assert len(ticks) >= 15  # ~30 ticks in 300 ms; a blocked loop would tick once
    assert max(gaps) < 0.15
