"""`tamis explain-url`: the rule proof of mission.md section 5, as a command."""

from __future__ import annotations

import base64
import json

import pytest
from click.testing import CliRunner

from tamis.interfaces.cli import cli


def explain(url: str, query: str = "") -> dict:
    args = ["explain-url", url, "--json"] + (["--query", query] if query else [])
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(("url", "action", "reason"), [
    ("https://docs.digitalocean.com/products/inference/how-to/manage-agent-context/",
     "KEEP", None),
    # a shop and a dictionary answer no technical question (no query: read as one)
    ("https://www.bestbuy.com/site/computer-cards-components/agent-management-software/"
     "pcmcat1700000001.c", "DROP", "page_kind:shop"),
    ("https://www.merriam-webster.com/dictionary/context", "DROP", "page_kind:dictionary"),
    ("https://www.mindstudio.ai/", "DEMOTE", "demote_domains:mindstudio.ai"),
    # a bare homepage is a page kind moved kind_places.homepage places (0 by default: the
    # judged answers say a homepage is as often the answer as any other result there)
    ("https://example.com", "KEEP", None),
    ("https://www.proxmox.com/", "PREFER", "prefer_domains:proxmox.com"),
    ("https://github.com/jthornber/thin-provisioning-tools", "PREFER",
     "prefer_domains:github.com"),
    ("https://medium.com/@x/post-123", "DEMOTE", "demote_domains:medium.com"),
])
def test_rule_proof(url: str, action: str, reason: str | None) -> None:
    verdict = explain(url)
    assert (verdict["action"], verdict["reason"]) == (action, reason)


def test_text_output_is_one_line() -> None:
    result = CliRunner().invoke(cli, ["explain-url", "https://www.bestbuy.com/site/x"])
    assert result.stdout.strip().startswith("DROP (page_kind:shop)")
    assert result.stdout.count("\n") == 1


def test_shop_segment_below_a_locale_is_an_article() -> None:
    verdict = explain("https://www.hp.com/us-en/shop/tech-takes/what-is-amoled-display")
    assert verdict["action"] == "KEEP"


def test_a_page_carrying_s_is_not_a_search_page() -> None:
    assert explain("https://example.org/blog/post?s=summer")["action"] == "KEEP"
    assert explain("https://example.org/?s=summer")["reason"] == "search_or_shopping_query"
    assert explain("https://example.org/docs/search?q=x")["reason"] == \
        "search_or_shopping_query"
    assert explain("https://shop.example/item?add-to-cart=42")["reason"] == \
        "search_or_shopping_query"


def test_homepage_with_a_query_string_is_a_page() -> None:
    assert explain("https://site.example/?k=x")["action"] == "KEEP"


@pytest.mark.parametrize(("url", "query"), [
    ("https://www.proxmox.com/", "proxmox"),
    ("https://www.croteam.com/", "croteam"),
    ("https://thecureforboredom.com/", "cure for boredom"),
])
def test_a_navigational_homepage_is_kept_for_a_query_naming_the_site(url: str,
                                                                     query: str) -> None:
    assert explain(url, query)["action"] in {"KEEP", "PREFER"}


def test_a_topic_query_containing_a_brand_is_not_navigational() -> None:
    verdict = explain("https://www.croteam.com/", "croteam serious sam engine bug report")
    assert verdict["query_intent"]["kind"] == "informational"
    assert verdict["page_kind"] == "homepage" and verdict["kept_by"] is None


def _bing(target: str) -> str:
    code = base64.urlsafe_b64encode(target.encode()).decode().rstrip("=")
    return f"https://www.bing.com/ck/a?!&&p=abc123&u=a1{code}&ntb=1"


@pytest.mark.parametrize("wrapped", [
    "https://www.google.com/url?q=https://serverfault.com/questions/1/x&sa=U&ved=abc",
    _bing("https://serverfault.com/questions/1/x"),
    "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fserverfault.com%2Fquestions%2F1%2Fx&rut=f",
    "https://r.search.yahoo.com/_ylt=AwrX;_ylu=Y29sbwM-/RV=2/RE=1/RO=10/"
    "RU=https%3a%2f%2fserverfault.com%2fquestions%2f1%2fx/RK=2/RS=abc-",
])
def test_redirect_wrappers_are_unwrapped_not_dropped(wrapped: str) -> None:
    verdict = explain(wrapped)
    assert verdict["url"] == "https://serverfault.com/questions/1/x"
    assert verdict["action"] == "PREFER"
    assert verdict["unwrapped_from"] == wrapped


def test_invalid_url_is_reported_not_a_crash() -> None:
    assert explain("javascript:alert(1)")["reason"].startswith("invalid_url")
