"""What kind of page this is, from its URL and markup, deterministically.

Types: ``forum`` (a thread or a question with its answers), ``documentation``,
``product``, ``collection`` (a shop's category), ``listing`` (an index of articles or
items), ``article`` and ``service`` (landing pages: everything else). Each signal scores
its type; the highest score wins, ties in the order of ``TYPES``. Signals are general:
URL shapes that forum, docs and shop software produce, schema.org types, Open Graph
types, generator names and a few structural counts; never a site name.
"""

from __future__ import annotations

import re
from collections import Counter
from urllib.parse import urlsplit

from lxml.html import HtmlElement

from tamis.extract.signals import Signals, read_signals

TYPES = ("forum", "documentation", "product", "collection", "listing", "article", "service")

_URL_SIGNALS: tuple[tuple[str, re.Pattern[str], int], ...] = (
    ("forum", re.compile(r"/(threads?|topics?|discussions?|viewtopic|showthread|showtopic)"
                         r"\b|/t/[^/]+/\d+|/questions/\d+|/comments/\w+|/forums?/|/community/"
                         r"|/s/\w+/", re.I), 3),
    ("documentation", re.compile(r"/(docs?|documentation|reference|manual|api|guides?|"
                                 r"tutorials?|handbook|wiki|support|glossary|kb|learn)(/|\.|$)"
                                 r"|^(docs|developer|developers|devdocs|wiki)\.", re.I), 2),
    ("product", re.compile(r"/(products?|dp|item|listing|p)/[^/]+|/shop/[^/]+/[^/]+", re.I), 3),
    ("collection", re.compile(r"/(collections?|category|categories|c|cat|b|browse|"
                              r"departments?)/[^/]+/?$", re.I), 3),
    ("listing", re.compile(r"/(news|blog|articles|tags?|topics|archive|events|reviews|"
                           r"courses|rankings)/?$|/list_of_", re.I), 2),
    ("article", re.compile(r"/\d{4}/\d{2}/|/(blog|news|article|articles|posts?|story)/[^/]+",
                           re.I), 2),
)
_SCHEMA = {
    "discussionforumposting": "forum", "qapage": "forum", "question": "forum",
    "techarticle": "documentation", "apireference": "documentation",
    "product": "product", "offer": "product", "productgroup": "product",
    "collectionpage": "collection", "itemlist": "listing",
    "article": "article", "newsarticle": "article", "blogposting": "article",
    "reportagenewsarticle": "article", "service": "service",
}
_GENERATORS = {
    "discourse": "forum", "xenforo": "forum", "phpbb": "forum", "vbulletin": "forum",
    "nodebb": "forum", "invision": "forum", "mybb": "forum", "flarum": "forum",
    "sphinx": "documentation", "mkdocs": "documentation", "docusaurus": "documentation",
    "gitbook": "documentation", "vitepress": "documentation", "mdbook": "documentation",
    "hugo-book": "documentation", "docfx": "documentation", "antora": "documentation",
    "shopify": "product", "woocommerce": "product", "magento": "product",
}
_TYPE_NAME = re.compile(r'"@type"\s*:\s*\[?\s*"([A-Za-z]+)"')
# JSON-LD types that say the page itself is an article. Read before the hidden-text cut
# (which drops every script): the other JSON-LD kinds describe the site, its FAQ block or
# what it sells as often as the page, and measured worse as signals.
ARTICLE_LD = frozenset({"article", "newsarticle", "blogposting", "reportagenewsarticle",
                         "analysisnewsarticle", "opinionnewsarticle", "reviewnewsarticle"})


def _schema_types(signals: Signals) -> Counter[str]:
    found: Counter[str] = Counter()
    for value in signals.item_types:
        name = value.rstrip("/").rsplit("/", 1)[-1].lower()
        if name in _SCHEMA:
            found[_SCHEMA[name]] += 1
    for text in signals.ld_json:
        for name in _TYPE_NAME.findall(text):
            if name.lower() in _SCHEMA:
                found[_SCHEMA[name.lower()]] += 1
    return found


# JSON-LD products (read before the hidden-text cut drops the scripts): one product is a
# product page; this many different ones or more, a shop's category.
LD_CATEGORY_PRODUCTS = 3


# JSON-LD types (also read before the cut) that name a page of items
LD_LIST_TYPES = {"collectionpage": "collection", "itemlist": "listing"}


def classify(doc: HtmlElement | None, url: str | None, ld_products: int = 0,
             ld_types: frozenset[str] = frozenset(), signals: Signals | None = None) -> str:
    """One of ``TYPES``; ``ld_products``: how many different products the page's JSON-LD
    describes, ``ld_types``: the schema.org types it names (lowercased; an article type
    counts for ``article``); ``signals``: ``read_signals(doc)`` when the caller has it."""
    score: Counter[str] = Counter()
    if ld_types & ARTICLE_LD:
        score["article"] += 2
    if url:
        parts = urlsplit(url)
        path = parts.path + ("?" + parts.query if parts.query else "")
        host = parts.netloc.lower()
        for kind, pattern, weight in _URL_SIGNALS:
            if pattern.search(path) or (kind == "documentation" and pattern.search(host)):
                score[kind] += weight
        if host.startswith(("forum.", "forums.", "community.", "discuss.", "bbs.")):
            score["forum"] += 3
        if path.strip("/") == "":
            score["service"] += 2
    if doc is not None:
        if signals is None:
            signals = read_signals(doc)
        for kind, count in _schema_types(signals).items():
            score[kind] += 3 if kind != "product" else min(3, count) + 1
        for content in signals.generators:
            lowered = content.lower()
            for name, kind in _GENERATORS.items():
                if name in lowered:
                    score[kind] += 3 if kind != "product" else 1
        if signals.og_types:
            kind = signals.og_types[0].strip().lower()
            if kind == "article":
                score["article"] += 2
            elif kind in ("product.group", "product:group"):  # a group of products
                score["collection"] += 3
            elif kind.startswith("product"):
                score["product"] += 3
        if signals.published_time:
            score["article"] += 1  # Open Graph's article date: rare on other pages
        if signals.code_blocks >= 2:
            score["documentation"] += min(3, signals.code_blocks // 2)
        if signals.price:
            score["product"] += 2
        if signals.articles >= 6:
            score["listing"] += 2
    if ld_products == 1:
        score["product"] += 4
    elif ld_products >= LD_CATEGORY_PRODUCTS:
        score["collection"] += 4
    for name in ld_types & LD_LIST_TYPES.keys():
        score[LD_LIST_TYPES[name]] += 3
    if not score:
        return "service"
    best = max(score.values())
    return next(kind for kind in TYPES if score[kind] == best)
