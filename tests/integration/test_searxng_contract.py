"""The contract of tamis's SearXNG-compatible endpoint, against the real thing.

The same query goes to a real searx (conftest.py) and to tamis's HTTP service (the app
``tamis serve`` runs, its one line being that searx): the answers must have the same
top-level keys and, per result, the same keys with the same JSON types. tamis may add keys,
never drop one. Clients that read searx answers (LangChain's ``SearxSearchWrapper``, the
MCP server mcp-searxng) read both in the same run.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import warnings
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from loopback import Reply
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from real_searx import RealSearx, hit
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app

pytestmark = pytest.mark.needs_program

QUERY = "contract query"
SHARED = "https://shared.example/contract"


@pytest.fixture(scope="module")
def tamis_url(searx: RealSearx, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    config = tmp_path_factory.mktemp("contract") / "tamis.yaml"
    config.write_text("backends:\n"
                      f"  - name: searxng\n    base_url: {searx.url}\n"
                      "cache: {enabled: false}\n"
                      "store: {url: 'memory:'}\n")
    with Served(create_app(Tamis(str(config)), close_layer=True)) as served:
        yield served.url


@pytest.fixture(scope="module")
def answered(searx: RealSearx) -> RealSearx:
    """What the engines say to QUERY: a page two engines return (alpha first, at 1; beta
    later, at 2), one engine failing."""
    searx.answer(QUERY, alpha=[hit(SHARED, "Shared page", "both engines have it"),
                               hit("https://alpha.example/only", "Alpha only", "alpha")],
                 beta=Reply(json={"results": [hit("https://beta.example/first", "Beta"),
                                              hit(SHARED, "Shared page", "both")]}, delay=0.2),
                 gamma=Reply(status=500))
    return searx


def kind(value: Any) -> str:
    """The JSON type of a value; for arrays the types of their items too."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array[" + ",".join(sorted({kind(v) for v in value})) + "]"
    return "object"


def get_json(url: str, path: str, **params: Any) -> dict[str, Any]:
    response = httpx.get(url + path, params={"q": QUERY, "format": "json", **params},
                         timeout=30, follow_redirects=True)
    assert response.status_code == 200, (url + path, response.status_code, response.text[:300])
    assert response.headers["content-type"].startswith("application/json"), response.text[:300]
    return response.json()


def assert_same_contract(real: dict[str, Any], ours: dict[str, Any]) -> None:
    missing = sorted(set(real) - set(ours))
    assert not missing, f"tamis drops top-level keys searx sends: {missing}"
    for key in real:
        if real[key] != []:  # an empty array says nothing of its items' type
            assert kind(ours[key]) == kind(real[key]), (key, real[key], ours[key])
    assert real["results"] and ours["results"]
    real_by_url = {r["url"]: r for r in real["results"]}
    ours_by_url = {r["url"]: r for r in ours["results"]}
    assert set(ours_by_url) == set(real_by_url)
    for url, theirs in real_by_url.items():
        mine = ours_by_url[url]
        dropped = sorted(set(theirs) - set(mine))
        assert not dropped, f"tamis drops result keys searx sends: {dropped} ({url})"
        wrong = {k: (kind(theirs[k]), kind(mine[k])) for k in theirs
                 if kind(mine[k]) != kind(theirs[k])}
        assert not wrong, f"result keys of another JSON type (searx, tamis): {wrong} ({url})"
        assert sorted(mine["engines"]) == sorted(theirs["engines"])
        assert sorted(mine["positions"]) == sorted(theirs["positions"])
        # read as searx means it: ``engine`` (the first to answer) has ``positions[0]``
        assert mine["engine"] == theirs["engine"]
        assert mine["positions"][0] == theirs["positions"][0]
        # searx's own scale: tamis keeps searx's order here, so searx's very scores
        assert mine["score"] == pytest.approx(theirs["score"], abs=1e-4), url
    assert sorted(map(tuple, ours["unresponsive_engines"])) == sorted(
        map(tuple, real["unresponsive_engines"])) == [("gamma", "HTTP error")]


def test_search_endpoint_answers_like_real_searx(answered, tamis_url):
    real = get_json(answered.url, "/search")
    ours = get_json(tamis_url, "/search")
    assert real["results"][0]["url"] == SHARED and ours["results"][0]["url"] == SHARED
    assert real["results"][0]["positions"] == [1, 2]
    assert_same_contract(real, ours)


def test_root_with_q_answers_like_real_searx(answered, tamis_url):
    """searx answers ``GET /?q=...`` (a redirect to /search); clients that are given the bare
    instance URL (LangChain's searx_host) rely on it."""
    real = get_json(answered.url, "/")
    ours = get_json(tamis_url, "/")
    assert_same_contract(real, ours)


# -- a client that reads searx answers -----------------------------------------------------

def searx_wrapper() -> Any:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # langchain-community says it is being sunset
            from langchain_community.utilities.searx_search import SearxSearchWrapper
    except ImportError:
        message = ("langchain-community is not installed (pip install -e '.[dev]'); the"
                   " SearxSearchWrapper contract test needs it")
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {message}", pytrace=False)
        pytest.skip(message)
    return SearxSearchWrapper


