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


def test_placeholder_titles_tried_against_the_patterns_whose_words_they_hold() -> None:
    titles = PlaceholderTitles(["^{domain} is for sale\\b", "^account suspended$", "^x*$"])
    assert titles._words is None  # '^x*$' needs no word: the unions answer
    assert titles.match("Account Suspended", "a.com", "a.com") == "^account suspended$"
    fast = PlaceholderTitles(["^{domain} is for sale\\b", "^account suspended$"])
    assert fast.match("a.com is for sale now", "a.com", "a.com") == "^{domain} is for sale\\b"
    assert fast.match("b.com is for sale now", "a.com", "a.com") is None
    assert fast.match("Account suspended", "a.com", "a.com") == "^account suspended$"
    assert fast._unions is None  # ASCII titles never needed them


def test_a_search_without_lists_imports_no_list_code() -> None:
    code = ("import sys, tamis.core, tamis.pipeline.lists\n"
            "print('tamis.policy.lists' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"
