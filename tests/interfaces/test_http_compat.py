"""The SearXNG- and Tavily-compatible endpoints: the shapes and routes real clients use."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from fake_searxng import FakeSearXNG
from loopback import LoopbackServer, Reply
from serving import Served

from tamis.core import Tamis
from tamis.interfaces.http_app import create_app
from tamis.interfaces.http_shapes import pretty_url

PROXMOX = "proxmox thin pool metadata exhaustion recovery"
# What searx 1.1 (searx/webapp.py, results.py) puts in a JSON answer and in each result.
SEARX_TOP_KEYS = {"query", "number_of_results", "results", "answers", "corrections",
                  "infoboxes", "suggestions", "unresponsive_engines"}
SEARX_RESULT_KEYS = {"url", "title", "content", "engine", "parsed_url", "template", "engines",
                     "positions", "score", "category", "pretty_url"}
SEARX_CONFIG_KEYS = {"categories", "engines", "plugins", "instance_name", "locales",
                     "default_locale", "autocomplete", "safe_search", "default_theme",
                     "version", "brand", "doi_resolvers", "default_doi_resolver"}
PAGE = ("<html><head><title>Thin pools</title></head><body><article><h1>Thin pools</h1>"
        + "".join(f"<p>Step {i}: metadata exhaustion is fixed by extending the metadata"
                  f" volume of pool {i}.</p>" for i in range(20))
        + "</article></body></html>")


@pytest.fixture
def service(tmp_path: Path):
    with LoopbackServer(FakeSearXNG()) as searxng:
        path = tmp_path / "tamis.yaml"
        path.write_text(
            f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
            "cache: {enabled: false}\nstore: {url: 'memory:'}\n"
            "extraction: {allow_private_hosts: ['127.0.0.1']}\n"
            "serve: {max_results: 10}\n")
        with Served(create_app(Tamis(str(path)), close_layer=True)) as served:
            yield served


def test_searxng_answer_has_every_key_searx_gives(service: Served) -> None:
    data = httpx.get(service.url + "/search", params={"q": PROXMOX, "format": "json"}).json()
    assert set(data) == SEARX_TOP_KEYS
    assert data["number_of_results"] == len(data["results"]) > 0
    for result in data["results"]:
        assert set(result) >= SEARX_RESULT_KEYS, SEARX_RESULT_KEYS - set(result)
        assert len(result["parsed_url"]) == 6 and result["parsed_url"][0] == "https"
        assert len(result["engines"]) == len(result["positions"])
        assert result["engine"] in result["engines"]
        assert result["pretty_url"] == pretty_url(result["url"])
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)


def test_searxng_score_is_on_searx_scale_and_tamis_score_has_its_own_key(
        service: Served) -> None:
    """searx scores a result (engines x weight) / position, summed over its positions (1.0
    for one engine's first result); a score is never over the one above it."""
    data = httpx.get(service.url + "/search", params={"q": PROXMOX, "format": "json"}).json()
    above = float("inf")
    for result in data["results"]:
        positions = result["positions"]
        searx = sum(len(positions) / p for p in positions)
        assert result["score"] == round(min(searx, above), 4)
        above = result["score"]
        assert result["tamis_score"] > 100  # tamis's fused score: 1000 / log2(position + 1)
    assert data["results"][0]["score"] <= len(data["results"][0]["positions"]) ** 2


def test_pretty_url_cuts_as_searx_does() -> None:
    long = "https://example.org/" + "a" * 100
    assert pretty_url("https://example.org/x") == "https://example.org/x"
    assert pretty_url(long) == long[:38] + "[...]" + long[-38:]


def test_the_root_answers_a_search_with_q_and_format_json(service: Served) -> None:
    answer = httpx.get(service.url + "/", params={"q": PROXMOX, "format": "json",
                                                  "language": "en"})
    assert answer.status_code == 200 and set(answer.json()) == SEARX_TOP_KEYS
    assert answer.json()["results"][0]["url"].startswith("https://forum.proxmox.com/")
    page = httpx.get(service.url + "/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert httpx.get(service.url + "/", params={"q": PROXMOX}).headers[
        "content-type"].startswith("text/html")


def test_a_searxng_form_post_and_a_tavily_json_post_are_told_apart(service: Served) -> None:
    form = httpx.post(service.url + "/search", data={"q": PROXMOX, "format": "json"})
    assert form.status_code == 200 and set(form.json()) == SEARX_TOP_KEYS
    multipart = httpx.post(service.url + "/search", data={"q": PROXMOX, "format": "json"},
                           files={"unused": ("x.txt", b"x")})
    assert multipart.status_code == 200 and set(multipart.json()) == SEARX_TOP_KEYS
    tavily = httpx.post(service.url + "/search", json={"query": PROXMOX})
    assert tavily.status_code == 200 and "request_id" in tavily.json()
    assert form.json()["results"][0]["url"] == tavily.json()["results"][0]["url"]


def test_minimal_searxng_config(service: Served) -> None:
    config = httpx.get(service.url + "/config").json()
    assert set(config) == SEARX_CONFIG_KEYS
    assert config["categories"] == ["general"]
    assert [e["name"] for e in config["engines"]] == ["searxng"]
    assert config["engines"][0]["enabled"] is True


def test_tavily_max_results_over_the_limit_is_clamped(service: Served) -> None:
    answer = httpx.post(service.url + "/search", json={"query": PROXMOX, "max_results": 60})
    assert answer.status_code == 200
    assert 0 < len(answer.json()["results"]) <= 10
    native = httpx.post(service.url + "/v1/search",
                        json={"query": PROXMOX, "max_results": 60, "extract": False})
    assert native.status_code == 400 and "over the limit of 10" in native.json()["error"]


def test_tavily_extract_reads_each_url(service: Served) -> None:
    with LoopbackServer(lambda req: Reply(body=PAGE, content_type="text/html")) as pages:
        good = pages.url + "/thin-pools"
        answer = httpx.post(service.url + "/extract",
                            json={"urls": [good, "ftp://example.org/x"]}, timeout=30)
        single = httpx.post(service.url + "/extract", json={"urls": good}, timeout=30)
    assert answer.status_code == 200
    data = answer.json()
    assert [r["url"] for r in data["results"]] == [good]
    assert "metadata exhaustion" in data["results"][0]["raw_content"]
    assert data["failed_results"][0]["url"] == "ftp://example.org/x"
    assert data["failed_results"][0]["error"].startswith("failed:UnsupportedScheme")
    assert data["request_id"] and data["response_time"] >= 0
    assert [r["url"] for r in single.json()["results"]] == [good]
    none = httpx.post(service.url + "/extract", json={"urls": []})
    assert none.status_code == 400 and "urls" in none.json()["error"]
    many = httpx.post(service.url + "/extract", json={"urls": [good] * 21})
    assert many.status_code == 400 and "at most 20" in many.json()["error"]


def test_bad_searxng_parameters_are_400(service: Served) -> None:
    for params in ({"q": PROXMOX, "pageno": "two"}, {"q": PROXMOX, "time_range": "decade"},
                   {"q": PROXMOX, "format": "rss"}, {"q": ""}):
        answer = httpx.get(service.url + "/search", params=params)
        assert answer.status_code == 400, params
        assert answer.json()["error"]
