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
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from tamis.policy.checks import DOMAIN_GROUP as _DOMAIN_GROUP
from tamis.policy.checks import DOMAIN_SLOT as _DOMAIN_SLOT
from tamis.policy.checks import placeholder_regex

_ANY_DOMAIN = r"[a-z0-9][a-z0-9.-]*\.[a-z]{2,}"


class PlaceholderTitles:
    """The compiled ``placeholder_titles``: which one, if any, a result's title matches."""

    def __init__(self, patterns: list[str]) -> None:
        self.patterns = list(patterns)  # each compiled when a title may match it (rare)
        # Words one of which every match holds (``for sale``, ``parked``...), looked for in
        # the lower-cased title when it is ASCII: a title holding none (almost every result)
        # is no placeholder; one that holds some is tried against the patterns whose own
        # words it holds. None: some pattern has no such word.
        self._each = _pattern_words(tuple(self.patterns))
        self._words = _fewest(self._each)
        # Else (a title not ASCII, or no words): the patterns anchored at the start tried
        # there only (one union, re.match), the others in one union searched; both built
        # when first needed.
        self._unions: tuple[Callable[[str], object], Callable[[str], object]] | None = None

    def match(self, title: str | None, host: str, domain: str) -> str | None:
        """The pattern the title matches, or None (``domain``: the host's registrable one)."""
        if not title or not self.patterns:
            return None
        # titles from the merge are clean (one space between words); explain-url's may not be
        text = title if title.isprintable() and "  " not in title else " ".join(title.split())
        if self._words is not None and text.isascii():
            low = text.lower()
            for word in self._words:
                if word in low:
                    break
            else:
                return None
            return self._first([p for p, words in self._each  # type: ignore[union-attr]
                                if any(w in low for w in words)], text, host, domain)
        if self._unions is None:
            self._unions = _unions(tuple(self.patterns))
        anchored, searched = self._unions
        if anchored(text) is None and searched(text) is None:
            return None
        return self._first(self.patterns, text, host, domain)

    def unmatched(self, titles: list[str | None]) -> list[bool] | None:
        """For each title, True when ``match`` of it is certainly None: an ASCII title holding
        none of the words (``_words``), found for all the titles at once (each word looked
        for in their lower-cased texts joined by line breaks, which no such text holds);
        None when the patterns have no such words."""
        words = self._words
        if words is None or not self.patterns:
            return None
        distinct = list(dict.fromkeys(titles))  # a title several results share: read once
        if len(distinct) < len(titles):
            found = dict(zip(distinct, self._unmatched(distinct, words), strict=True))
            return list(map(found.__getitem__, titles))
        return self._unmatched(titles, words)

    @staticmethod
    def _unmatched(titles: list[str | None], words: tuple[str, ...]) -> list[bool]:
        """``unmatched`` of these titles, by these words."""
        lows = []  # the texts match reads, one line each ("": a title match never reads)
        for title in titles:
            if title:
                text = (title if title.isprintable() and "  " not in title
                        else " ".join(title.split()))
                lows.append(text.lower() if text.isascii() else "")
            else:
                lows.append("")
        unmatched = [bool(low) or not title for low, title in zip(lows, titles, strict=True)]
        joined = "\n".join(lows)
        starts = []  # where each text starts in joined
        at = 0
        for low in lows:
            starts.append(at)
            at += len(low) + 1
        for word in words:
            found = joined.find(word)
            while found >= 0:  # (a word holding a break may span two lines: asked, no harm)
                unmatched[bisect_right(starts, found) - 1] = False
                found = joined.find(word, found + 1)
        return unmatched

    @staticmethod
    def _first(patterns: list[str], text: str, host: str, domain: str) -> str | None:
        for pattern in patterns:
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
def _unions(patterns: tuple[str, ...]) -> tuple[Callable[[str], object], Callable[[str], object]]:
    return (_union([p for p in patterns if _anchored(p)], anchored=True),
            _union([p for p in patterns if not _anchored(p)], anchored=False))


