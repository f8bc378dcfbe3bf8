"""Shop pages: what is not the product's own text, cut before a reader sees the page.

A product page's main text is the product: its name, price, description, feature bullets and
specifications. Around it, shop software renders customer reviews, "you may also like"
carousels, recently-viewed strips and a marketplace's buyer feedback on the seller, which
trafilatura (and tamis's region reader) keep as if they were the page. ``drop_shop_chrome``
cuts them, in place, by the class or id words shop software and review widgets give them
(``reviews``, ``feedback``, ``related``, ``upsell``, ``recommendations``...; camelCase names
such as ``customerReviews`` are split into words), unless the element holds the page's
``h1`` (a wrapper of the whole product block) or also names itself the description (a game's
press quotes, ``description reviews``). Consent managers' banners (OneTrust, Cookiebot,
Didomi...) and screen-reader-only text (``sr-only``, ``visually-hidden``,
``screen-reader-text``...: a style sheet tamis does not read hides it) are cut on listing
and category pages too.

trafilatura, tuned for articles, also drops what a product page is made of: a table of
specifications, a definition list, a list of ``Label: value`` items (system requirements).
``missing_specs`` gives back those blocks of the page's main region that its text lacks,
and ``drop_footer_lines`` cuts the lines of its text that the page holds only in its footer,
navigation or newsletter box.
"""

from __future__ import annotations

import re
from functools import lru_cache

from lxml.etree import Element
from lxml.html import HtmlElement

from tamis.extract.markdown import tag_of
from tamis.extract.region import RegionConverter, _key, is_furniture, main_region
from tamis.extract.threadtext import drop_repeated_lines

# class/id words of consent managers (OneTrust, Cookiebot, Didomi, Usercentrics, TrustArc...)
CONSENT_WORDS = frozenset({
    "cookie", "cookies", "consent", "gdpr", "onetrust", "optanon", "cookiebot", "didomi",
    "usercentrics", "truste",
})
# class names of the screen-reader-only pattern (Bootstrap, WordPress, Amazon...), whose
# rule is in a style sheet tamis does not read: text a browser does not show
SCREEN_READER_CLASSES = frozenset({
    "sr-only", "visually-hidden", "visuallyhidden", "screen-reader-text",
    "screen-reader-only", "a-offscreen", "offscreen", "u-hidden-visually",
})
# class/id words of review widgets (a marketplace's buyer feedback on the seller too) and
# recommendation strips
PRODUCT_CHROME_WORDS = frozenset({
    "review", "reviews", "ratings", "testimonials", "feedback", "related", "recommendations",
    "recommendation", "recommended", "upsell", "upsells", "crosssell", "recently",
})
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
KEEP_TAGS = frozenset({"html", "body", "main"})
KEEP_WORDS = frozenset({"description", "editorial"})


@lru_cache(maxsize=8192)
def _words_of(names: str) -> frozenset[str]:
    # the camelCase regex only where an upper-case letter is; then split on whitespace,
    # ``-``, ``_`` and ``:`` by string methods, faster than a regex
    if names != names.lower():
        names = _CAMEL.sub(" ", names)
    return frozenset(names.lower().replace("-", " ").replace("_", " ").replace(":", " ").split())


def name_words(element: HtmlElement) -> frozenset[str]:
    """The words of an element's class and id, split on ``-``, ``_``, spaces and camelCase
    (kept per distinct class-and-id string: pages repeat them)."""
    cls, ident = element.get("class"), element.get("id")
    if not cls and not ident:
        return frozenset()
    return _words_of(f"{cls or ''} {ident or ''}")


@lru_cache(maxsize=8192)
def _class_tokens(classes: str) -> frozenset[str]:
    return frozenset(classes.lower().split())


def _named_chrome(classes: str | None, ident: str | None, words: frozenset[str]) -> bool | None:
    """Whether an element of this class and id is chrome: True, False, or None when it is
    unless it holds the page's ``h1`` (a wrapper of the whole product block)."""
    if classes and _class_tokens(classes) & SCREEN_READER_CLASSES:
        return True
    names = _words_of(f"{classes or ''} {ident or ''}")
    if names & KEEP_WORDS or not names & words:
        return False
    return None


