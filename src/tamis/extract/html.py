"""HTML text to the page's main text in markdown. CPU-bound: callers run it in a thread.

Order: forum threads and docs pages tamis recognises (``structured``), then trafilatura
(imported lazily: markdown out, comments dropped, headings, lists, tables and code kept),
or the page's main region (``region``) where trafilatura keeps too little of a landing,
listing or docs page (on an article only when the page shows trafilatura lost part of the
story: ``articles``), then tamis's own converter over the page body when trafilatura finds
nothing or cannot be imported, and last trafilatura's own plain reading when every reader
came back empty.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from types import ModuleType

import lxml.etree
import lxml.html
from lxml.html import HtmlElement

from tamis.extract.articles import (
    StoryGate,
    drop_empty_sections,
    drop_link_runs,
    is_article,
    is_dated,
)
from tamis.extract.blocked import page_title
from tamis.extract.boilerplate import drop_widget_lines
from tamis.extract.docs import docs_text, drop_button_lines, prepare_docs
from tamis.extract.jsonld import ProductFacts, add_missing_facts, read_products
from tamis.extract.markdown import Converter
from tamis.extract.pagetype import ARTICLE_LD, classify
from tamis.extract.region import (
    PageLinks,
    RegionConverter,
    drop_docs_chrome,
    is_menu,
    main_region,
    region_markdown,
)
from tamis.extract.shop import drop_shop_chrome, product_text
from tamis.extract.signals import Signals, drop_unread, read_signals
from tamis.extract.streamed import place_streamed
from tamis.extract.structured import extract_structured
from tamis.extract.threadtext import declares_thread, drop_repeated_lines, page_description
from tamis.extract.visibility import PageNames, cut_hidden, hidden_elements, still_shown

FALLBACK_SKIP_TAGS = ("header", "footer", "aside", "noscript")
FALLBACK_SKIP_CLASSES = ("sidebar", "menu", "navbar", "cookie", "banner", "comments", "share")

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>", re.I)
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


@functools.cache
def trafilatura_module() -> ModuleType | None:
    """trafilatura, or None when it cannot be imported (e.g. lxml without html_clean)."""
    try:
        import trafilatura
    except ImportError:
        return None
    return trafilatura


def normalize(text: str) -> str:
    """Trailing spaces and runs of blank lines removed, except inside code fences."""
    out: list[str] = []
    fence: str | None = None
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.rstrip()
        match = _FENCE.match(line)
        if fence is None and match:
            fence = match.group(1)
        elif fence is not None and match and match.group(1)[0] == fence[0]:
            fence = None
        elif fence is None and not line and out and not out[-1]:
            continue
        out.append(line)
    return "\n".join(out).strip()


_PARSERS = threading.local()


def _parser() -> lxml.html.HTMLParser:
    """lxml.html's parser with its element classes picked in C: lxml.html's default lookup
    is a Python method run for every element proxy made (tamis's walks and trafilatura's
    over the same tree), and chooses form classes (``FormElement``, ``InputElement``...)
    that no reader here uses. Every element is an ``HtmlElement`` (``text_content``,
    ``drop_tree``, ``classes``, ``iterlinks`` as before). No table of ``id`` values is
    built while parsing (only XPath's ``id()`` reads it, and no reader here calls it).
    One parser per thread: pages are parsed in worker threads, and an lxml parser parses
    one document at a time."""
    parser = getattr(_PARSERS, "parser", None)
    if parser is not None:
        return parser
    parser = lxml.html.HTMLParser(collect_ids=False)
    parser.set_element_class_lookup(lxml.etree.ElementDefaultClassLookup(
        element=lxml.html.HtmlElement, comment=lxml.html.HtmlComment,
        pi=lxml.html.HtmlProcessingInstruction, entity=lxml.html.HtmlEntity))
    _PARSERS.parser = parser
    return parser


def parse(text: str) -> HtmlElement | None:
    try:
        return lxml.html.fromstring(_XML_DECL.sub("", text, count=1), parser=_parser())
    except (lxml.etree.ParserError, ValueError):
        return None


def _title(doc: HtmlElement | None, text: str) -> str:
    title = page_title(text)
    if title or doc is None:
        return title
    found = doc.xpath("//meta[@property='og:title']/@content") or doc.xpath("//h1")
    if not found:
        return ""
    first = found[0]
    return " ".join((first if isinstance(first, str) else first.text_content()).split())


# trafilatura settings per page type: articles and docs favour recall without comments
# (the reader wants the body); a thread no forum reader took (``structured``) keeps its
# comment sections only when the page declares a thread (``threadtext.declares_thread``:
# its replies are the answers); shop and landing pages keep trafilatura's defaults, which
# measured best on them.
TYPE_OPTIONS: dict[str, dict[str, bool]] = {
    "article": {"include_comments": False, "favor_recall": True},
    "documentation": {"include_comments": False, "favor_recall": True},
    "forum": {"include_comments": False, "favor_recall": False},
}
DEFAULT_OPTIONS = {"include_comments": True, "favor_recall": False}

# When trafilatura's text is shorter than the page's main region by more than this factor,
# the region's text (``region``) is used instead: trafilatura, tuned for articles, keeps a
# paragraph of a landing or listing page and drops its headings, cards and feature lists.
# A trafilatura text that is only the site's menus (``is_menu``) is replaced by the region
# on every type. Measured on the WCXB dev pages; product pages are not listed (trafilatura
# measured better there), nor forums (the region holds the whole thread's chrome). On a
# page read as an article, the region must also hold more of the story (``articles``).
REGION_RATIO: dict[str, float] = {
    "service": 1.2, "listing": 1.2, "collection": 1.2, "documentation": 1.2, "article": 2.0,
}


# Page types whose trafilatura text loses the lines of the page's widgets (author bios,
# related stories, share and newsletter boxes...) that it kept: ``boilerplate``.
WIDGET_TYPES = frozenset({"article", "documentation", "service"})


# Page types whose readers often lose the product description a shop renders in a tab or a
# script-built block: there, the description of the page's one JSON-LD ``Product`` is added
# when the text lacks it (``jsonld``).
FACT_TYPES = frozenset({"product", "service", "listing", "collection"})
# Page types whose consent banners and screen-reader-only text are cut before the reader
# (``shop``); on product pages also the reviews and recommendation strips, and the spec
# tables trafilatura dropped are given back.
SHOP_TYPES = frozenset({"product", "listing", "collection"})


@dataclass
class Extracted:
    """The main text of one HTML page and how it was had."""

    title: str
    markdown: str
    method: str  # a structured reader (xenforo, sphinx...) | trafilatura | region | fallback
    #   | description (a forum page's meta description)
    page_type: str
    hidden: Counter[str] = field(default_factory=Counter)


# Formatting inside code that trafilatura (2.3) mishandles with include_formatting: in
# ``<code><i>x</i></code>`` the text after the code is lost (nginx and man-page style docs
# set arguments in italics inside code), and a ``<pre>`` with bold or italic children
# comes out unfenced. Their tags are dropped, their text kept, before trafilatura reads.
CODE_FORMATTING = ("b", "strong", "i", "em", "u", "s", "mark", "var", "cite", "dfn", "small",
                   "big", "sub", "sup", "samp", "kbd", "tt", "ins", "del", "abbr", "q")


def plain_code(doc: HtmlElement) -> None:
    """Drop (in place) formatting tags inside ``code`` and ``pre``, keeping their text, and
    every HTML comment: trafilatura, handed a tree, prints a comment inside a heading as
    text (``<!--lit-node 1-->`` markers of pages rendered with Lit)."""
    # matched by tag in C; one with no element child has nothing to strip
    for element in list(doc.getroottree().getroot().iter("code", "pre")):
        if len(element):
            lxml.etree.strip_tags(element, *CODE_FORMATTING)
    lxml.etree.strip_tags(doc, lxml.etree.Comment)


def with_trafilatura(doc: HtmlElement | str, url: str | None, page_type: str = "article",
                     comments: bool = False) -> str | None:
    """trafilatura's markdown, ``page_type``'s options; ``comments``: keep comment sections."""
    module = trafilatura_module()
    if module is None:
        return None
    if isinstance(doc, str):
        doc = _XML_DECL.sub("", doc, count=1)
    options = TYPE_OPTIONS.get(page_type, DEFAULT_OPTIONS)
    if comments:
        options = {**options, "include_comments": True}
    try:
        result = module.extract(
            doc, url=url, output_format="markdown", include_tables=True,
            include_formatting=True, include_links=False, include_images=False,
            deduplicate=False, **options)
    except Exception:  # a trafilatura bug on odd markup: use tamis's own converter
        return None
    return result or None


def fallback(doc: HtmlElement) -> str:
    body = doc.find(".//body")
    root = body if body is not None else doc
    main = root.xpath(".//main | .//*[@role='main'] | .//article")
    converter = Converter(skip_classes=FALLBACK_SKIP_CLASSES, skip_tags=FALLBACK_SKIP_TAGS)
    return converter.convert(main[0] if len(main) == 1 else root)


@dataclass
class Markup:
    """What the page's markup says, read once for the readers: its signals, the class and
    id values it had before the hidden-text cut, and whether its meta data names an author
    or its JSON-LD an article type (``articles.is_article``)."""

    signals: Signals
    names: PageNames
    authored: bool
    thread: bool  # the page declares a discussion thread (``declares_thread``)


def _prepared(text: str, url: str | None) -> tuple[
        HtmlElement | None, str, Counter[str], str, ProductFacts | None, Markup | None]:
    """(tree without what a browser hides, title, hidden counts, page type, JSON-LD facts,
    the tree's markup)."""
    doc = parse(text)
    title = _title(doc, text)
    if doc is None:
        return None, title, Counter(), "service", None, None
    place_streamed(doc)  # React's streamed parts, hidden until its script moves them
    seen = PageNames()  # class and id values and microdata, from the cut's walk
    doomed = hidden_elements(doc, seen)
    whole = doc.getparent() is None  # the walk saw every element (not a fragment's)
    # before the cut: it drops the JSON-LD scripts; a closed tab's description is the product's
    products = read_products(doc, seen.microdata if whole else None)
    hidden = cut_hidden(doc, doomed)
    # once, for the classifier and the structured readers
    signals = read_signals(doc, still_shown(seen.microdata, doc) if whole else None)
    kind = classify(doc, url, products.count, products.types, signals)
    authored = signals.author or bool(products.types & ARTICLE_LD)
    thread = declares_thread(products.types, signals.item_types)
    return doc, title, hidden, kind, products.facts, Markup(signals, seen, authored, thread)


def page_type(text: str, url: str | None = None) -> str:
    """The type ``extract_page`` reads this page as (its ``TYPE_OPTIONS`` for trafilatura)."""
    return _prepared(text, url)[3]


def extract_page(text: str, url: str | None = None) -> Extracted:
    """Parse once, drop what a browser would not show, classify, extract by page type."""
    doc, title, hidden, page_type, facts, markup = _prepared(text, url)
    if doc is None or markup is None:
        return Extracted(title, "", "fallback", page_type)
    found = extract_structured(doc, markup.signals, markup.names)
    if found:
        return Extracted(title, normalize(found[1]), found[0], page_type, hidden)
    summary = page_description(doc) if page_type == "forum" else ""  # before ``drop_unread``
    page = _read(doc, url, title, page_type, hidden, markup)
    if page_type == "forum":  # a thread a script renders: its summary, not nothing
        if page.method == "trafilatura":
            page.markdown = drop_repeated_lines(page.markdown)
        if len(page.markdown) < len(summary):
            page.markdown, page.method = summary, "description"
    if facts is not None and page_type in FACT_TYPES:
        page.markdown = add_missing_facts(page.markdown, facts)
    if page.method == "fallback" and not page.markdown.strip():
        # every reader found nothing (not: tamis's line cuts left nothing of what one found)
        page.markdown = normalize(_plain_reading(text, url) or "")
    return page


def _plain_reading(text: str, url: str | None) -> str | None:
    """trafilatura's output with its own defaults (markdown, tables and formatting kept)
    on the page without what a browser hides: a fresh parse, since the readers cut their
    chrome from the tree (rare: only when every reader came back empty)."""
    doc = parse(text)
    if doc is None:
        return None
    place_streamed(doc)
    cut_hidden(doc, hidden_elements(doc))
    plain_code(doc)
    return with_trafilatura(doc, url, "")


def _read(doc: HtmlElement, url: str | None, title: str, page_type: str,
          hidden: Counter[str], markup: Markup) -> Extracted:
    names = markup.names
    if page_type == "documentation":
        drop_docs_chrome(doc)
        prepare_docs(doc)
    elif page_type in SHOP_TYPES:
        drop_shop_chrome(doc, product=page_type == "product")
    drop_unread(doc)
    plain_code(doc)
    extracted = with_trafilatura(doc, url, page_type, markup.thread and page_type == "forum")
    links = PageLinks(doc)  # the tree is final: its links are read once, when needed
    article = bool(extracted) and _is_article(page_type, markup, url, extracted or "")
    story = StoryGate(doc, extracted, links) if article and extracted else None
    region = _region_instead(doc, extracted, REGION_RATIO.get(page_type), story, links)
    if region is not None and extracted and not article and is_dated(region):
        article = True  # a dateline on top of the main region: a news item, a blog post
        story = StoryGate(doc, extracted, links)
        if not story(main_region(doc)):
            region = None
    if story is not None and story.thread is not None and extracted:
        # a discussion's comment thread follows the story (``articles.comment_thread``)
        comments = _tidy_region(RegionConverter().convert(story.thread), doc)
        story_text = drop_empty_sections(drop_link_runs(extracted, doc, links))
        return Extracted(title, normalize(f"{story_text}\n\n{comments}"), "region",
                         page_type, hidden)
    if region is not None:
        if page_type == "article":  # its share bars and related lists (boilerplate)
            region = normalize(drop_widget_lines(region, doc, on_region=True,
                                                 names=names, keep_body=True))
        if article:
            region = normalize(drop_empty_sections(drop_link_runs(region, doc, links)))
        return Extracted(title, region, "region", page_type, hidden)
    if article and extracted:
        extracted = drop_empty_sections(drop_link_runs(extracted, doc, links))
    if extracted and page_type == "product":  # footer lines kept, spec tables dropped
        extracted = product_text(extracted, doc)
    if extracted:
        if page_type in WIDGET_TYPES:
            # landing pages name their content blocks ``ctaCell``: no camelCase words there
            extracted = drop_widget_lines(extracted, doc, camel_case=page_type != "service",
                                          names=names, keep_body=article)
        if page_type == "documentation":
            extracted = docs_text(extracted, doc)
        return Extracted(title, normalize(extracted), "trafilatura", page_type, hidden)
    return Extracted(title, normalize(fallback(doc)), "fallback", page_type, hidden)


def _is_article(page_type: str, markup: Markup, url: str | None, text: str) -> bool:
    names = markup.names
    return is_article(page_type, markup.authored, names.classes, names.ids, url, text)


def _tidy_region(region: str, doc: HtmlElement) -> str:
    # a button link's line ("Get started") is a call to action, not the page's text
    return normalize(drop_button_lines(region, doc))


def _region_instead(doc: HtmlElement, extracted: str | None, ratio: float | None,
                    story: StoryGate | None = None, links: PageLinks | None = None,
                    ) -> str | None:
    """The main region's text when it replaces trafilatura's ``extracted``, else None: on
    the types ``REGION_RATIO`` lists, when it is longer than ``ratio`` times it (on an
    article, only when ``story`` agrees: asked before the region is converted), and on
    every type, whenever it has text and trafilatura's is the site's menus (``is_menu``).
    ``is_menu`` is only read when the outcome depends on it: a region long enough wins
    either way."""
    if ratio is None and not extracted:
        return None
    needed = (ratio or 0) * len(extracted or "")
    region = tidied = ""
    if ratio is not None:
        region = region_markdown(doc, needed, gate=story)
        # Cutting lines and blank runs never lengthens it: a region no longer than needed
        # loses already, and is not tidied
        if region and len(region) > needed:
            tidied = _tidy_region(region, doc)
            if tidied and len(tidied) > needed:
                return tidied
    if not extracted or not is_menu(extracted, doc, links):
        return None
    if not region:  # not converted yet: too short to be longer than needed
        region = region_markdown(doc)
    if region and not tidied:
        tidied = _tidy_region(region, doc)
    return tidied or None


def extract_text(html: str, url: str | None = None) -> str:
    """The markdown ``tamis read`` prints for this HTML, before any budget: hidden text
    removed, the page's type recognised, its main text extracted. Never raises."""
    try:
        return extract_page(html, url).markdown
    except Exception:  # a stable entry point for measures: an odd page is empty text
        return ""
