"""One-time set-up a fresh process pays for a search: the policy compiled only as far as the
answer needs (issue 13: a CLI search is one process per query)."""

from __future__ import annotations

import subprocess
import sys

from tamis.pipeline.placeholder import PlaceholderTitles
from tamis.pipeline.rules import Rules
from tamis.settings import load_config


def test_a_pattern_in_two_source_types_is_the_first_types() -> None:
    policy = load_config(None, overrides={"policy": {"source_types": {
        "qa": ["/answers/"], "discussion": ["/answers/"]}}}).config.policy
    rules = Rules(policy)
    facts = rules.host_facts("example.org")
    assert rules.source_type(facts, ["answers", "x"], "", False, None) == "qa"


def test_placeholder_titles_name_the_pattern_and_the_sites_own_domain() -> None:
    titles = PlaceholderTitles(["^{domain} is for sale\\b", "^account suspended$", "^x*$"])
    assert titles.match("Account  Suspended", "a.com", "a.com") == "^account suspended$"
    assert titles.match("a.com is for sale now", "a.com", "a.com") == "^{domain} is for sale\\b"
    assert titles.match("b.com is for sale now", "a.com", "a.com") is None  # another site
    assert titles.match("A guide to for sale signs", "a.com", "a.com") is None


def test_a_search_without_lists_imports_no_list_code() -> None:
    code = ("import sys, tamis.core, tamis.pipeline.lists\n"
            "print('tamis.policy.lists' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
