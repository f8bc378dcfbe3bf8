"""The page's main region as markdown: the fallback reader for pages that are not articles.

trafilatura is tuned for articles: on landing, listing and shop pages it often keeps one
paragraph and drops the headings, feature lists, cards and specs the page is made of. This
reader takes the page's ``<main>`` (or ``role="main"``) when there is exactly one holding
some text, else the largest ``div``/``section``/``article`` whose class or id says it is the
content (``main``, ``content``, ``primary``) and that holds at least 30 % of the body's text,
else the body, and converts it without the page's furniture: ``nav``, ``aside``,
``footer``, forms, a ``header`` that does not hold the page's ``h1``, landmark roles
(navigation, banner, contentinfo, complementary, search, dialog, menu) and elements whose
class or id names a widget (cookie/consent banners, newsletters, breadcrumbs, menus,
sidebars, modals, pagination, social buttons, a listing's filters and facets, drawers,
overlays and dropdown menus). Class and id words are split on ``-``,
``_`` and spaces and matched whole, so ``site-footer`` goes and ``footnote`` stays. The
tree is not changed: the same parse serves every reader.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cached_property, lru_cache

from lxml.html import HtmlElement

from tamis.extract.markdown import Converter, classes, tag_of

FURNITURE_TAGS = frozenset({"nav", "aside", "footer", "form"})
FURNITURE_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search",
                             "dialog", "alertdialog", "menu", "menubar"})
FURNITURE_WORDS = frozenset({
    "cookie", "cookies", "consent", "gdpr", "newsletter", "subscribe", "breadcrumb",
    "breadcrumbs", "navbar", "navigation", "menu", "footer", "sidebar", "modal", "popup",
    "masthead", "toolbar", "pagination", "social",
    # a listing's filter panel, and menus and panels that slide in over the page
    "filter", "filters", "facet", "facets", "refinement", "refinements", "skip",
    "skiplink", "announcement", "overlay", "drawer", "offcanvas", "flyout", "megamenu",
    "dropdown",
})
CONTENT_WORDS = frozenset({"main", "content", "maincontent", "primary"})
CONTENT_TAGS = frozenset({"div", "section", "article"})
MIN_MAIN_CHARS = 200
MIN_CONTENT_SHARE = 0.3



@lru_cache(maxsize=8192)
def _words_of(names: str) -> frozenset[str]:
    # split on whitespace, ``-`` and ``_`` by string methods: faster than a regex on the
    # hundreds of distinct values of a page
    return frozenset(names.lower().replace("-", " ").replace("_", " ").split())


def _words(element: HtmlElement) -> frozenset[str]:
    """The words of the element's class and id (kept per distinct pair: pages repeat them)."""
    cls, ident = element.get("class"), element.get("id")
    if not cls and not ident:
        return frozenset()
    return _words_of(f"{cls or ''} {ident or ''}")


def is_furniture(element: HtmlElement) -> bool:
    """True for page furniture (see the module's docstring)."""
    tag = tag_of(element)
    if tag in FURNITURE_TAGS:
        return True
    if tag == "header" and not element.xpath(".//h1"):
        return True
    if (element.get("role") or "").strip().lower() in FURNITURE_ROLES:
        return True
    return bool(_words(element) & FURNITURE_WORDS)


class RegionConverter(Converter):
    """tamis's converter, also skipping page furniture."""

    def _skip(self, element: HtmlElement) -> bool:
        """``Converter._skip`` or ``is_furniture``, asked once per element of the region:
        the tag first, then the attributes only of an element that has some (most have
        none), and the ``h1`` query of a ``header`` last."""
        tag = tag_of(element)
        if not tag or tag in self.skip_tags or tag in FURNITURE_TAGS:
            return True
        if element.keys():
            if element.get("hidden") is not None or element.get("aria-hidden") == "true":
                return True
            if self.skip_classes and classes(element) & self.skip_classes:
                return True
            if (element.get("role") or "").strip().lower() in FURNITURE_ROLES:
                return True
            if _words(element) & FURNITURE_WORDS:
                return True
        return tag == "header" and not element.xpath(".//h1")


def main_region(doc: HtmlElement) -> HtmlElement:
    return _main_region(doc)[0]


def _main_region(doc: HtmlElement) -> tuple[HtmlElement, str]:
    """(the main region, its text): the caller's bound needs it, and it is read here
    already."""
    body = doc.find(".//body")
    root = body if body is not None else doc
    found = root.xpath(".//main | .//*[@role='main']")
    if len(found) == 1 and len(text := found[0].text_content()) > MIN_MAIN_CHARS:
        return found[0], text
    root_text = root.text_content()
    floor = MIN_CONTENT_SHARE * len(root_text)
    best, best_text = root, root_text
    # the content tags only, matched in C (parsed tags are lowercase: ``tag_of``'s test)
    for element in root.iterdescendants(*CONTENT_TAGS):
        if not _words(element) & CONTENT_WORDS:
            continue
        text = element.text_content()
        if len(text) > floor and (best is root or len(text) > len(best_text)):
            best, best_text = element, text
    return best, best_text


