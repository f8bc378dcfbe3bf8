"""Responsive-design classes: is an element hidden on a desktop screen by its class names alone?

Pages often carry a block twice, once for phones and once for large screens, and hide one
copy with a CSS framework's utility classes from a stylesheet tamis never sees (an external
file). An extractor reads the page as a desktop browser shows it, so the copy that such a
screen hides goes, as ``visibility.strip_hidden``'s other reasons do (``not-on-desktop``).

A desktop screen is taken as 1280 px wide: Bootstrap's ``xl``, Tailwind's ``xl``.
Understood, and only these:

- Bootstrap 4/5 ``d-none``, ``d-{sm,md,lg,xl}-{none,block,flex,...}`` and Tailwind
  ``hidden`` / ``{sm,md,lg,xl}:hidden`` beside ``{bp}:block``, ``{bp}:flex``...: the value of
  the widest breakpoint up to ``xl`` wins, and the element goes when it is ``none``; a plain
  ``d-none`` or ``hidden`` with no breakpoint class is not read here (sites use ``hidden``
  for their own rules; the page's own ``<style>`` decides those);
- Bootstrap 3 ``hidden-lg``, and ``visible-xs`` / ``visible-sm`` without a ``visible-md`` or
  ``visible-lg`` beside them;
- Foundation ``hide-for-large``, ``show-for-small-only``, ``show-for-medium-only``;
- names that say it, alone or after a site prefix (``android-hidden-desktop``):
  ``hidden-desktop``, ``hide-desktop``, ``hide-on-desktop``, ``desktop-hidden``,
  ``mobile-only``, ``visible-mobile``, ``show-mobile``, ``show-on-mobile``.
"""

from __future__ import annotations

import re
from functools import lru_cache

BREAKPOINTS = {"": 0, "sm": 1, "md": 2, "lg": 3, "xl": 4}
_BOOTSTRAP = re.compile(r"^d-(?:(sm|md|lg|xl|xxl)-)?(none|block|flex|inline|inline-block|"
                        r"inline-flex|grid|inline-grid|table|table-cell|table-row|contents)$")
_TAILWIND = re.compile(r"^(?:(sm|md|lg|xl|2xl):)?(hidden|block|flex|inline|inline-block|"
                       r"inline-flex|grid|inline-grid|table|table-cell|table-row|contents)$")
_NAMED = re.compile(r"(?:^|[-_])(?:hidden-desktop|hide-desktop|hide-on-desktop|hidden-on-desktop|"
                    r"desktop-hidden|mobile-only|visible-mobile|show-mobile|show-on-mobile)$")
_MAYBE = re.compile(r"(?:^|\s)d-|:|hid|hide|visible|mobile|show-for", re.I)
_FOUNDATION = frozenset({"hide-for-large", "show-for-small-only", "show-for-medium-only"})


def _widest(tokens: list[str], pattern: re.Pattern[str], hidden: str) -> bool | None:
    """True/False when the widest breakpoint class up to ``xl`` hides/shows; None when no
    breakpoint class is there."""
    best: tuple[int, bool] | None = None
    responsive = False
    for token in tokens:
        match = pattern.match(token)
        if not match:
            continue
        point = match.group(1) or ""
        if point not in BREAKPOINTS:
            continue  # wider than a desktop screen: says nothing about it
        responsive = responsive or bool(point)
        rank = BREAKPOINTS[point]
        if best is None or rank >= best[0]:
            best = (rank, match.group(2) == hidden)
    if best is None or not responsive:
        return None
    return best[1]


@lru_cache(maxsize=8192)
def hidden_on_desktop(classes: str) -> bool:
    """Whether the class attribute ``classes`` hides the element on a desktop screen."""
    if classes.isascii():
        # what ``_MAYBE`` looks for, as substrings of the lowercased value: most class
        # values of a page hold none of them, and these tests rule them out faster than
        # the case-blind regex (same answer on ASCII text)
        low = classes.lower()
        if not ("d-" in low or ":" in low or "hid" in low or "visible" in low
                or "mobile" in low or "show-for" in low):
            return False
    if not _MAYBE.search(classes):
        return False
    tokens = classes.split()
    if not tokens:
        return False
    for pattern, hidden in ((_BOOTSTRAP, "none"), (_TAILWIND, "hidden")):
        verdict = _widest(tokens, pattern, hidden)
        if verdict is not None:
            return verdict
    lowered = [token.lower() for token in tokens]
    if "hidden-lg" in lowered or any(t in _FOUNDATION for t in lowered):
        return True
    small = any(t in ("visible-xs", "visible-sm") for t in lowered)
    if small and not any(t in ("visible-md", "visible-lg") for t in lowered):
        return True
    return any(_NAMED.search(token) for token in lowered)
