"""A forum page's text when no structured reader took it: trafilatura's, with a reply it gave
twice given once (``drop_repeated_lines``), or the page's own summary when a script renders
the thread (``page_description``); its comment sections kept only on a page that declares
a thread (``declares_thread``). Product pages use the first too (``shop``).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

THREAD_TYPE = "DiscussionForumPosting"


def declares_thread(ld_types: frozenset[str], item_types: tuple[str, ...]) -> bool:
    """Whether the page says it is a discussion thread (schema.org ``DiscussionForumPosting``
    in its JSON-LD, lowercased ``ld_types``, or its microdata ``item_types``). There the
    replies may sit in containers named like comment sections and are the thread's posts;
    on a forum page without it, a comment list under one post (a CMS's "Replies" block) is
    that post's comments, as on an article. trafilatura draws the same line from the
    JSON-LD, which tamis's hidden-text cut removes before trafilatura reads the tree."""
    return THREAD_TYPE.lower() in ld_types or any(
        value.rstrip("/").endswith(THREAD_TYPE) for value in item_types)


REPEAT_MIN_CHARS = 40
REPEAT_SCAN_CHARS = 200_000
_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")


def drop_repeated_lines(markdown: str) -> str:
    """Lines of ``REPEAT_MIN_CHARS`` or more whose text was already given, left out. trafilatura
    with comments gives a reply twice when it took the reply for the main text too (a thread
    of nested comments: link aggregators). Code blocks are left as they are."""
    seen = ""  # the lines kept so far, one a line: a bounded scan (``REPEAT_SCAN_CHARS``)
    out = []
    in_code = False
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            in_code = not in_code
        key = " ".join(line.split())
        if not in_code and len(key) >= REPEAT_MIN_CHARS and len(seen) < REPEAT_SCAN_CHARS:
            if key in seen:
                continue
            seen += key + "\n"
        out.append(line)
    return "\n".join(out)


_CUT_MARK = re.compile(r"\s*(\.\.\.|…|&hellip;)$")  # the summary's own "cut here" mark
DESCRIPTION_PATHS = ("//meta[@property='og:description']/@content",
                     "//meta[@name='twitter:description']/@content",
                     "//meta[@name='description']/@content")


def page_description(doc: HtmlElement) -> str:
    """The longest of the page's own summaries (``og:description``, ``twitter:description``,
    ``description``), whitespace folded. A thread a script renders (Discourse's app shell)
    has no post in its HTML, and these carry the opening post's first paragraphs."""
    found = [" ".join(value.split()) for path in DESCRIPTION_PATHS for value in doc.xpath(path)]
    return _CUT_MARK.sub("", max(found, key=len, default=""))
