"""Placeholder pages: parked, for-sale, expired and web-server default pages, known by title.

Such a page never answers a query, whatever its intent: the parked ``tina-daunt.com``
("Welcome tina-daunt.com - BlueHost.com") is not the journalist's site, even though the query
names it. The title patterns are data (``policy.non_answer.placeholder_titles``): regular
expressions matched case-insensitively against the result's title, where ``{domain}`` stands
for the result's own site (its registrable domain or its host, with or without ``www.``), so
that "Welcome to Python.org" on python.org is no match for a pattern that needs a hosting
company's name after the domain.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property, lru_cache

from tamis.policy.checks import DOMAIN_SLOT as _DOMAIN_SLOT
from tamis.policy.checks import placeholder_regex

_ANY_DOMAIN = r"[a-z0-9][a-z0-9.-]*\.[a-z]{2,}"


class PlaceholderTitles:
    """The compiled ``placeholder_titles``: which one, if any, a result's title matches."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = list(patterns)

    @cached_property
    def could_match(self) -> Callable[[str], object]:
        """Compiled on the first title read (a search with no result compiles nothing)."""
        return _union(tuple(self.patterns))

    def match(self, title: str | None, host: str, domain: str) -> str | None:
        """The pattern the title matches, or None (``domain``: the host's registrable one).
        Every pattern is first tried at once, as one regular expression with any domain in
        ``{domain}``'s place: almost no title matches it, and those are read no further."""
        if not title or not self.patterns:
            return None
        text = " ".join(title.split())
        if not self.could_match(text):
            return None
        for pattern in self.patterns:
            found = placeholder_regex(pattern).search(text)
            if found is None:
                continue
            if _DOMAIN_SLOT not in pattern or found.group("domain") is None:
                return pattern  # no domain named (``{domain}`` optional: "Buy this domain")
            named = found.group("domain").lower().removeprefix("www.")
            if named in (domain, host.removeprefix("www.")):
                return pattern
        return None


@lru_cache(maxsize=64)
def _union(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """Could a title match one of ``patterns``: one expression standing for them all."""
    body = "|".join(f"(?:{p})".replace(_DOMAIN_SLOT, _ANY_DOMAIN) for p in patterns)
    try:
        return re.compile(body, re.IGNORECASE).search
    except re.error:  # a pattern with its own global flags cannot stand in a union
        return lambda text: True
