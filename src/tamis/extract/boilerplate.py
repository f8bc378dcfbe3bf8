"""Lines of an article's text that are the page's widgets: author bios, related stories,
share bars, newsletter and call-to-action boxes, comment sections and sidebars.

trafilatura, favouring recall on articles, keeps such blocks when they sit inside the
article's container. Cutting those elements from the tree before trafilatura reads it
changes what trafilatura picks as the body (measured: it then lost paragraphs after the
cut), so the cut is made on its text instead: a line (heading, paragraph or list item) of
trafilatura's markdown is dropped when it is exactly the text of a block inside an
element whose class or id words (split on ``-``, ``_`` and spaces, matched whole) name
such a widget, and no element outside the widgets holds the same text as its own (a
heading that a sidebar's table of contents repeats stays). An element holding the ``h1``
or more than ``MAX_SHARE`` of the page's text is never taken for a widget.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from tamis.extract.region import _key, _words

WIDGET_WORDS = frozenset({
    "related", "bio", "author", "byline", "share", "sharing", "newsletter", "subscribe",
    "signup", "optin", "promo", "cta", "recommended", "trending", "popular", "comments",
    "comment", "sidebar", "sponsored", "advert", "advertisement", "ads", "disclaimer", "tags",
})
MAX_SHARE = 0.3
TEXT_TAGS = frozenset({"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt",
                       "blockquote", "figcaption", "a", "strong", "b", "em", "span", "div"})
_MARKS = re.compile(r"^\s*(?:[#>*+-]+|\d+\.)\s*")


def _own_text(element: HtmlElement) -> bool:
    """Text of its own, not only its children's: a wrapper around a widget is not
    "elsewhere on the page"."""
    return bool((element.text or "").strip()) or any((c.tail or "").strip() for c in element)


def widget_keys(doc: HtmlElement) -> set[str]:
    """Normalised texts of the blocks inside widget elements that appear nowhere else."""
    body = doc.find(".//body")
    root = body if body is not None else doc
    ceiling = MAX_SHARE * len(root.text_content())
    inside: set[str] = set()
    outside: set[str] = set()

    def walk(element: HtmlElement, in_widget: bool) -> None:
        for child in element:
            if not isinstance(child.tag, str):
                continue
            widget = in_widget
            if not widget and _words(child) & WIDGET_WORDS:
                widget = len(child.text_content()) < ceiling and not child.xpath(".//h1")
            if child.tag in TEXT_TAGS and (widget or _own_text(child)):
                key = _key(child.text_content())
                if key:
                    (inside if widget else outside).add(key)
            walk(child, widget)

    walk(root, False)
    return inside - outside


def drop_widget_lines(markdown: str, doc: HtmlElement) -> str:
    """``markdown`` without the lines that are widget text of ``doc`` (see the module)."""
    keys = widget_keys(doc)
    if not keys:
        return markdown
    kept = [line for line in markdown.split("\n")
            if _key(_MARKS.sub("", line.replace("*", ""))) not in keys or not line.strip()]
    return "\n".join(kept)
