"""Content a page streams in after its shell: React's streamed server rendering, put in place.

A React 18+ server (Next.js, GitBook, Vercel-built sites) sends the page's shell first, with
a ``<template id="B:n">`` (or ``P:n``) where a part still loading goes, then the part
itself later in the document, in ``<div hidden id="S:n">``, followed by a script call that
moves it into place: ``$RC("B:n","S:n")`` (a completed boundary: its loading fallback,
up to the ``<!--/$-->`` comment, goes) or ``$RS("S:n","P:n")`` (a segment). A browser runs
the call at once and shows the part where the template was; without this step the part is
``hidden`` and cut with the hidden text (docs lose their code blocks, shops their specs).

``place_streamed`` makes those moves on the parsed page, in the order of the calls, before
hidden text is cut: only a ``hidden`` element whose id a call names, and only when both
ends of the call exist. What a moved part hides inside itself is still cut afterwards.
"""

from __future__ import annotations

import re

import lxml.etree
from lxml.html import HtmlElement

# $RC("B:0","S:0") and $RS("S:0","P:0"): React's inline runtime, the ids of both ends
_CALL = re.compile(r"\$R([CS])\(\s*\"([A-Za-z]:[0-9a-z]+)\"\s*,\s*\"([A-Za-z]:[0-9a-z]+)\"\s*\)")
_END_COMMENT = "/$"


def _calls(doc: HtmlElement) -> list[tuple[str, str, str]]:
    found = []
    # the scripts matched by tag in C: an XPath test of their text walked the whole page
    for script in doc.getroottree().getroot().iter("script"):
        text = script.text or ""
        if "$R" in text:
            found.extend(_CALL.findall(text))
    return found


def _append_text(parent: HtmlElement, before: HtmlElement | None, text: str) -> None:
    """Add ``text`` where it reads just before ``before`` among ``parent``'s children."""
    if not text:
        return
    previous = before.getprevious() if before is not None else None
    if previous is not None:
        previous.tail = (previous.tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _put_in_place(target: HtmlElement, part: HtmlElement, keep_tail: bool) -> None:
    """Replace ``target`` by the content of ``part`` (text and children); ``part`` goes."""
    parent = target.getparent()
    if parent is None:
        return
    _append_text(parent, target, part.text or "")
    for child in list(part):
        target.addprevious(child)
    if keep_tail:
        _append_text(parent, target, target.tail or "")
    parent.remove(target)
    holder = part.getparent()
    if holder is not None:
        _append_text(holder, part, part.tail or "")
        holder.remove(part)


def _drop_fallback(template: HtmlElement) -> None:
    """The loading fallback a completed boundary replaces: the siblings after its template
    up to the boundary's ``<!--/$-->`` comment (kept only when that comment is found)."""
    doomed = []
    for sibling in template.itersiblings():
        if sibling.tag is lxml.etree.Comment and (sibling.text or "").strip() == _END_COMMENT:
            for node in doomed:  # with their tails: the fallback's text
                template.getparent().remove(node)
            return
        doomed.append(sibling)


def place_streamed(doc: HtmlElement) -> int:
    """Move each streamed part into its place (see the module); the count of parts moved."""
    calls = _calls(doc)
    if not calls:
        return 0
    by_id = {el.get("id"): el for el in doc.xpath("//template[@id] | //*[@hidden][@id]")}
    moved = 0
    for kind, first, second in calls:
        target_id, part_id = (first, second) if kind == "C" else (second, first)
        target, part = by_id.get(target_id), by_id.get(part_id)
        if target is None or part is None or part.get("hidden") is None \
                or target.tag != "template" or target.getparent() is None:
            continue
        if kind == "C":
            _drop_fallback(target)
        _put_in_place(target, part, keep_tail=kind == "S")
        moved += 1
    return moved