def _anchored(pattern: str) -> bool:
    """Starts with ``^`` and has no ``|`` outside brackets (``^a|b`` also finds ``b``
    anywhere, so it cannot be tried at the start only)."""
    if not pattern.startswith("^"):
        return False
    depth, in_class, escaped = 0, False, False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
        elif char == "|" and depth == 0:
            return False
    return True


def _union(patterns: list[str], anchored: bool) -> Callable[[str], object]:
    """Does a title possibly match one of ``patterns``: one regex standing for them all,
    tried at the start only (``anchored``: every pattern is ``_anchored``) or searched."""
    if not patterns:
        return lambda text: None
    body = "|".join(f"(?:{p[1:] if anchored else p})".replace(_DOMAIN_SLOT, _ANY_DOMAIN)
                    for p in patterns)
    try:
        regex = re.compile(body, re.IGNORECASE)
    except re.error:  # a pattern with its own global flags cannot stand in a union
        return lambda text: True
    return regex.match if anchored else regex.search


def _words(patterns: list[str]) -> tuple[str, ...] | None:
    """Lower-cased ASCII strings one of which every match of one of ``patterns`` (compiled
    as ``placeholder_regex`` compiles them, case-insensitive) holds; None when some pattern
    has no such string. In ASCII text a case-insensitive ASCII literal matches only its own
    letters in either case, so the test on the lower-cased title is exact."""
    return _fewest(_pattern_words(tuple(patterns)))


@lru_cache(maxsize=64)
def _fewest(each: tuple[tuple[str, frozenset[str]], ...] | None) -> tuple[str, ...] | None:
    """All the patterns' words; a word holding another is found only where the other is:
    the shorter kept."""
    if each is None:
        return None
    words = frozenset().union(*(found for _, found in each))
    return tuple(sorted(w for w in words if not any(o != w and o in w for o in words)))


@lru_cache(maxsize=64)
def _pattern_words(patterns: tuple[str, ...]) -> tuple[tuple[str, frozenset[str]], ...] | None:
    """(pattern, the words one of which its every match holds) of each pattern (``_words``),
    worked out once per process for a list of patterns; None when some pattern has none."""
    each = []
    for pattern in patterns:
        found = _needed_words(pattern)
        if found is None:
            return None
        each.append((pattern, found))
    return tuple(each)


@lru_cache(maxsize=1024)
def _needed_words(pattern: str) -> frozenset[str] | None:
    try:  # the standard library's own regex parser (private: any surprise, no shortcut)
        from re import _constants as c  # type: ignore[attr-defined]
        from re import _parser  # type: ignore[attr-defined]
    except ImportError:
        return None

    def needed(items: Any) -> frozenset[str] | None:
        """One of these strings is in every match of the sequence ``items`` (None: none)."""
        best: frozenset[str] | None = None
        run: list[str] = []

        def consider(found: frozenset[str] | None) -> None:
            nonlocal best
            if found and (best is None or min(map(len, found)) > min(map(len, best))):
                best = found

        for op, av in [*items, (None, None)]:
            if op is c.LITERAL:
                run.append(chr(av))
                continue
            if run:
                text = "".join(run)
                run = []
                if text.isascii():
                    consider(frozenset({text.lower()}))
            if op is c.SUBPATTERN and not av[1] and not av[2]:  # a group, no flag changes
                consider(needed(av[3]))
            elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
                consider(needed(av[2]))
            elif op is c.BRANCH:
                branches = [needed(branch) for branch in av[1]]
                if all(branches):
                    consider(frozenset().union(*branches))  # type: ignore[arg-type]
        return best

    try:
        source = pattern.replace(_DOMAIN_SLOT, _DOMAIN_GROUP, 1)
        return needed(_parser.parse(source, re.IGNORECASE))
    except Exception:
        return None
