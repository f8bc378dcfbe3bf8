"""HTML text to the page's main text in markdown. CPU-bound: callers run it in a thread.

Order: forum threads and docs pages tamis recognises (``structured``), then trafilatura
(imported lazily: markdown out, comments dropped, headings, lists, tables and code kept),
then tamis's own converter over the page body when trafilatura finds nothing or cannot be
imported.
"""

from __future__ import annotations

import functools
import re
from types import ModuleType

import lxml.etree
import lxml.html
from lxml.html import HtmlElement

from tamis.extract.blocked import page_title
from tamis.extract.markdown import Converter
from tamis.extract.structured import extract_structured

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


def parse(text: str) -> HtmlElement | None:
    try:
        return lxml.html.fromstring(_XML_DECL.sub("", text, count=1))
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


def with_trafilatura(text: str, url: str | None) -> str | None:
    module = trafilatura_module()
    if module is None:
        return None
    try:
        result = module.extract(
            _XML_DECL.sub("", text, count=1), url=url, output_format="markdown",
            include_comments=False, include_tables=True, include_formatting=True,
            include_links=False, include_images=False, favor_recall=True, deduplicate=False,
        )
    except Exception:  # a trafilatura bug on odd markup: use tamis's own converter
        return None
    return result or None


def fallback(doc: HtmlElement) -> str:
    body = doc.find(".//body")
    root = body if body is not None else doc
    main = root.xpath(".//main | .//*[@role='main'] | .//article")
    converter = Converter(skip_classes=FALLBACK_SKIP_CLASSES, skip_tags=FALLBACK_SKIP_TAGS)
    return converter.convert(main[0] if len(main) == 1 else root)


def extract_html(text: str, url: str | None = None) -> tuple[str, str, str]:
    """(title, markdown, method); method is xenforo | discourse | phpbb | sphinx | mkdocs |
    trafilatura | fallback. The markdown is empty when the page has no text."""
    doc = parse(text)
    title = _title(doc, text)
    if doc is not None:
        found = extract_structured(doc)
        if found:
            return title, normalize(found[1]), found[0]
    extracted = with_trafilatura(text, url)
    if extracted:
        return title, normalize(extracted), "trafilatura"
    if doc is None:
        return title, "", "fallback"
    return title, normalize(fallback(doc)), "fallback"