@pytest.mark.parametrize("path", ["/search", ""])
def test_langchain_searx_wrapper_reads_tamis_as_it_reads_searx(answered, tamis_url, path):
    wrapper = searx_wrapper()
    read: dict[str, Any] = {}
    for name, base in (("searx", answered.url), ("tamis", tamis_url)):
        client = wrapper(searx_host=base + path, k=5)
        read[name] = {
            "results": client.results(QUERY, num_results=5),
            "run": client.run(QUERY),
        }
    for name in read:
        rows = read[name]["results"]
        assert {r["link"] for r in rows} == {SHARED, "https://alpha.example/only",
                                             "https://beta.example/first"}, name
        for row in rows:
            assert set(row) >= {"snippet", "title", "link", "engines", "category"}
            assert isinstance(row["engines"], list) and row["category"] == "general"
        assert "both" in read[name]["run"], (name, read[name]["run"])
    by_link = {name: {r["link"]: r for r in read[name]["results"]} for name in read}
    for link, row in by_link["searx"].items():
        ours = by_link["tamis"][link]
        assert ours["title"] == row["title"]
        assert sorted(ours["engines"]) == sorted(row["engines"])



def mcp_searxng() -> str:
    program = shutil.which("mcp-searxng")
    if program is None:
        message = ("mcp-searxng is not installed (npm install -g mcp-searxng@2.4.0); the"
                   " MCP client contract test needs it")
        if os.environ.get("CI"):
            pytest.fail(f"CI is set and {message}", pytrace=False)
        pytest.skip(message)
    return program


async def mcp_search(program: str, searxng_url: str, query: str) -> str:
    """Ask mcp-searxng (an MCP server over stdio, pointed at ``searxng_url``) to search."""
    params = StdioServerParameters(command=program, args=[], env={
        "SEARXNG_URL": searxng_url, "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", "/tmp")})
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        result = await session.call_tool("searxng_web_search", {"query": query})
    assert not result.is_error, result.content
    return "\n".join(getattr(c, "text", "") for c in result.content)


def mcp_rows(text: str) -> dict[str, dict[str, str]]:
    """mcp-searxng's text answer: one ``Name: value`` block per result, by URL."""
    rows = {}
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        rows[fields.get("URL", "")] = fields
    return rows


def test_mcp_searxng_reads_tamis_as_it_reads_searx(answered, tamis_url):
    program = mcp_searxng()
    read = {name: mcp_rows(asyncio.run(mcp_search(program, url, QUERY)))
            for name, url in (("searx", answered.url), ("tamis", tamis_url))}
    assert set(read["searx"]) == {SHARED, "https://alpha.example/only",
                                  "https://beta.example/first"}
    assert set(read["tamis"]) == set(read["searx"])
    for url, theirs in read["searx"].items():
        ours = read["tamis"][url]
        assert set(ours) >= set(theirs), (url, ours, theirs)
        for name in ("Title", "Description", "Category"):
            assert ours[name] == theirs[name], (url, name)
        assert sorted(ours["Engines"].split(", ")) == sorted(theirs["Engines"].split(", "))


@pytest.mark.parametrize("params", [
    {"categories": "news"}, {"engines": "beta"}, {"time_range": "day"}, {"pageno": "2"},
    {"engines": "beta", "categories": "news"},
], ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()))
def test_parameters_reach_searx_through_tamis_as_sent_to_searx(searx, tamis_url, params):
    query = "contract parameters " + " ".join(f"{k} {v}" for k, v in params.items())
    searx.answer(query, **{name: (lambda r, n=name: Reply(json={"results": [
        hit(f"https://{n}.example/p{r.arg('p') or 1}")]})) for name in ("alpha", "beta", "gamma")})
    answers = {}
    for name, url in (("searx", searx.url), ("tamis", tamis_url)):
        before = len(searx.asked(query))
        response = httpx.get(url + "/search", params={"q": query, "format": "json", **params},
                             timeout=30)
        assert response.status_code == 200, (name, response.text[:300])
        asked = searx.asked(query)[before:]
        answers[name] = ({r["url"] for r in response.json()["results"]},
                         sorted((r.path, r.arg("p")) for r in asked))
    assert answers["tamis"] == answers["searx"]
    assert answers["searx"][0]  # searx found something for these parameters


@pytest.mark.parametrize("params", [
    {"q": "x", "time_range": "fortnight"}, {"q": "x", "pageno": "0"}, {},
], ids=["bad-time_range", "pageno-0", "no-q"])
def test_refused_requests_answer_like_searx(searx, tamis_url, params):
    """searx refuses a bad parameter with 400 and ``{"error": "..."}``; so does tamis."""
    for url in (searx.url, tamis_url):
        response = httpx.get(url + "/search", params={"format": "json", **params}, timeout=30)
        assert response.status_code == 400, (url, response.text[:300])
        assert response.headers["content-type"].startswith("application/json")
        error = response.json()["error"]
        assert isinstance(error, str) and error
