"""The page's own CSS, as far as hiding goes: inline declarations, the simple rules of its
``<style>`` elements (``tag``, ``.class``, ``#id``, ``tag.class``; ``@media`` blocks only
for the classes they show again), and which declarations hide an element. Read by
``visibility.strip_hidden``, whose docstring lists the reasons.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lxml.html import HtmlElement

NAMED_COLOURS = {"white": "ffffff", "black": "000000", "red": "ff0000", "blue": "0000ff",
                 "green": "008000", "yellow": "ffff00", "gray": "808080", "grey": "808080",
                 "silver": "c0c0c0", "transparent": "transparent"}

_COMMENT = re.compile(r"/\*.*?\*/", re.S)
_SIMPLE_SELECTOR = re.compile(r"^([a-zA-Z][a-zA-Z0-9]*)?([.#][\w-]+)?$")
_BRACE = re.compile(r"[{}]")
_DECL_NAME = re.compile(r"[a-z-]+")
_PX = re.compile(r"^(-?\d+(?:\.\d+)?)(px|em|rem|%|pt|vw|vh)?$")


def declarations(text: str) -> dict[str, str]:
    """``a: b; c: d`` -> {a: b, c: d}, lower-cased, without ``!important``; linear time."""
    found = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        name = name.strip().lower()
        if colon and name and len(name) <= 40 and _DECL_NAME.fullmatch(name):
            found[name] = value.strip().lower().replace("!important", "").strip()
    return found


def _length(value: str) -> float | None:
    match = _PX.match(value.strip())
    if not match:
        return None
    number = float(match.group(1))
    return number * 16 if match.group(2) in ("em", "rem") else number


def colour(value: str | None) -> str | None:
    """A CSS colour as six hex digits (or ``transparent``); None when not understood."""
    if not value:
        return None
    value = value.strip().lower().split()[0] if value.strip() else ""
    if value in NAMED_COLOURS:
        return NAMED_COLOURS[value]
    if re.fullmatch(r"#[0-9a-f]{3}", value):
        return "".join(c * 2 for c in value[1:])
    if re.fullmatch(r"#[0-9a-f]{6}", value):
        return value[1:]
    match = re.fullmatch(r"rgba?\((\d+)[ ,]+(\d+)[ ,]+(\d+)(?:[ ,/]+([\d.]+))?\)", value)
    if match:
        if match.group(4) is not None and float(match.group(4)) == 0:
            return "transparent"
        return "".join(f"{min(255, int(match.group(i))):02x}" for i in (1, 2, 3))
    return None


def hiding_reason(decl: dict[str, str]) -> str | None:
    """Why these declarations hide an element, or None."""
    if decl.get("display", "").startswith("none"):
        return "display"
    if decl.get("visibility", "") in ("hidden", "collapse"):
        return "visibility"
    opacity = decl.get("opacity")
    if opacity is not None and _length(opacity) == 0:
        return "opacity"
    size = decl.get("font-size")
    if size is not None and _length(size) == 0:
        return "font-size"
    clip = decl.get("clip", "").replace(" ", "")
    if clip.startswith("rect(0") or decl.get("clip-path", "").replace(" ", "") in (
            "inset(50%)", "inset(100%)", "circle(0)", "polygon(0000)"):
        return "clipped"
    width, height = _length(decl.get("width", "")), _length(decl.get("height", ""))
    if (width is not None and height is not None and width <= 1 and height <= 1
            and decl.get("overflow", "") == "hidden"):
        return "clipped"
    if decl.get("position") in ("absolute", "fixed"):
        for side in ("left", "top", "right"):
            offset = _length(decl.get(side, ""))
            if offset is not None and offset <= -999:
                return "off-screen"
    indent = _length(decl.get("text-indent", ""))
    if indent is not None and indent <= -999:
        return "off-screen"
    return None


@dataclass
class StyleRules:
    """The page's own simple rules: selector -> merged declarations."""

    by_key: dict[str, dict[str, str]] = field(default_factory=dict)
    shown_in_media: set[str] = field(default_factory=set)
    tags: set[str] = field(default_factory=set)
    names: set[str] = field(default_factory=set)  # class names and ids the rules mention

    def add(self, selector: str, decl: dict[str, str]) -> None:
        self.by_key.setdefault(selector, {}).update(decl)
        match = _SIMPLE_SELECTOR.match(selector)
        if match and match.group(2):
            self.names.add(match.group(2)[1:])
        elif match and match.group(1):
            self.tags.add(selector)

    def may_match(self, el: HtmlElement) -> bool:
        if el.tag in self.tags:
            return True
        if not self.names:
            return False
        ident = el.get("id")
        if ident and ident in self.names:
            return True
        return any(name in self.names for name in (el.get("class") or "").split())

    def for_element(self, el: HtmlElement) -> dict[str, str]:
        if not self.by_key:
            return {}
        tag = el.tag if isinstance(el.tag, str) else ""
        keys = [tag]
        ident = el.get("id")
        if ident:
            keys += [f"#{ident}", f"{tag}#{ident}"]
        for name in (el.get("class") or "").split():
            keys += [f".{name}", f"{tag}.{name}"]
        merged: dict[str, str] = {}
        for key in keys:
            found = self.by_key.get(key)
            if found:
                merged.update(found)
        return merged

    def reshown(self, el: HtmlElement) -> bool:
        return any(f".{name}" in self.shown_in_media for name in (el.get("class") or "").split())