# The markdown of a region is about its text with whitespace collapsed, plus the marks of
# its tables and lists (``| `` and `` |`` around a cell, ``- `` before an item: about
# ``MARK_CHARS`` each). Measured on the WCXB dev pages, where trafilatura's text is long
# enough to be compared: every region that replaced it had that estimate at 0.97 or more of
# the length it had to beat, and a region below ``ESTIMATE_SHARE`` of it never did (its
# markdown came out at about trafilatura's length): it is not converted.
MARK_CHARS = 3
MARKED_TAGS = ("tr", "td", "th", "li")
ESTIMATE_SHARE = 0.9


def _estimate(region: HtmlElement, text: str) -> int:
    """About the length of the region's markdown (see ``ESTIMATE_SHARE``)."""
    marks = sum(1 for _ in region.iter(*MARKED_TAGS))
    return len(" ".join(text.split())) + MARK_CHARS * marks


def region_markdown(doc: HtmlElement, needed: float = 0,
                    gate: Callable[[HtmlElement], bool] | None = None) -> str:
    """The main region's text as markdown, without the page's furniture; "" without
    converting when the region's text is too short to give more than ``needed`` chars
    (``_estimate``), or when ``gate``, asked with the region (long enough), says no."""
    region, text = _main_region(doc)
    if needed and _estimate(region, text) < ESTIMATE_SHARE * needed:
        return ""
    if gate is not None and not gate(region):
        return ""
    return RegionConverter().convert(region)


MENU_SHARE = 0.9
MENU_MIN_LINES = 10
_LINE_MARKS = re.compile(r"^[#>*\-\d. ]+")
_WORD = re.compile(r"\w+")


def _key(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


class PageLinks:
    """The texts of the page's links, read once for the readers that compare the text's
    lines with them (``is_menu``, ``articles``): the tree no longer changes by then."""

    def __init__(self, doc: HtmlElement) -> None:
        self.doc = doc

    @cached_property
    def texts(self) -> list[str]:
        return [a.text_content() for a in self.doc.iter("a")]

    @cached_property
    def keys(self) -> set[str]:
        """The links' texts as line keys (``_key``), the empty one left out."""
        return {_key(text) for text in self.texts} - {""}


def is_menu(markdown: str, doc: HtmlElement, links: PageLinks | None = None) -> bool:
    """True when at least ``MENU_SHARE`` of the text's lines (and ``MENU_MIN_LINES`` or more)
    are each exactly the text of one of the page's links (``links``, read from ``doc`` when
    not given): a reader that kept the site's menus instead of the page's content."""
    lines = [_key(_LINE_MARKS.sub("", line)) for line in markdown.split("\n")]
    lines = [line for line in lines if line]
    if len(lines) < MENU_MIN_LINES:
        return False
    links = links or PageLinks(doc)
    # A line that is a link's key has each of its words in that link's lowercased text: a
    # bound that needs no key per link, and rules out most texts after a few lines
    joined = "\n".join(text.lower() for text in links.texts)
    misses = 0
    for line in lines:
        if not all(word in joined for word in line.split(" ")):
            misses += 1
            if len(lines) - misses < MENU_SHARE * len(lines):
                return False
    return sum(line in links.keys for line in lines) >= MENU_SHARE * len(lines)


DOCS_CHROME_WORDS = frozenset({"sidebar", "toc"})
DOCS_CHROME_ROLES = frozenset({"navigation", "complementary"})
DOCS_CHROME_SHARE = 0.3
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})


def drop_docs_chrome(doc: HtmlElement) -> None:
    """Cut (in place) a docs page's side navigation and tables of contents: elements with
    the ``navigation``/``complementary`` role or a ``sidebar``/``toc`` class or id word,
    unless it holds the ``h1`` or ``DOCS_CHROME_SHARE`` of the page's text (a
    ``content-with-sidebar`` wrapper). trafilatura keeps a chapter list that is not marked
    up as ``nav``. A heading is never cut: ``hide-from-toc`` names a heading the table of
    contents leaves out, not a table of contents."""
    body = doc.find(".//body")
    ceiling = DOCS_CHROME_SHARE * len((body if body is not None else doc).text_content())
    doomed = [el for el in doc.iter() if isinstance(el.tag, str) and el.tag not in HEADINGS and (
        (el.get("role") or "").strip().lower() in DOCS_CHROME_ROLES
        or _words(el) & DOCS_CHROME_WORDS)
        and not el.xpath(".//h1") and len(el.text_content()) < ceiling]
    for el in doomed:
        if el.getparent() is not None and not any(a in doomed for a in el.iterancestors()):
            el.drop_tree()
