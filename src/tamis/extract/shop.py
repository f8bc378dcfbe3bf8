"""Shop pages: what is not the product's own text, cut before a reader sees the page.

A product page's main text is the product: its name, price, description, feature bullets
and specifications. Around it, shop software renders customer reviews, "you may also like"
carousels and recently-viewed strips, which trafilatura (and tamis's region reader) keep as
if they were the page. ``drop_shop_chrome`` cuts them, in place, by the class or id words
shop software and review widgets give them (``reviews``, ``related``, ``upsell``,
``recommendations``...; camelCase names such as ``customerReviews`` are split into words),
unless the element holds the page's ``h1`` (a wrapper of the whole product block) or also
names itself the description (a game's press quotes, ``description reviews``).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from tamis.extract.markdown import tag_of

# class/id words of review widgets and recommendation strips
SHOP_CHROME_WORDS = frozenset({
    "review", "reviews", "ratings", "testimonials", "related", "recommendations",
    "recommendation", "recommended", "upsell", "upsells", "crosssell", "recently",
})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SPLIT = re.compile(r"[\s_:-]+")
KEEP_TAGS = frozenset({"html", "body", "main"})
KEEP_WORDS = frozenset({"description"})


def name_words(element: HtmlElement) -> set[str]:
    """The words of an element's class and id, split on ``-``, ``_``, spaces and camelCase."""
    names = f"{element.get('class') or ''} {element.get('id') or ''}"
    return {w for w in _SPLIT.split(_CAMEL.sub(" ", names).lower()) if w}


def drop_shop_chrome(doc: HtmlElement) -> int:
    """Cut (in place) reviews and recommendation strips; the number of elements cut."""
    doomed = [el for el in doc.iter() if isinstance(el.tag, str)
              and tag_of(el) not in KEEP_TAGS and name_words(el) & SHOP_CHROME_WORDS
              and not name_words(el) & KEEP_WORDS              and not el.xpath(".//h1")]
    cut = 0
    for el in doomed:
        if el.getparent() is not None and not any(a in doomed for a in el.iterancestors()):
            el.drop_tree()
            cut += 1
    return cut
