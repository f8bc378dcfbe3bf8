"""Docs pages: what trafilatura's text of a docs page loses, given back, and what it keeps
that is not the page's text, cut.

- Headings (``restore_headings``). When trafilatura finds no content frame it recovers the
  page's paragraphs, code and tables one by one and leaves every heading out (DocBook pages
  such as PostgreSQL's, Hugo's docsy theme...): a reference page comes out as one run of
  text without its section names. A heading of the page that the text lacks is put back
  before the line its own following text begins, when that line is found (at least
  ``FOLLOW_WORDS`` words of it, at a line's start, after the heading before it): a heading
  whose section trafilatura dropped stays out with it.
- Code listings in a ``<figure>`` (``open_code_figures``): trafilatura drops every figure,
  and mdBook (the Rust book) and others put each listing, its file name and its caption
  in one. A figure holding a ``<pre>`` is read as a plain block. The lines mdBook hides
  in a listing until the reader asks (``span.boring``: the boilerplate around the lines
  the text is about) go, as a browser does not show them.
- Words of sibling spans (``space_adjacent_spans``): API references set a field's name and
  its type in two ``<span>``s with no space between (``id`` ``string``), which the page's
  CSS lays out apart; read as text they make one word (``idstring``). Two sibling spans
  with nothing between them, a word character on each side, outside code, get a space.
  (Measured on the WCXB dev pages of every type: the truth has the two words apart at 513
  such places, glued at 19.)
- Docs widgets (``is_docs_widget``, ``drop_docs_widgets``): feedback boxes ("Was this page
  helpful?", "Report feedback"), language and version pickers, "Back to top" links, named
  by their class or id words (split on ``-``, ``_`` and spaces): ``feedback``,
  ``switcher``, ``backtotop``, ``back`` with ``top``, or a language or version word with a
  picker word (``selection``, ``selector``, ``picker``, ``select``, ``menu``, ``list``...).
  An element holding the ``h1`` or ``WIDGET_MAX_SHARE`` of the page's text is not one.
- Button links (``drop_button_lines``): a line that is exactly the text of a link styled as
  a button (class word ``button``, ``btn`` or ``cta``: "Start codelab", "Get started") is a
  call to action, not the page's text, unless the page holds that text outside such links
  more often. Cut from a docs page's trafilatura text and from the main-region reader's
  text on every page type (``html``).
"""

from __future__ import annotations

import bisect
import re

import lxml.etree
from lxml.html import HtmlElement

from tamis.extract.boilerplate import _count
from tamis.extract.region import _key, is_furniture

HEADING_LEVELS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
HEADINGS_XPATH = "//body//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
FOLLOW_WORDS = 4
FOLLOW_CHARS = 80
ANCHOR_MARKS = " ¶#§🔗"  # a heading's permalink, printed after its text
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_WORD_SPLIT = re.compile(r"[\s_-]+")
_LINE_MARKS = re.compile(r"^\s*(?:[#>*+-]+|\d+\.|\|)\s*")


def _line_key(line: str) -> str:
    return _key(_LINE_MARKS.sub("", line.replace("\\", "")))


def _in_furniture(element: HtmlElement) -> bool:
    return any(is_furniture(a) for a in element.iterancestors() if isinstance(a.tag, str))


def _headings_with_follow(doc: HtmlElement) -> list[tuple[HtmlElement, str]]:
    """Each heading of the body, in page order, with the start of the text after it (up to
    ``FOLLOW_CHARS``, the text of later headings left out), in one walk of the page."""
    body = doc.find(".//body")
    root = body if body is not None else doc
    found: list[tuple[HtmlElement, list[str]]] = []
    open_heading: HtmlElement | None = None
    collected = 0

    def add(text: str | None) -> None:
        nonlocal collected
        if text and found and open_heading is None and collected < FOLLOW_CHARS \
                and text.strip():
            found[-1][1].append(text)
            collected += len(text)

    for event, element in lxml.etree.iterwalk(root, events=("start", "end")):
        tag = element.tag if isinstance(element.tag, str) else ""
        if event == "start":
            if tag in HEADING_LEVELS and open_heading is None:
                open_heading = element
                found.append((element, []))
                collected = 0
            elif tag:
                add(element.text)
        else:
            if element is open_heading:
                open_heading = None
            add(element.tail)
    return [(heading, " ".join(parts)) for heading, parts in found]


