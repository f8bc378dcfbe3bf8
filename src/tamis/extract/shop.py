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

# class/id words of consent managers (OneTrust, Cookiebot, Didomi, Usercentrics, TrustArc...)
CONSENT_WORDS = frozenset({
    "cookie", "cookies", "consent", "gdpr", "onetrust", "optanon", "cookiebot", "didomi",
    "usercentrics", "truste",
})
# class/id words of review widgets and recommendation strips
PRODUCT_CHROME_WORDS = frozenset({
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


def _chrome(element: HtmlElement, words: frozenset[str]) -> bool:
    if tag_of(element) in KEEP_TAGS:
        return False
    names = name_words(element)
    if names & KEEP_WORDS:
        return False
    return bool(names & words) and not element.xpath(".//h1")


def drop_shop_chrome(doc: HtmlElement, product: bool = True) -> int:
    """Cut (in place) consent banners, and on a product page (``product``)
    reviews and recommendation strips; the number of elements cut."""
    words = CONSENT_WORDS | PRODUCT_CHROME_WORDS if product else CONSENT_WORDS
    doomed = [el for el in doc.iter() if isinstance(el.tag, str) and _chrome(el, words)]
    cut = 0
    for el in doomed:
        if el.getparent() is not None and not any(a in doomed for a in el.iterancestors()):
            el.drop_tree()
            cut += 1
    return cut
