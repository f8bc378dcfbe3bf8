"""Lines of an article's text that are the page's widgets: author bios, related stories,
share bars, newsletter and call-to-action boxes, comment sections and sidebars.

trafilatura, favouring recall on articles, keeps such blocks when they sit inside the
article's container. Cutting those elements from the tree before trafilatura reads it
changes what trafilatura picks as the body (measured: it then lost paragraphs after the
cut), so the cut is made on its text instead: a line (heading, paragraph or list item) of
trafilatura's markdown is dropped when it is exactly the text of a block inside an
element whose class or id words (split on ``-``, ``_``, spaces and, except on landing
pages, camelCase: ``ArticleStyles__StyledAuthorContainer``; matched whole) name such a
widget, and the page does not hold the same text more often than its widgets do (a
heading that a sidebar's table of contents repeats stays). An element holding the ``h1``
or more than ``MAX_SHARE`` of the page's text is never taken for a widget. On an article
(``articles.is_article``), a cut that would take more than half the text
(``MAX_CUT_SHARE``) is not made: the reader chose that text as the story, and a class name
such as ``entry-content no-share`` or ``live-match-comment`` is weaker evidence than that
choice. (A landing page's text can be mostly a promo bar's lines: there the cut stays.)

An article read by the main-region reader (trafilatura kept too little) loses its widget
lines too; there the region holds the whole page's main column, and a box holding prose is
the story even when its name says ``related``, and calls to action and promos stay (a
landing page typed article is made of them) (``on_region``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml.etree import Element
from lxml.html import HtmlElement

from tamis.extract.region import _key
from tamis.extract.shop import h1_holders
from tamis.extract.visibility import PageNames

WIDGET_WORDS = frozenset({
    "related", "bio", "author", "byline", "share", "sharing", "newsletter", "subscribe",
    "signup", "optin", "promo", "cta", "recommended", "trending", "popular", "comments",
    "comment", "sidebar", "sponsored", "advert", "advertisement", "ads", "disclaimer", "tags",
})
MAX_SHARE = 0.3
# a cut that would take more than this share of the text's characters is not made
MAX_CUT_SHARE = 0.5
# on the main region's text (``on_region``): a box holding this many paragraphs of this
# many characters is the story, whatever its name says
PROSE_PARAGRAPHS = 3
PROSE_CHARS = 200
TEXT_TAGS = frozenset({"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt",
                       "blockquote", "figcaption", "a", "strong", "b", "em", "span", "div"})
_MARKS = re.compile(r"^\s*(?:[#>*+-]+|\d+\.)\s*")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # where a camelCase name splits


def _word_pattern(words: frozenset[str]) -> re.Pattern[str]:
    """One of ``words``, whole (class and id words are split on spaces, ``-`` and ``_``)."""
    return re.compile(r"(?:^|[\s_-])(?:" + "|".join(sorted(words)) + r")(?=$|[\s_-])")


_ANY_WORD = _word_pattern(WIDGET_WORDS)
# on the main region's text (``on_region``) calls to action and promos stay: the region
# reader takes landing-like pages, which are made of such blocks
_REGION_WORD = _word_pattern(WIDGET_WORDS - {"cta", "promo"})


def _holds_prose(element: HtmlElement) -> bool:
    """True when ``element`` holds ``PROSE_PARAGRAPHS`` paragraphs of ``PROSE_CHARS`` or more:
    an article's text, not a widget (a story's body in ``related-articles-text``)."""
    long = 0
    for paragraph in element.iter("p"):
        if len(paragraph.text_content()) >= PROSE_CHARS:
            long += 1
            if long >= PROSE_PARAGRAPHS:
                return True
    return False


@lru_cache(maxsize=8192)
def _names_widget(value: str, camel_case: bool, on_region: bool) -> bool:
    """Whether a class or id value holds a widget word (kept per distinct value: pages
    repeat them)."""
    pattern = _REGION_WORD if on_region else _ANY_WORD
    if camel_case and value != value.lower():  # an upper-case letter: camelCase may split
        value = _CAMEL.sub(" ", value)
    return bool(pattern.search(value.lower()))


def widgets(root: HtmlElement, page_chars: int, camel_case: bool = True,
            on_region: bool = False) -> list[HtmlElement]:
    """The outermost widget elements under ``root`` (see the module); with ``camel_case``,
    camelCase names are split into words too (``StyledAuthorContainer``). With
    ``on_region`` (the text is the main region's), an element holding prose
    (``_holds_prose``) is no widget, nor is a call to action or a promo."""
    ceiling = MAX_SHARE * page_chars
    found: list[HtmlElement] = []
    named: dict[str | None, bool] = {None: False}  # per distinct value of the page
    holds_h1: set[HtmlElement] | None = None  # an h1's ancestors, found once when needed
    # document order; a walk is cheaper than a query that makes a string object for every
    # class and id value of the page
    for element in root.iter(Element):
        keys = element.keys()  # one call; most elements have neither attribute
        if "class" not in keys and "id" not in keys:
            continue
        verdict = False
        for value in (element.get("class"), element.get("id")):
            seen = named.get(value)
            if seen is None:
                seen = named[value] = _names_widget(value, camel_case, on_region)
            verdict = verdict or seen
        if not verdict:
            continue
        if found and (element is found[-1] or any(a is found[-1]
                                                  for a in element.iterancestors())):
            continue  # the last widget found, or inside it
        if holds_h1 is None:
            holds_h1 = h1_holders(root)
        if (element not in holds_h1 and len(element.text_content()) < ceiling
                and not (on_region and _holds_prose(element))):
            found.append(element)
    return found


def _count(needle: str, haystack: str) -> int:
    return f" {haystack} ".count(f" {needle} ")


def names_no_widget(names: PageNames, camel_case: bool, on_region: bool) -> bool:
    """True when none of these class and id values names a widget: ``widgets`` then finds
    none in a tree whose values are among them."""
    return not any(_names_widget(value, camel_case, on_region)
                   for values in (names.classes, names.ids) for value in values)


def drop_widget_lines(markdown: str, doc: HtmlElement, camel_case: bool = True,
                      on_region: bool = False, names: PageNames | None = None,
                      keep_body: bool = False) -> str:
    """``markdown`` without the lines that are widget text of ``doc`` (see the module and
    ``widgets``). ``names``, when given, holds every class and id value of ``doc`` (and
    maybe more: ``strip_hidden``'s, from before the cuts): with none naming a widget, the
    text is returned as it is, without a look at the tree. ``keep_body`` (an article): a
    cut of more than ``MAX_CUT_SHARE`` of the text is not made."""
    if names is not None and names_no_widget(names, camel_case, on_region):
        return markdown
    body = doc.find(".//body")
    root = body if body is not None else doc
    texts = list(root.itertext())
    # the widgets first, measured against the page's text joined with spaces: the lines
    # are keyed only when the page has one, the text joined only when a line is in one
    found = widgets(root, sum(map(len, texts)) + max(0, len(texts) - 1), camel_case,
                    on_region)
    if not found:
        return markdown
    lines = markdown.split("\n")
    keys = [_key(_MARKS.sub("", line.replace("*", ""))) for line in lines]
    wanted = set(keys) - {""}
    inside: set[str] = set()
    for widget in found:
        for element in widget.iter():
            if isinstance(element.tag, str) and element.tag in TEXT_TAGS:
                key = _key(element.text_content())
                if key in wanted:
                    inside.add(key)
    if not inside:
        return markdown
    # a text the page also holds outside its widgets is the page's own (a heading that a
    # sidebar's table of contents repeats): more occurrences on the page than in widgets
    page = _key(" ".join(texts))
    in_widgets = " | ".join(_key(" ".join(w.itertext())) for w in found)
    doomed = {k for k in inside if _count(k, page) <= _count(k, in_widgets)}
    kept = [line for line, key in zip(lines, keys, strict=True)
            if key not in doomed or not line.strip()]
    # Most of the text in "widgets": the names lie (a body in ``entry-content no-share``,
    # a live ticker's ``live-match-comment`` items), not the reader that chose that text
    cut = "\n".join(kept)
    return markdown if keep_body and len(cut) < (1 - MAX_CUT_SHARE) * len(markdown) else cut
