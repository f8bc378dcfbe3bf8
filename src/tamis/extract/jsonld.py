"""What a page says about itself in schema.org JSON-LD, for the readers that lose it.

Shop pages often render their description in a tab, a deferred block or a script-built
widget, so the main-text readers (and the hidden-text cut) miss it, while the page's
``<script type="application/ld+json">`` still carries the product's ``name``,
``description`` and price. ``read_products`` reads the one ``Product`` (or
``ProductGroup``) a page describes; a page listing several products gets None (their
descriptions are not the page's main text). Read before the hidden-text cut, which drops
every ``<script>``. Bounded: at most ``MAX_SCRIPT_CHARS`` of each script are parsed.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

import lxml.etree
from lxml.html import HtmlElement

PRODUCT_TYPES = frozenset({"product", "productgroup"})
MAX_SCRIPT_CHARS = 500_000
MAX_DEPTH = 12

_TAGS = re.compile(r"<[^>]+>")
_ITEMS = lxml.etree.XPath(".//*[@itemtype]")
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ProductFacts:
    name: str
    description: str
    price: str  # "19.99 USD", or "" when the page gives none


def _types(item: dict[str, Any]) -> set[str]:
    kind = item.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return {k.lower() for k in kinds if isinstance(k, str)}


def _products(node: Any, found: list[dict[str, Any]], kinds: set[str], depth: int = 0,
              ) -> None:
    if depth > MAX_DEPTH:
        return
    if isinstance(node, dict):
        types = _types(node)
        kinds |= types
        if types & PRODUCT_TYPES:
            found.append(node)
            return  # a ProductGroup's variants are the same product
        for value in node.values():
            _products(value, found, kinds, depth + 1)
    elif isinstance(node, list):
        for value in node:
            _products(value, found, kinds, depth + 1)


def _plain(value: Any) -> str:
    if not isinstance(value, str):
        return ""
    if "%20" in value and " " not in value:  # a percent-encoded text (a shop template's bug)
        value = unquote(value)
    return " ".join(html.unescape(_TAGS.sub(" ", value)).split())


def _price(item: dict[str, Any]) -> str:
    offers = item.get("offers")
    if isinstance(offers, list):
        offers = offers[0] if offers else None
    if not isinstance(offers, dict):
        return ""
    price = offers.get("price", offers.get("lowPrice"))
    if not isinstance(price, (str, int, float)) or isinstance(price, bool) or price == "":
        return ""
    currency = offers.get("priceCurrency")
    return f"{price} {currency}" if isinstance(currency, str) and currency else str(price)


@dataclass(frozen=True)
class Products:
    """What a page's JSON-LD says about products: how many different ones it describes
    (a ``ProductGroup``'s variants are one), the facts of the one when there is one, and
    the schema.org types it names outside products (lowercased: ``itemlist``...)."""

    count: int
    facts: ProductFacts | None
    types: frozenset[str] = frozenset()


def read_products(doc: HtmlElement, microdata: list[HtmlElement] | None = None) -> Products:
    """The products of the page's JSON-LD (read before the hidden-text cut); without one,
    of its microdata (``microdata_facts``)."""
    found: list[dict[str, Any]] = []
    kinds: set[str] = set()
    for script in doc.getroottree().getroot().iter("script"):  # matched by tag in C
        if script.get("type") != "application/ld+json":
            continue
        text = (script.text or "")[:MAX_SCRIPT_CHARS]
        try:
            _products(json.loads(text), found, kinds)
        except (ValueError, RecursionError):  # JSON-LD nested too deep: not read
            continue
    names = {_plain(item.get("name")) for item in found}
    if not names:  # no JSON-LD product: the page's one microdata Product, if it has one
        return Products(0, microdata_facts(doc, microdata), frozenset(kinds))
    if len(names) != 1:
        return Products(len(names), None, frozenset(kinds))
    item = found[0]
    facts = ProductFacts(_plain(item.get("name")), _plain(item.get("description")), _price(item))
    return Products(1, facts, frozenset(kinds))


def _scope(element: HtmlElement) -> HtmlElement | None:
    """The item (``itemscope``) a microdata property belongs to."""
    return next((a for a in element.iterancestors() if a.get("itemscope") is not None), None)


def _prop(item: HtmlElement, name: str) -> str:
    """The text of ``item``'s own property ``name`` (not a nested item's), or ""."""
    for element in item.iterfind(f".//*[@itemprop='{name}']"):
        if _scope(element) is item:
            value = element.get("content") if element.tag == "meta" else element.text_content()
            return " ".join((value or "").split())
    return ""


def microdata_facts(doc: HtmlElement, microdata: list[HtmlElement] | None = None,
                    ) -> ProductFacts | None:
    """The facts of the page's one schema.org ``Product`` in microdata (``itemtype``,
    ``itemprop=name`` / ``description``): shops on platforms that mark up the product block
    itself instead of writing JSON-LD. The product holding the page's ``h1`` (the product
    block, not a card of the "you may also like" strip), else the only one with a
    description. Read before the hidden-text cut, like the JSON-LD: a description in a
    closed tab is still the product's. None when no one product is found. ``microdata``:
    the elements of the page with an ``itemtype`` or ``itemprop`` attribute, in page order,
    when the caller has them (``visibility.PageNames``, from the cut's walk of the page
    ``doc`` is the root of)."""
    if microdata is None:
        typed = _ITEMS(doc)  # the query runs in C, ElementPath's walk in Python
    else:
        typed = [el for el in microdata if el is not doc and el.get("itemtype") is not None]
    items = [el for el in typed
             if el.get("itemtype", "").rstrip("/").rsplit("/", 1)[-1].lower() in PRODUCT_TYPES]
    described = [(item, text) for item in items if (text := _prop(item, "description"))]
    headed = [pair for pair in described if pair[0].find(".//h1") is not None]
    chosen = headed if len(headed) == 1 else described
    if len(chosen) != 1:
        return None
    item, description = chosen[0]
    return ProductFacts(_prop(item, "name"), description, "")


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def add_missing_facts(markdown: str, facts: ProductFacts, probe_words: int = 8) -> str:
    """``markdown`` with the product's name (as a heading) and description (a paragraph)
    added when the reader lost them: the description counts as present when its first
    ``probe_words`` words are in the text."""
    described = words(facts.description)
    if len(described) < probe_words:
        return markdown
    have = " ".join(words(markdown))
    if " ".join(described[:probe_words]) in have:
        return markdown
    head = ""
    if facts.name and " ".join(words(facts.name)) not in have:
        head = f"# {facts.name}\n\n"
    price = f"\n\nPrice: {facts.price}" if facts.price else ""
    body = f"{markdown}\n\n" if markdown else ""
    return f"{head}{body}{facts.description}{price}"
