"""The page's markup signals that the page-type classifier and the structured readers both
consult, read once from the parsed page (after the hidden-text cut).

Before, each signal was its own XPath over the whole tree (``//@itemtype``, ``//pre``,
``//meta[@name='generator']``...): about a dozen full walks a page, in the classifier and
again in the docs readers. Here the tags come from one ``iter`` over the four tags they
need (matched in C) and the two attributes from one XPath; the values and their order are
those the separate queries gave.
"""

from __future__ import annotations

from dataclasses import dataclass

import lxml.etree
from lxml.html import HtmlElement

_ATTRIBUTED = lxml.etree.XPath("//*[@itemtype or @itemprop='price']")
UNREAD_TAGS = ("meta", "link", "img", "svg", "picture", "source", "input")


@dataclass(frozen=True)
class Signals:
    """What the page's markup says about itself, in page order."""

    item_types: tuple[str, ...]  # every ``itemtype`` value (microdata)
    ld_json: tuple[str, ...]  # the text of each ``<script type="application/ld+json">``
    generators: tuple[str, ...]  # ``<meta name="generator">`` contents
    og_types: tuple[str, ...]  # ``<meta property="og:type">`` contents
    published_time: bool  # a ``<meta property="article:published_time">``
    author: bool  # a ``<meta name="author">`` or ``<meta property="article:author">``
    price: bool  # an ``itemprop="price"`` or a ``<meta property="product:price:amount">``
    code_blocks: int  # ``<pre>`` elements
    articles: int  # ``<article>`` elements

    @property
    def generator(self) -> str:
        """The generator names, lowercased, one string."""
        return " ".join(self.generators).lower()


def read_signals(doc: HtmlElement, microdata: list[HtmlElement] | None = None) -> Signals:
    """The signals of the whole document ``doc`` belongs to (as ``//`` queries read it).
    ``microdata``: its elements with an ``itemtype`` or ``itemprop`` attribute, in page
    order, when the caller has them (``visibility.PageNames``)."""
    root = doc.getroottree().getroot()
    ld_json: list[str] = []
    generators: list[str] = []
    og_types: list[str] = []
    published = price = author = False
    code_blocks = articles = 0
    for element in root.iter("meta", "pre", "article", "script"):
        tag = element.tag
        if tag == "pre":
            code_blocks += 1
        elif tag == "article":
            articles += 1
        elif tag == "script":
            if element.get("type") == "application/ld+json":
                ld_json.append(element.text or "")
        else:
            content = element.get("content")
            name = element.get("name")
            if name == "generator" and content is not None:
                generators.append(content)
            elif name == "author" and content:
                author = True
            prop = element.get("property")
            if prop == "og:type" and content is not None:
                og_types.append(content)
            elif prop == "article:published_time":
                published = True
            elif prop == "product:price:amount":
                price = True
            elif prop == "article:author" and content:
                author = True
    item_types: list[str] = []
    for element in _ATTRIBUTED(root) if microdata is None else microdata:
        item_type = element.get("itemtype")
        if item_type is not None:
            item_types.append(item_type)
        if element.get("itemprop") == "price":
            price = True
    return Signals(tuple(item_types), tuple(ld_json), tuple(generators), tuple(og_types),
                   published, author, price, code_blocks, articles)


def drop_unread(doc: HtmlElement) -> None:
    """Cut (in place) what no reader after the signals reads: the page's ``meta`` and
    ``link`` elements (once the title, a product's microdata and a forum's description are
    read), its images and SVG drawings, and its input fields (no reader here prints them).
    trafilatura, asked for no metadata, links or images, drops them too, after it has
    copied and walked the tree it is handed several times: a smaller tree to copy and
    walk."""
    for element in list(doc.getroottree().getroot().iter(*UNREAD_TAGS)):
        if element.getparent() is not None:  # an element inside a drawing went with it
            element.drop_tree()