def drop_shop_chrome(doc: HtmlElement, product: bool = True) -> int:
    """Cut (in place) consent banners and screen-reader-only text, and on a product page
    (``product``) reviews and recommendation strips; the number of elements cut."""
    words = CONSENT_WORDS | PRODUCT_CHROME_WORDS if product else CONSENT_WORDS
    # pages repeat their class and id values: each pair is judged once
    judged: dict[tuple[str, str | None], bool | None] = {}
    doomed = []
    for el in doc.iter(Element):
        classes, ident = el.get("class"), el.get("id")
        if not classes and not ident:
            continue  # no name to judge it by
        key = (classes or "", ident)
        if key not in judged:
            judged[key] = _named_chrome(classes, ident, words)
        verdict = judged[key]
        if verdict is False or tag_of(el) in KEEP_TAGS:
            continue
        if verdict or not el.xpath(".//h1"):
            doomed.append(el)
    cut, marked = 0, set(doomed)
    for el in doomed:
        if el.getparent() is not None and not any(a in marked for a in el.iterancestors()):
            el.drop_tree()
            cut += 1
    return cut


# A block of specifications: a table of label/value rows, a definition list, or a list whose
# items are mostly "Label: value".
SPEC_MIN_ROWS = 2
SPEC_LABELLED_SHARE = 0.6
SPEC_MIN_ITEMS = 3
_LABEL = re.compile(r"^\s*[^:\n]{1,40}:(\s|$)")


def _is_spec(element: HtmlElement) -> bool:
    tag = tag_of(element)
    if tag == "table":
        rows = [r for r in element.iter("tr")
                if sum(tag_of(c) in ("td", "th") for c in r) >= 2]
        return len(rows) >= SPEC_MIN_ROWS
    if tag == "dl":
        return len(element.findall("dt")) >= SPEC_MIN_ROWS
    if tag == "div":  # term/definition rows without a dl (script-built pages)
        rows = [row for row in element if tag_of(row) == "div"]
        paired = sum(_term_row(row) for row in rows)
        return paired >= SPEC_MIN_ROWS and paired >= SPEC_LABELLED_SHARE * len(element)
    if tag in ("ul", "ol"):
        items = [li for li in element if tag_of(li) == "li" and li.text_content().strip()]
        labelled = sum(bool(_LABEL.match(li.text_content())) for li in items)
        return len(items) >= SPEC_MIN_ITEMS and labelled >= SPEC_LABELLED_SHARE * len(items)
    return False


def _term_row(row: HtmlElement) -> bool:
    """A row holding one term and its definition (``dt``/``dd`` or the ARIA roles)."""
    kinds = [tag_of(c) if tag_of(c) in ("dt", "dd") else c.get("role") for c in row]
    return (kinds.count("dt") + kinds.count("term") == 1
            and kinds.count("dd") + kinds.count("definition") == 1)


def _term_rows(element: HtmlElement) -> str:
    """A div of term/definition rows as a list, ``- Collar: Turn-down collar``."""
    lines = []
    for row in element:
        if tag_of(row) == "div" and _term_row(row):
            term, definition = (" ".join(c.text_content().split()) for c in row
                                if tag_of(c) in ("dt", "dd") or c.get("role") in
                                ("term", "definition"))
            lines.append(f"- {term.rstrip(':')}: {definition}")
    return "\n".join(lines)


class _BlockConverter(RegionConverter):
    def element(self, element: HtmlElement) -> str:
        """``element`` itself as markdown (a list as a list, a table as a table)."""
        out: list[str] = []
        inline: list[str] = []
        self._node(element, out, inline)
        self._flush(out, inline)
        return "\n\n".join(block for block in out if block.strip())


def missing_specs(doc: HtmlElement, markdown: str, probe_words: int = 6) -> list[str]:
    """The specification blocks of the page's main region (as markdown) that ``markdown``
    lacks: a block counts as present when its first ``probe_words`` words are in it.
    Blocks inside page furniture (below the main region) are left out."""
    have = _key(markdown)
    converter = _BlockConverter()
    out: list[str] = []
    region = main_region(doc)
    for element in region.iter("table", "dl", "ul", "ol", "div"):
        if not _is_spec(element):
            continue
        above = list(element.iterancestors())
        above = above[:above.index(region)] if region in above else above
        if any(_is_spec(a) or is_furniture(a) for a in above) or is_furniture(element):
            continue
        block = _term_rows(element) if tag_of(element) == "div" else converter.element(element)
        words = _key(block).split()
        if len(words) < probe_words or " ".join(words[:probe_words]) in have:
            continue
        out.append(block)
        have += " " + _key(block)
    return out


