"""The Firecrawl provider against a fake Firecrawl service on loopback."""

from __future__ import annotations

import json

from extract_support import PageServer, json_body, result, run

from tamis.extract import extract_results, get_page
from tamis.policy.schema import ExtractionConfig, FirecrawlExtraction

KEY = "fc-test-0123456789abcdef"
TARGET = "http://127.0.0.1:1/article"  # never fetched by tamis: Firecrawl fetches it


def firecrawl_config(server: PageServer, prefix: str, key_env: str | None) -> ExtractionConfig:
    return ExtractionConfig(
        provider="firecrawl", allow_private_hosts=["127.0.0.1"],
        firecrawl=FirecrawlExtraction(base_url=server.url(prefix), api_key_env=key_env))


def test_scrape_request_and_answer(server: PageServer) -> None:
    seen: list[dict] = []

    def scrape(body: bytes, headers: dict[str, str]):
        seen.append({"body": json.loads(body), "auth": headers.get("authorization")})
        return 200, {"Content-Type": "application/json"}, json_body({
            "success": True,
            "data": {"markdown": "# Title\n\nThe page text from Firecrawl.\n\n\n\nMore.",
                     "metadata": {"title": "Scraped page", "sourceURL": TARGET,
                                  "statusCode": 200}}})

    server.add("/fc/v1/scrape", post=scrape)
    config = firecrawl_config(server, "/fc", "FIRECRAWL_API_KEY")
    page = run(lambda client: get_page(TARGET, config=config, client=client,
                                       env={"FIRECRAWL_API_KEY": KEY}))
    assert page.status == "ok" and page.title == "Scraped page"
    assert page.text == "# Title\n\nThe page text from Firecrawl.\n\nMore."
    body = seen[-1]["body"]
    assert body["url"] == TARGET and body["formats"] == ["markdown"]
    assert body["onlyMainContent"] is True
    assert seen[-1]["auth"] == f"Bearer {KEY}"
    # Self-hosted without a key: no Authorization header at all.
    run(lambda client: get_page(TARGET, config=firecrawl_config(server, "/fc", None),
                                client=client, env={}))
    assert seen[-1]["auth"] is None


def test_errors_never_show_the_key(server: PageServer) -> None:
    def refuse(body: bytes, headers: dict[str, str]):
        return 401, {"Content-Type": "application/json"}, json_body(
            {"success": False, "error": f"Unauthorized: invalid token {KEY}"})

    server.add("/fc-401/v1/scrape", post=refuse)
    config = firecrawl_config(server, "/fc-401", "FIRECRAWL_API_KEY")
    out, summary = run(lambda client: extract_results(
        [result(TARGET, 1)], "q", config, client=client, env={"FIRECRAWL_API_KEY": KEY}))
    assert out[0].extraction == "failed:FirecrawlHTTP401"
    assert KEY not in (out[0].extraction_detail or "") and "***" in (out[0].extraction_detail or "")
    assert summary.provider == "firecrawl" and summary.failures == 1


def test_page_status_and_walls_reported_by_firecrawl(server: PageServer) -> None:
    answers = {
        "/fc-404": {"success": True, "data": {"markdown": "Not here",
                                              "metadata": {"statusCode": 404}}},
        "/fc-wall": {"success": True, "data": {"markdown": "Checking...",
                                               "metadata": {"title": "Just a moment...",
                                                            "statusCode": 403}}},
        "/fc-fail": {"success": False, "error": "scrape timed out"},
    }
    expected = {"/fc-404": "failed:HTTP404", "/fc-wall": "blocked", "/fc-fail": "failed:Firecrawl"}
    for prefix, answer in answers.items():
        server.add(f"{prefix}/v1/scrape",
                   post=lambda b, h, a=answer: (200, {"Content-Type": "application/json"},
                                                json_body(a)))
        config = firecrawl_config(server, prefix, None)
        page = run(lambda client, c=config: get_page(TARGET, config=c, client=client, env={}))
        assert page.status == expected[prefix], (prefix, page)


def test_private_targets_are_refused_before_asking_firecrawl(server: PageServer) -> None:
    server.add("/fc-private/v1/scrape", post=lambda b, h: (500, {}, b""))
    config = firecrawl_config(server, "/fc-private", None)
    config.allow_private_hosts = []
    page = run(lambda client: get_page("http://10.0.0.8/admin", config=config, client=client,
                                       env={}))
    assert page.status == "failed:PrivateAddress"
    assert not server.hits_for("/fc-private/v1/scrape")
