"""Parked, for-sale and web-server default pages are dropped by title, whatever the intent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from loopback import LoopbackServer, Reply

from tamis.interfaces.cli import cli
from tamis.pipeline.rules import Rules
from tamis.settings import load_config

RULES = Rules(load_config(None).config.policy)


@pytest.mark.parametrize(("host", "title"), [
    ("tina-daunt.com", "Welcome tina-daunt.com - BlueHost.com"),  # the judged dev answer
    ("www.example-shop.net", "example-shop.net is for sale | HugeDomains"),
    ("coolname.io", "coolname.io - This website is for sale! - coolname Resources"),
    ("oldsite.org", "oldsite.org - Registered at Namecheap.com"),
    ("parked.example", "This domain is for sale"),
    ("x.example", "Parked Domain name on Hostinger DNS system"),
    ("y.example", "Account Suspended"),
    ("z.example", "Apache2 Ubuntu Default Page: It works"),
    ("w.example", "Welcome to nginx!"),
])
def test_placeholder_pages_are_dropped_even_when_the_query_names_them(host: str,
                                                                     title: str) -> None:
    query = host.removeprefix("www.").split(".")[0].replace("-", " ")
    intent = RULES.intent(query, [host])
    verdict = RULES.judge(host, "/about/", "", query, intent, title)
    assert verdict.drop == "placeholder_page", (intent, verdict)


@pytest.mark.parametrize(("host", "title"), [
    ("www.python.org", "Welcome to Python.org"),  # a real homepage that welcomes you
    ("news.example.com", "example.org is for sale, its founder says"),  # about another site
    ("blog.example.com", "Is this domain for sale? How to find out who owns it"),
])
def test_pages_that_only_talk_about_domains_are_kept(host: str, title: str) -> None:
    verdict = RULES.judge(host, "/a/page", "", "domain for sale", None, title)
    assert verdict.drop is None, verdict


def test_the_drop_is_in_the_answer_with_its_reason(tmp_path: Path) -> None:
    results = [
        {"url": "https://www.huffpost.com/author/tina-daunt", "title": "Tina Daunt | HuffPost",
         "content": "Tina Daunt, contributor", "engine": "google", "positions": [1]},
        {"url": "http://tina-daunt.com/about/", "title": "Welcome tina-daunt.com - BlueHost.com",
         "content": "Bluehost - Top rated web hosting provider", "engine": "google",
         "positions": [2]},
    ]
    server = LoopbackServer()
    server.route("/search", Reply(json={"query": "", "results": results}))
    config = tmp_path / "tamis.yaml"
    with server:
        config.write_text(f"backends:\n  - name: searxng\n    base_url: {server.url}\n"
                          "cache: {enabled: false}\nstore: {url: 'memory:'}\n")
        out = CliRunner().invoke(cli, ["search", "--config", str(config), "--no-extract",
                                       "--explain", "tina daunt"])
        data = json.loads(out.stdout)
        assert [r["url"] for r in data["results"]] == [results[0]["url"]]
        assert [(d["url"], d["reason"]) for d in data["dropped"]] == [
            ("http://tina-daunt.com/about/", "placeholder_page")]
        # The policy can take the rule away: the page is back (and named by the query).
        config.write_text(config.read_text()
                          + "policy:\n  non_answer:\n    placeholder_titles: []\n")
        out = CliRunner().invoke(cli, ["search", "--config", str(config), "--no-extract",
                                       "tina daunt"])
    assert "http://tina-daunt.com/about/" in [r["url"] for r in json.loads(out.stdout)["results"]]


def test_a_bad_pattern_is_a_config_error_naming_the_key(tmp_path: Path) -> None:
    config = tmp_path / "tamis.yaml"
    config.write_text("policy:\n  non_answer:\n    placeholder_titles: ['^(unclosed']\n")
    out = CliRunner().invoke(cli, ["explain-url", "--config", str(config), "https://a.b/"])
    assert out.exit_code != 0
    assert "error:" in out.output and "placeholder_titles" in out.output
    assert "Traceback" not in out.output


def test_a_pattern_with_a_top_level_alternative_still_finds_it_anywhere() -> None:
    from tamis.pipeline.placeholder import PlaceholderTitles

    titles = PlaceholderTitles([r"^site offline|\bunder maintenance\b", r"^a[|]b$"])
    assert titles.match("Shop - under maintenance", "x.example", "x.example")
    assert titles.match("a|b", "x.example", "x.example") == r"^a[|]b$"
    assert titles.match("Shop - open as usual", "x.example", "x.example") is None