WIDGET_WORDS = frozenset({"feedback", "switcher", "backtotop"})
PICKED_WORDS = frozenset({"language", "languages", "lang", "locale", "version", "versions"})
PICKER_WORDS = frozenset({"selection", "selector", "picker", "select", "menu", "list",
                          "dropdown", "chooser", "switch"})
WIDGET_MAX_SHARE = 0.3
# a class or id value that may name a widget: one of the words the test needs, whole
_WIDGET_HINT = re.compile(r"(?:^|[\s_-])(?:feedback|switcher|backtotop|top|versions?|languages?"
                          r"|lang|locale)(?=$|[\s_-])")


def is_docs_widget(element: HtmlElement) -> bool:
    """A docs page's feedback box, language or version picker or back-to-top link, by its
    class and id words (see the module); the share of the page's text is not checked."""
    names = f"{element.get('class') or ''} {element.get('id') or ''}".lower()
    if not names.strip():
        return False
    words = set(_WORD_SPLIT.split(names))
    return bool(words & WIDGET_WORDS or (words & PICKED_WORDS and words & PICKER_WORDS)
                or {"back", "top"} <= words)


def drop_docs_widgets(doc: HtmlElement) -> None:
    """Cut (in place) a docs page's widgets (see the module)."""
    body = doc.find(".//body")
    ceiling = WIDGET_MAX_SHARE * len((body if body is not None else doc).text_content())
    doomed = []
    for value in doc.xpath("//@class | //@id"):  # document order, in C
        if _WIDGET_HINT.search(value.lower()):
            element = value.getparent()
            if element not in doomed and is_docs_widget(element):
                doomed.append(element)
    for el in doomed:
        if el.getparent() is not None and not el.xpath(".//h1") \
                and len(el.text_content()) < ceiling:
            el.drop_tree()


def open_code_figures(doc: HtmlElement) -> None:
    """Turn (in place) each ``<figure>`` that holds a code block into a ``<div>``, and cut
    the code lines hidden until asked for (``span.boring``)."""
    for figure in doc.xpath("//figure[.//pre]"):
        figure.tag = "div"
    for line in doc.xpath("//pre//span[contains(@class, 'boring')]"):
        if "boring" in (line.get("class") or "").split():
            line.drop_tree()


_WORD_CHAR = re.compile(r"\w")
CODE_TAGS = frozenset({"pre", "code", "kbd", "samp"})
SPACED_TAGS = ("span",)


def space_adjacent_spans(doc: HtmlElement) -> None:
    """Put (in place) a space between two sibling spans that would glue two words."""
    for span in doc.iter(*SPACED_TAGS):
        following = span.getnext()
        if span.tail or following is None or following.tag not in SPACED_TAGS:
            continue
        before, after = span.text_content(), following.text_content()
        if before and after and _WORD_CHAR.match(before[-1]) and _WORD_CHAR.match(after[0]) \
                and not any(a.tag in CODE_TAGS for a in span.iterancestors()):
            span.tail = " "


