"""Whether the main-region reader may replace trafilatura's text on a page that is an article.

The main-region reader (``region``) wins back the headings, cards and feature lists that
trafilatura drops on landing, listing and shop pages. On a news or blog article the same
region also holds the page's chrome around the story: bylines, "related" and "latest"
lists, teasers, comment threads, sidebars. There trafilatura's reading is the better one,
and the region replaces it only on the page's own evidence that trafilatura lost part of
the body.

A page is read as an article (``is_article``) when tamis typed it so, or when it says it is
a dated or authored piece: an author in its meta data (``<meta name="author">``,
``article:author``), a JSON-LD article type, a comment section (a class or id word
``comment`` or ``comments``), a date in its URL (``/2019/10/21/``, ``/2022/``) or a
dateline (a short line with a date: ``31.05.2012``, ``26. Jan 2022``, ``May 31, 2012``,
``2020-01-02``) in the first lines of its text or of its title on. Landing and listing
pages rarely carry any of them (measured on the WCXB dev pages where the region reader
wins: 4 in 61 carry one besides tamis's type). A docs page or a forum thread is never one:
their own readers and rules apply.

On such a page, the region replaces trafilatura's text (``region_verdict``) only when

- trafilatura's text is mostly link text (``LINK_SHARE``): it kept a list of links, not a
  body; or
- the region holds more of the body: paragraphs (``PROSE_CHARS`` or more, not a link's
  text) that trafilatura left out, inside the smallest element holding
  (``BODY_SHARE`` of) trafilatura's own paragraphs, adding up to ``EXTRA_MIN_CHARS`` and
  ``EXTRA_SHARE`` of trafilatura's text. Teasers, comments and sidebars sit outside the
  story's element; the paragraphs of the story that trafilatura missed sit inside it.

A region that does not hold the story never replaces it: comments follow the story on a
discussion page (``comment_thread``), never replace it. On an article, link lists are not
text (``drop_link_runs``), nor are headings with nothing under them
(``drop_empty_sections``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from tamis.extract.region import PageLinks, RegionConverter, _key

AUTHORED_CLASS = re.compile(r"(?:^|[\s_-])comments?(?:$|[\s_-])")  # whole words
DATE_IN_URL = re.compile(
    r"/(?:19|20)\d\d(?:[/-](?:0?[1-9]|1[0-2]))?(?:[/-]|$)"
    r"|(?<!\d)(?:19|20)\d\d(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])(?!\d)")
# 31.05.2012, 2012-05-31, 31. Mai 2012, 26 Jan. 2022, 4 de mayo de 2022, May 31, 2012,
# 2020年1月2日
DATE_IN_TEXT = re.compile(
    r"\b\d{1,2}[./-] ?\d{1,2}[./-] ?(?:19|20)\d\d\b|\b(?:19|20)\d\d[-/.]\d{1,2}[-/.]\d{1,2}\b"
    r"|\b\d{1,2}\.? (?:de )?[^\W\d_]{3,12}\.?,? (?:de )?(?:19|20)\d\d\b"
    r"|\b[^\W\d_]{3,12}\.? \d{1,2}(?:st|nd|rd|th)?,? (?:19|20)\d\d\b|(?:19|20)\d\d年\d{1,2}月")
# a docs page's JSON-LD says TechArticle, a forum thread is dated and authored: their own
# readers and rules apply
NOT_ARTICLES = frozenset({"documentation", "forum"})
DATE_WITHIN_CHARS = 300
DATE_LINE_CHARS = 80  # a dateline or byline, not a sentence of the body that names a day
LINK_SHARE = 0.5
PROSE_CHARS = 100
BODY_SHARE = 0.9
EXTRA_MIN_CHARS = 300
EXTRA_SHARE = 0.5
_MARKS = re.compile(r"^[\s#>*\-\d.|]+")
_BLOCKS = ("p", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "dd", "blockquote", "pre")


def has_comment_section(classes: set[str], ids: set[str]) -> bool:
    return any(AUTHORED_CLASS.search(value.lower()) for value in (*classes, *ids))


def is_article(page_type: str, authored: bool, classes: set[str], ids: set[str],
               url: str | None, text: str) -> bool:
    """Whether the page is read as an article (see the module): ``authored``, the page's
    meta data names an author or its JSON-LD an article type; ``classes`` and ``ids``, the
    page's class and id values; ``text``, the reader's markdown (its first lines hold the
    date). The cheap tests first."""
    if page_type in NOT_ARTICLES:
        return False
    return (page_type == "article" or authored or bool(url and DATE_IN_URL.search(url))
            or has_comment_section(classes, ids)
            or is_dated(text))


def _opening(text: str) -> str:
    """The first ``DATE_WITHIN_CHARS`` of the markdown, and as many from its title on (the
    first level-one heading, when it has one)."""
    start = text.find("\n# ") + 1
    opening = text[:DATE_WITHIN_CHARS]
    return f"{opening}\n{text[start:start + DATE_WITHIN_CHARS]}" if start else opening


def is_dated(text: str) -> bool:
    """Whether the markdown's first lines, or its first lines from its title on, hold a
    dateline (a short line with a date)."""
    return _dated(_opening(text).split("\n"))


def _dated(lines: list[str]) -> bool:
    for line in lines:
        line = " ".join(line.split())
        if line and len(line) <= DATE_LINE_CHARS and DATE_IN_TEXT.search(line):
            return True
    return False


def _lines(markdown: str) -> list[str]:
    found = []
    for raw in markdown.split("\n"):
        line = _MARKS.sub("", raw).replace("**", "").strip()
        if line:
            found.append(line)
    return found


def link_share(lines: list[str], links: set[str]) -> float:
    """The share of the lines' characters in lines that are exactly a link's text."""
    total = sum(map(len, lines))
    return sum(len(line) for line in lines if _key(line) in links) / total if total else 0.0


def body_element(region: HtmlElement, kept: set[str]) -> HtmlElement | None:
    """The deepest element under ``region`` holding ``BODY_SHARE`` of the text of its
    blocks whose text is one of the ``kept`` line keys (trafilatura's paragraphs)."""
    weight: dict[HtmlElement, int] = {}
    total = 0
    for block in region.iter(*_BLOCKS):
        key = _key(block.text_content())
        if key not in kept:
            continue
        total += len(key)
        for element in (block, *block.iterancestors()):
            weight[element] = weight.get(element, 0) + len(key)
            if element is region:
                break
    best, depth = None, -1
    for element, chars in weight.items():
        if chars >= BODY_SHARE * total:
            level = sum(1 for _ in element.iterancestors())
            if level > depth:
                best, depth = element, level
    return best


REGION, STORY, THREAD = "region", "story", "thread"


def region_verdict(doc: HtmlElement, extracted: str, region: HtmlElement,
                   page_links: PageLinks | None = None) -> str:
    """On an article, what to read (see the module): ``REGION``, the main ``region`` replaces
    trafilatura's ``extracted`` text; ``STORY``, trafilatura's text stands; ``THREAD``, the
    region is the comment thread of a discussion (``comment_thread``), which follows the
    story. ``page_links``: the page's links, read from ``doc`` when not given."""
    lines = _lines(extracted)
    links = (page_links or PageLinks(doc)).keys
    if link_share(lines, links) >= LINK_SHARE:
        return REGION
    kept = {key for key in map(_key, lines) if len(key) >= 20}
    body = body_element(region, kept) if kept else None
    if body is None:
        return THREAD if comment_thread(region, extracted) else STORY
    known = {_key(line) for line in lines}
    extra = sum(len(line) for line in _lines(RegionConverter().convert(body))
                if len(line) >= PROSE_CHARS and _key(line) not in known
                and _key(line) not in links)
    return REGION if extra >= max(EXTRA_MIN_CHARS, EXTRA_SHARE * len(extracted)) else STORY


@dataclass
class StoryGate:
    """On an article: asked with the main region before it is converted, whether it may
    replace trafilatura's text (``region_verdict``); keeps the region when it is a
    discussion's comment thread."""

    doc: HtmlElement
    extracted: str
    links: PageLinks | None = None
    thread: HtmlElement | None = None

    def __call__(self, region: HtmlElement) -> bool:
        verdict = region_verdict(self.doc, self.extracted, region, self.links)
        if verdict == THREAD:
            self.thread = region
        return verdict == REGION


# A discussion page (a story and its comment thread, Slashdot's and Hacker News's shape):
# the main region, which does not hold the story, is a comment thread this many times the
# story's length, its text this share in elements named ``comment(s)``
THREAD_RATIO = 10
THREAD_SHARE = 0.9


def comment_thread(region: HtmlElement, extracted: str) -> bool:
    """Whether the main ``region`` (without the story) is a discussion's comment thread
    beside trafilatura's story ``extracted``: the comments then follow the story, they
    never replace it."""
    chars = len(region.text_content())
    if chars < THREAD_RATIO * len(extracted):
        return False
    named = [el for el in region.iter() if isinstance(el.tag, str) and AUTHORED_CLASS.search(
        f"{el.get('class') or ''} {el.get('id') or ''}".lower())]
    outermost = set(named)
    inside = sum(len(el.text_content()) for el in named
                 if not any(a in outermost for a in el.iterancestors()))
    return inside >= THREAD_SHARE * chars


LINK_RUN = 2


def drop_link_runs(markdown: str, doc: HtmlElement, page_links: PageLinks | None = None,
                   ) -> str:
    """``markdown`` without runs of ``LINK_RUN`` or more lines in a row that are each the
    whole text of one of the page's links (``page_links``, read from ``doc`` when not
    given: a "related", "latest" or category list), nor the heading right before such a
    run."""
    lines = markdown.split("\n")
    links = (page_links or PageLinks(doc)).keys
    marks = [bool(line.strip()) and _key(_MARKS.sub("", line).replace("**", "")) in links
             for line in lines]
    doomed: set[int] = set()
    index = 0
    while index < len(lines):
        if not marks[index]:
            index += 1
            continue
        end = index
        run = [index]
        while end + 1 < len(lines) and (marks[end + 1] or not lines[end + 1].strip()):
            end += 1
            if marks[end]:
                run.append(end)
        if len(run) >= LINK_RUN:
            doomed.update(range(index, end + 1))
            before = index - 1
            while before >= 0 and not lines[before].strip():
                before -= 1
            if before >= 0 and lines[before].lstrip().startswith("#"):
                doomed.add(before)
        index = end + 1
    return "\n".join(line for i, line in enumerate(lines) if i not in doomed)


_HEADING = re.compile(r"^(#{1,6}) ")


def drop_empty_sections(markdown: str) -> str:
    """``markdown`` without the headings whose section holds no text: no line but headings
    up to the next heading of the same or a higher level, or the end. Such a heading
    introduced a list the reader left out ("Related", "Latest news", "Read more")."""
    lines = markdown.split("\n")
    levels = [len(m.group(1)) if (m := _HEADING.match(line)) else 0 for line in lines]
    doomed = set()
    for index, level in enumerate(levels):
        if not level:
            continue
        for after in range(index + 1, len(lines)):
            if levels[after] and levels[after] <= level:
                doomed.add(index)
                break
            if not levels[after] and lines[after].strip():
                break
        else:
            doomed.add(index)
    return "\n".join(line for i, line in enumerate(lines) if i not in doomed)