# Where a product page's site furniture sits: the footer and navigation, by tag or landmark
# role, and the boxes whose class or id words name them (newsletter sign-up, breadcrumbs)
FOOTER_TAGS = frozenset({"footer", "nav"})
FOOTER_ROLES = frozenset({"contentinfo", "navigation"})
FOOTER_WORDS = frozenset({
    "footer", "newsletter", "subscribe", "signup", "navbar", "navigation", "breadcrumb",
    "breadcrumbs", "megamenu",
})
TEXT_TAGS = frozenset({"p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dd", "dt",
                       "a", "span", "div", "strong", "b", "label", "button"})
_MARKS = re.compile(r"^\s*(?:[#>*+-]+|\d+\.)\s*")


def h1_holders(root: HtmlElement) -> set[HtmlElement]:
    """The elements under which ``root``'s tree has an ``h1`` (``el.xpath(".//h1")`` is
    true exactly for them): one walk up from each ``h1``, not a query per element."""
    return {a for h1 in root.getroottree().iter("h1") for a in h1.iterancestors()}


def _is_footer(element: HtmlElement, holds_h1: set[HtmlElement]) -> bool:
    tag = tag_of(element)
    if tag in KEEP_TAGS or element in holds_h1:
        return False
    return (tag in FOOTER_TAGS or element.get("role") in FOOTER_ROLES
            or bool(name_words(element) & FOOTER_WORDS))


def drop_footer_lines(markdown: str, doc: HtmlElement) -> str:
    """``markdown`` without the lines (a heading, paragraph or list item) whose text the page
    holds only inside its footer, navigation or newsletter box: trafilatura kept a shop's
    sign-up form and customer-service blurb from the footer as a product's text."""
    inside: set[str] = set()
    outside: set[str] = set()
    body = doc.find(".//body")
    if body is None:
        return markdown
    holds_h1 = h1_holders(body)
    stack: list[tuple[HtmlElement, bool]] = [(body, False)]
    while stack:
        element, footer = stack.pop()
        footer = footer or _is_footer(element, holds_h1)
        if tag_of(element) in TEXT_TAGS:
            key = _key(element.text_content())
            if key:
                (inside if footer else outside).add(key)
        stack.extend((child, footer) for child in element if isinstance(child.tag, str))
    kept = [line for line in markdown.split("\n")
            if (key := _key(_MARKS.sub("", line))) not in inside or key in outside]
    return "\n".join(kept)



# A block (paragraph, list, table) of this many characters or more that the text already
# gave is left out: shops render the buy box twice (a sticky add-to-cart bar, a mobile and
# a desktop copy) and trafilatura keeps both.
REPEAT_BLOCK_MIN_CHARS = 20


def drop_repeated_blocks(markdown: str, min_chars: int = REPEAT_BLOCK_MIN_CHARS) -> str:
    """``markdown`` without the blocks (paragraphs, lists, tables) of ``min_chars`` or more
    (their words) whose words it already gave in an earlier block."""
    seen: set[str] = set()
    out: list[str] = []
    for block in re.split(r"\n\s*\n", markdown):
        key = _key(block)
        if len(key) >= min_chars:
            if key in seen:
                continue
            seen.add(key)
        out.append(block)
    return "\n\n".join(out)


# A consent banner's sentence, when the banner's box has no class word to cut it by (utility
# CSS classes): the site uses cookies, and the reader agrees or is asked to accept them.
COOKIE_NOTICE_CHARS = 400
_COOKIE_USE = re.compile(r"\b(uses?|use of|using) cookies\b", re.I)
_COOKIE_ASK = re.compile(r"\b(by using|you agree|agree to|accept|consent|preferences)\b", re.I)


def drop_cookie_lines(markdown: str) -> str:
    """``markdown`` without the lines (under ``COOKIE_NOTICE_CHARS``) of a cookie notice."""
    return "\n".join(line for line in markdown.split("\n")
                     if len(line) >= COOKIE_NOTICE_CHARS or not _COOKIE_USE.search(line)
                     or not _COOKIE_ASK.search(line))


def product_text(markdown: str, doc: HtmlElement) -> str:
    """trafilatura's text of a product page, tidied: the lines only the footer holds cut,
    lines (``drop_repeated_lines``) and blocks given twice given once, a cookie notice's
    lines cut, and the spec blocks it dropped added after it."""
    markdown = drop_repeated_blocks(drop_repeated_lines(drop_footer_lines(markdown, doc)))
    markdown = drop_cookie_lines(markdown)
    return "\n\n".join([markdown, *missing_specs(doc, markdown)])