def restore_headings(markdown: str, doc: HtmlElement) -> str:
    """``markdown`` with the page's headings it lacks put back (see the module)."""
    lines = markdown.split("\n")
    headings = {_key(h.text_content()) for h in doc.xpath(HEADINGS_XPATH)} - {""}
    if headings <= {_line_key(line) for line in lines if line.lstrip().startswith("#")}:
        return markdown  # every heading is there: nothing to walk the page for
    keys: list[str] = []
    fence_start: list[int] = []  # for each line: the line its code fence opens on, or -1
    opened = -1
    for number, line in enumerate(lines):
        # a fence mark at a line's start, or (trafilatura's) at the end of a line of text
        marks = 1 if _FENCE.match(line) and "```" not in line else line.count("```")
        fence_start.append(number if opened < 0 and marks else opened)
        for _ in range(marks % 2):
            opened = number if opened < 0 else -1
        keys.append("" if _FENCE.match(line) else _line_key(line))
    is_heading = [line.lstrip().startswith("#") and fence < 0
                  for line, fence in zip(lines, fence_start, strict=True)]
    present = {key for key, heading in zip(keys, is_heading, strict=True) if heading}
    numbers = [number for number, key in enumerate(keys) if key]  # lines with words
    starts: list[int] = []  # where each of those lines begins in ``stream``
    offset = 0
    for number in numbers:
        starts.append(offset)
        offset += len(keys[number]) + 1
    stream = " ".join(keys[number] for number in numbers)
    inserts: dict[int, list[str]] = {}
    cursor = 0  # no heading goes before the line the previous one was placed at
    for heading, follow in _headings_with_follow(doc):
        title = " ".join(heading.text_content().split()).rstrip(ANCHOR_MARKS)
        title_key = _key(title)
        if not title_key or _in_furniture(heading):
            continue
        if title_key in present:
            at = _find_line(keys, is_heading, title_key, cursor)
            cursor = at if at >= 0 else cursor
            continue
        words = _key(follow).split()[:FOLLOW_WORDS * 2]
        if len(words) < FOLLOW_WORDS:
            continue
        from_entry = bisect.bisect_left(numbers, cursor)
        entry = _find_start(stream, starts, " ".join(words),
                            starts[from_entry] if from_entry < len(starts) else len(stream))
        if entry < 0:
            continue
        at = cursor = numbers[entry]
        place = fence_start[at] if fence_start[at] >= 0 else at
        previous = entry - 1 if place == at else bisect.bisect_left(numbers, place) - 1
        if previous >= 0 and keys[numbers[previous]] == title_key:
            continue  # the heading is there, as a plain or bold line
        level = HEADING_LEVELS[heading.tag]
        inserts.setdefault(place, []).append("#" * level + " " + title.replace("#", "").strip())
    if not inserts:
        return markdown
    out: list[str] = []
    for number, line in enumerate(lines):
        for heading_line in inserts.get(number, ()):
            if out and out[-1].strip():
                out.append("")
            out.extend([heading_line, ""])
        out.append(line)
    return "\n".join(out)


def _find_line(keys: list[str], is_heading: list[bool], key: str, cursor: int) -> int:
    """The first heading line from ``cursor`` on whose key is ``key``; -1 if none."""
    for number in range(cursor, len(keys)):
        if keys[number] == key and is_heading[number]:
            return number
    return -1


def _find_start(stream: str, starts: list[int], needle: str, offset: int) -> int:
    """The entry (a line with words) at whose start ``needle`` begins in ``stream`` (those
    lines' keys, one space between), at or after ``offset``; -1 when none."""
    position = stream.find(needle, offset)
    while position >= 0:
        number = bisect.bisect_right(starts, position) - 1
        if starts[number] == position:
            return number
        position = stream.find(needle, position + 1)
    return -1


BUTTON_WORDS = frozenset({"button", "btn", "cta"})


def drop_button_lines(markdown: str, doc: HtmlElement) -> str:
    """``markdown`` without the lines that are a button link's text (see the module)."""
    buttons: list[str] = []
    # the links matched by tag in C, a class without one of the words' letters skipped
    # before it is split (measured 4x faster than an XPath test of every link's class)
    for link in doc.getroottree().getroot().iter("a"):
        lowered = (link.get("class") or "").lower()
        if not ("btn" in lowered or "button" in lowered or "cta" in lowered):
            continue
        if set(_WORD_SPLIT.split(lowered)) & BUTTON_WORDS:
            key = _key(link.text_content())
            if key:
                buttons.append(key)
    if not buttons:
        return markdown
    lines = markdown.split("\n")
    keys = [_line_key(line) for line in lines]
    wanted = set(buttons) & set(keys)
    if not wanted:
        return markdown
    body = doc.find(".//body")
    page = _key(" ".join((body if body is not None else doc).itertext()))
    in_buttons = " | ".join(buttons)
    doomed = {key for key in wanted if _count(key, page) <= _count(key, in_buttons)}
    return "\n".join(line for line, key in zip(lines, keys, strict=True)
                     if key not in doomed or not line.strip())


def prepare_docs(doc: HtmlElement) -> None:
    """A docs page's tree made ready (in place) for trafilatura and the region reader: code
    figures opened, docs widgets cut, sibling spans spaced (see the module)."""
    open_code_figures(doc)
    drop_docs_widgets(doc)
    space_adjacent_spans(doc)


def docs_text(markdown: str, doc: HtmlElement) -> str:
    """A docs page's trafilatura text, tidied (see the module): headings put back, button
    links' lines cut (the main-region reader's text loses them on every page type)."""
    return drop_button_lines(restore_headings(markdown, doc), doc)
