"""A small HTML-to-markdown converter for the parts of a page tamis picks itself.

Used for forum posts and docs pages (see ``structured``) and as the fallback when trafilatura
finds nothing. Keeps headings, paragraphs, lists, quotes, tables and code blocks; code is
fenced with its language when the markup names it, and keeps its blank lines. Links keep
their text only, images are dropped: the excerpt is for reading, and every character counts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lxml.html import HtmlElement

SKIP_TAGS = frozenset({
    "script", "style", "template", "svg", "iframe", "object", "embed", "form", "button",
    "select", "input", "textarea", "canvas", "video", "audio", "img", "picture", "source",
    "head", "title", "meta", "link", "nav", "map",
})
BLOCK_TAGS = frozenset({
    "p", "div", "section", "article", "main", "header", "footer", "aside", "figure",
    "figcaption", "dl", "dt", "dd", "details", "summary", "address", "center", "fieldset",
    "li", "body", "html", "noscript", "caption", "tbody", "thead", "tfoot", "tr", "td", "th",
})
HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
NO_LANGUAGE = frozenset({"default", "none", "text", "plain", "plaintext", "notranslate",
                         "nohighlight"})
LINE_NUMBER_CLASSES = frozenset({"linenos", "lineno", "linenodiv", "line-numbers-rows"})

_BR = "\x00"
_SPACES = re.compile(r"[^\S\x00]+")
_LANG = re.compile(r"^(?:language|lang|highlight|sourcecode)-([\w+#.-]+)$")


def tag_of(element: object) -> str:
    tag = getattr(element, "tag", None)
    return tag.lower() if isinstance(tag, str) else ""


def classes(element: HtmlElement) -> set[str]:
    return set((element.get("class") or "").split())


def code_language(pre: HtmlElement) -> str:
    """The language a code block's markup names (``language-x``, Sphinx ``highlight-x``)."""
    candidates: list[HtmlElement] = [pre, *pre.iterchildren("code")]
    parent = pre.getparent()
    for _ in range(3):
        if parent is None:
            break
        candidates.append(parent)
        parent = parent.getparent()
    for element in candidates:
        lang = element.get("data-lang") or ""
        if lang and lang.lower() not in NO_LANGUAGE:
            return lang
        for name in sorted(classes(element)):
            match = _LANG.match(name)
            if match and match.group(1).lower() not in NO_LANGUAGE:
                return match.group(1)
    return ""


def code_text(element: HtmlElement) -> str:
    """Text of a code element exactly (line-number gutters dropped, ``<br>`` as newline)."""
    parts: list[str] = []

    def walk(node: HtmlElement) -> None:
        if classes(node) & LINE_NUMBER_CLASSES:
            if node.tail:
                parts.append(node.tail)
            return
        if tag_of(node) == "br":
            parts.append("\n")
        elif node.text:
            parts.append(node.text)
        for child in node:
            walk(child)
        if node is not element and node.tail:
            parts.append(node.tail)

    walk(element)
    return "".join(parts)


def fence_code(code: str, language: str = "") -> str:
    code = code.strip("\n").rstrip()
    fence = "```"
    while fence in code:
        fence += "`"
    return f"{fence}{language}\n{code}\n{fence}"


class Converter:
    """Turn an element into markdown blocks, dropping widgets by tag or class."""

    def __init__(self, skip_classes: Iterable[str] = (), skip_tags: Iterable[str] = ()) -> None:
        self.skip_classes = frozenset(skip_classes)
        self.skip_tags = SKIP_TAGS | frozenset(skip_tags)

    def convert(self, element: HtmlElement) -> str:
        return "\n\n".join(block for block in self.blocks(element) if block.strip())

    def blocks(self, element: HtmlElement) -> list[str]:
        out: list[str] = []
        inline: list[str] = []
        self._children(element, out, inline)
        self._flush(out, inline)
        return out

    def inline_text(self, element: HtmlElement) -> str:
        return " ".join(" ".join(block.split()) for block in self.blocks(element))

    def _skip(self, element: HtmlElement) -> bool:
        tag = tag_of(element)
        if not tag or tag in self.skip_tags:
            return True
        if element.get("hidden") is not None or element.get("aria-hidden") == "true":
            return True
        return bool(self.skip_classes and classes(element) & self.skip_classes)

    def _flush(self, out: list[str], inline: list[str]) -> None:
        if not inline:
            return
        lines = (_SPACES.sub(" ", line).strip() for line in "".join(inline).split(_BR))
        text = "\n".join(line for line in lines if line)
        inline.clear()
        if text:
            out.append(text)

    def _children(self, element: HtmlElement, out: list[str], inline: list[str]) -> None:
        if element.text:
            inline.append(element.text)
        for child in element:
            if not self._skip(child):
                self._node(child, out, inline)
            if child.tail:
                inline.append(child.tail)

    def _node(self, element: HtmlElement, out: list[str], inline: list[str]) -> None:
        tag = tag_of(element)
        if tag in HEADINGS:
            self._flush(out, inline)
            text = self.inline_text(element)
            if text:
                out.append("#" * HEADINGS[tag] + " " + text)
        elif tag == "pre":
            self._flush(out, inline)
            code = code_text(element)
            if code.strip():
                out.append(fence_code(code, code_language(element)))
        elif tag in ("ul", "ol"):
            self._flush(out, inline)
            block = self._list(element, ordered=tag == "ol")
            if block:
                out.append(block)
        elif tag == "blockquote":
            self._flush(out, inline)
            inner = "\n\n".join(self.blocks(element))
            if inner.strip():
                out.append("\n".join(f"> {line}".rstrip() for line in inner.split("\n")))
        elif tag == "table":
            self._flush(out, inline)
            block = self._table(element)
            if block:
                out.append(block)
        elif tag == "br":
            inline.append(_BR)
        elif tag == "hr":
            self._flush(out, inline)
        elif tag in BLOCK_TAGS:
            self._flush(out, inline)
            self._children(element, out, inline)
            self._flush(out, inline)
        elif tag in ("strong", "b"):
            text = self.inline_text(element)
            if text:
                inline.append(f"**{text}**")
        elif tag == "code":
            text = " ".join(element.text_content().split())
            if text:
                inline.append(f"`{text}`")
        else:
            self._children(element, out, inline)

    def _list(self, element: HtmlElement, ordered: bool) -> str:
        items: list[str] = []
        number = 0
        for child in element:
            if self._skip(child):
                continue
            blocks = self.blocks(child)
            if not blocks:
                continue
            number += 1
            marker = f"{number}. " if ordered else "- "
            pad = " " * len(marker)
            text = "\n".join(blocks)
            lines = text.split("\n")
            items.append("\n".join([marker + lines[0], *(pad + line if line else line
                                                          for line in lines[1:])]))
        return "\n".join(items)

    def _table(self, element: HtmlElement) -> str:
        if "highlighttable" in classes(element):  # Sphinx code with line numbers
            for pre in element.iter("pre"):
                if not any(classes(a) & LINE_NUMBER_CLASSES for a in pre.iterancestors()):
                    return fence_code(code_text(pre), code_language(pre))
        rows: list[str] = []
        for index, row in enumerate(r for r in element.iter("tr") if not self._skip(r)):
            cells = [c for c in row if tag_of(c) in ("td", "th")]
            texts = [self.inline_text(c).replace("|", "\\|") for c in cells]
            if not any(texts):
                continue
            rows.append("| " + " | ".join(texts) + " |")
            if index == 0 and cells and all(tag_of(c) == "th" for c in cells):
                rows.append("|" + " --- |" * len(cells))
        return "\n".join(rows)