# An @-block holding rules one level deep (``@media ... { a { } b { } }``), from after its
# opening brace to its closing one: matched in C instead of brace by brace
_AT_BODY = re.compile(r"(?:[^{}]*\{[^{}]*\})*[^{}]*\}")


def _strip_at_blocks(css: str) -> tuple[str, str]:
    """(top-level rules, the text of every @-block), for braces nested one level. A plain
    rule, and an @-block nested no deeper, is taken whole (``str.find``, ``_AT_BODY``);
    other text is walked brace by brace."""
    top, inner, depth, start, at, pos = [], [], 0, 0, False, 0
    while True:
        if depth == 0:
            index = css.find("{", pos)
            if index < 0:
                break
            head = css[start:index]
            at = head.lstrip().startswith("@") or "@" in head.rsplit("}", 1)[-1]
            if at:
                top.append(css[start:start + max(0, head.rfind("@"))])
                start = pos = index + 1
                body = _AT_BODY.match(css, start)
                if body:
                    inner.append(css[start:body.end() - 1])
                    start = pos = body.end()
                    at = False
                else:
                    depth = 1
                continue
            close, opening = css.find("}", index + 1), css.find("{", index + 1)
            if close >= 0 and (opening < 0 or close < opening):
                top.append(css[start:close + 1])
                start = pos = close + 1
            else:
                depth, pos = 1, index + 1
            continue
        brace = _BRACE.search(css, pos)
        if brace is None:
            break
        index, pos = brace.start(), brace.start() + 1
        if brace.group() == "{":
            depth += 1
            continue
        depth -= 1
        if depth == 0:
            if at:
                inner.append(css[start:index])
                start, at = index + 1, False
            else:
                top.append(css[start:index + 1])
                start = index + 1
        depth = max(depth, 0)
    top.append(css[start:])
    return "".join(top), "\n".join(inner)


def _rules(css: str) -> list[tuple[str, str]]:
    """(selectors, declarations) of each ``selectors { declarations }`` rule; linear time."""
    found = []
    for chunk in css.split("}"):
        selectors, brace, body = chunk.partition("{")
        if brace and "{" not in body:
            found.append((selectors.rsplit(";", 1)[-1], body))
    return found


WANTED = frozenset({"display", "visibility", "opacity", "font-size", "clip", "clip-path",
                    "width", "height", "overflow", "position", "left", "top", "right",
                    "text-indent", "color", "background", "background-color"})


def _wanted_declarations(text: str) -> dict[str, str]:
    """``declarations(text)``, of the ``WANTED`` properties only: the value of any other
    (most of a style sheet's) is not read."""
    found = {}
    for part in text.split(";"):
        name, colon, value = part.partition(":")
        name = name.strip().lower()
        if colon and name in WANTED:
            found[name] = value.strip().lower().replace("!important", "").strip()
    return found


def page_rules(doc: HtmlElement) -> StyleRules:
    rules = StyleRules()
    for style in doc.iter("style"):
        css = _COMMENT.sub("", style.text or "")
        if not css.strip():
            continue
        top, media = _strip_at_blocks(css) if "@" in css else (css, "")
        for selectors, body in _rules(top):
            simple = [selector for selector in map(str.strip, selectors.split(","))
                      if selector and _SIMPLE_SELECTOR.match(selector)]
            if not simple:  # only simple selectors are applied: no declarations to read
                continue
            wanted = _wanted_declarations(body)
            if not wanted:
                continue
            for selector in simple:
                rules.add(selector.lower() if selector[0].isalpha() else selector, wanted)
        for selectors, body in _rules(media):
            if "display" not in body.lower():
                continue
            display = declarations(body).get("display", "")
            if display and not display.startswith("none"):
                for selector in selectors.split(","):
                    rules.shown_in_media.add(selector.strip().replace("\\:", ":"))
    return rules


def _background(decl: dict[str, str]) -> str | None:
    return colour(decl.get("background-color") or decl.get("background"))


def style_verdict(decl: dict[str, str]) -> tuple[str | None, str | None, str | None]:
    """(hiding reason, background colour, text colour) of these declarations."""
    if not decl:
        return None, None, None
    return hiding_reason(decl), _background(decl), colour(decl.get("color"))
