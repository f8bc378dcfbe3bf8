"""Only what a browser would show: hidden elements are cut from the parsed page, and counted.

An element goes, with everything inside it (its tail text stays), when

- it is ``<template>``, ``<noscript>`` (counted under their names), ``<script>`` or
  ``<style>`` (not counted), or carries ``hidden`` / ``aria-hidden="true"`` (``aria-hidden``);
- its inline ``style`` or a rule of the page's own ``<style>`` for a simple selector
  (``tag``, ``.class``, ``#id``, ``tag.class``, lists of them; rules inside ``@media`` and
  other at-rules are not applied) says ``display:none`` (``display``),
  ``visibility:hidden|collapse`` (``visibility``), ``opacity:0`` (``opacity``), a zero
  ``font-size`` (``font-size``), a clipped box (``clip: rect(0...)``, ``clip-path:
  inset(50%)``, or a box of at most 1px with ``overflow:hidden``: the screen-reader-only
  pattern, ``clipped``), a position or text indent of -999px or more off screen
  (``off-screen``), or a text colour equal to the background colour it declares or
  inherits from a declared ancestor (``same-colour``).

An element hidden by ``display``, ``opacity``, ``visibility``, a zero ``font-size`` (set on a
row of inline blocks whose children set their own size: the whitespace hack) or a clipped
or zero-size box (a window a script animates open) that holds more than a tenth
(``REVEALED_SHARE``) of the page's text stays: pages fade their main content in with a
script, or defer a product description or a service list until a script has run, and a
browser shows it. (Measured on the WCXB dev pages: a half missed such blocks on shop and
service pages.) Such a block must also hold at least ``REVEALED_MIN_CHARS`` characters and
no sentence addressed to an AI (``injections.find``): a planted instruction on a page with
little visible text is over a tenth of it, and is still cut.
A closed tab of the ARIA tabs pattern stays: a ``role="tabpanel"`` that a ``role="tab"``
of the page names in ``aria-controls``, hidden by ``hidden``, ``aria-hidden`` or
``display``, is content its tab shows on a click (docs put each platform's steps in one),
unless it holds a sentence addressed to an AI. Its ``hidden``, ``aria-hidden`` and
``style`` attributes go, so that the readers keep it too.
A phone's copy of a block, hidden on a desktop screen by a CSS framework's class names
(``tamis.extract.responsive``), goes too (``not-on-desktop``).
A class that a ``@media`` rule shows again (Tailwind's ``hidden md:block``) keeps the
element: it is visible on a desktop screen.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml.etree import Element
from lxml.html import HtmlElement

from tamis.extract.css import StyleRules, declarations, page_rules, style_verdict
from tamis.extract.responsive import hidden_on_desktop

DROP_TAGS = ("template", "noscript", "script", "style")
REVEALED = frozenset({"display", "opacity", "visibility", "clipped", "font-size"})
REVEALED_SHARE = 0.1
REVEALED_MIN_CHARS = 400
TAB_REASONS = frozenset({"hidden", "aria-hidden", "display"})
HIDING_ATTRIBUTES = frozenset({"style", "hidden", "aria-hidden"})
def _page_chars(root: HtmlElement) -> int:
    """Characters of text in ``root``, without the code of its scripts and styles."""
    code = sum(len(el.text or "") for el in root.iter("script", "style"))
    return len(root.text_content()) - code


def _revealed(text: str, whole: int) -> bool:
    """A hidden block a script shows: a large share of the page, and nothing in it that
    speaks to an AI."""
    from tamis.extract.injections import find

    return (len(text) > REVEALED_SHARE * whole and len(text.strip()) >= REVEALED_MIN_CHARS
            and not find(text))


def tab_panels(doc: HtmlElement) -> set[HtmlElement]:
    """The ``role="tabpanel"`` elements that a ``role="tab"`` of the page controls
    (``aria-controls``): the ARIA tabs pattern, whose closed panels a click shows."""
    controlled = {name for value in doc.xpath("//*[@role='tab']/@aria-controls")
                  for name in value.split()}
    if not controlled:
        return set()
    return {el for el in doc.xpath("//*[@role='tabpanel'][@id]") if el.get("id") in controlled}


def _speaks_to_ai(el: HtmlElement) -> bool:
    from tamis.extract.injections import find

    return bool(find(el.text_content()))


@dataclass
class PageNames:
    """The class and id attribute values a walk of the page met, and its microdata: the
    elements with an ``itemtype`` or ``itemprop`` attribute, in page order (the page type's
    signals and a shop's product facts read them: no query over the whole tree of their
    own)."""

    classes: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)
    microdata: list[HtmlElement] = field(default_factory=list)


def candidates(doc: HtmlElement, rules: StyleRules, seen: PageNames | None = None,
               ) -> Iterator[HtmlElement]:
    """In document order, the elements that can be hidden or declare a colour: those with
    ``hidden``, ``aria-hidden`` or ``style``, those of a tag the page's rules name, and
    those whose class value hides them on a desktop (``responsive``) or holds a class the
    rules name, or whose id the rules name. (A Python walk with a verdict per distinct
    class value measured faster than lxml's XPath over the tree.) ``seen``, when given,
    gets every class and id value of the walk, once it is over, and its microdata."""
    tags, names = rules.tags, rules.names
    verdicts: dict[str, bool] = {}  # every class value of the walk, judged once
    ids = seen.ids if seen is not None else None
    microdata = seen.microdata if seen is not None else None
    for el in doc.iter(Element):
        # one call lists the attribute names: most elements have none of those read here;
        # the tag is read only when the page's rules name a tag
        keys = el.keys()
        if not keys:
            if tags and el.tag in tags:
                yield el
            continue
        if microdata is not None and ("itemprop" in keys or "itemtype" in keys):
            microdata.append(el)
        verdict = False
        if "class" in keys:
            classes = el.get("class")
            verdict = verdicts.get(classes)
            if verdict is None:
                verdict = verdicts[classes] = hidden_on_desktop(classes) or bool(
                    names and any(name in names for name in classes.split()))
        if "id" in keys:
            ident = el.get("id")
            if ids is not None:
                ids.add(ident)
            verdict = verdict or bool(names and ident in names)
        if verdict or not HIDING_ATTRIBUTES.isdisjoint(keys) or (tags and el.tag in tags):
            yield el
    if seen is not None:
        seen.classes.update(verdicts)


Verdict = tuple[str | None, str | None, str | None]  # (hiding reason, background, colour)


def _verdict(el: HtmlElement, rules: StyleRules, inline: str | None,
             by_style: dict[str, Verdict]) -> Verdict:
    """What the page's rules and the inline style ``inline`` say of ``el`` (a function of
    its tag, id, class and style values)."""
    if not rules.may_match(el):  # no rule of the page applies: the inline style alone
        if not inline:
            return None, None, None
        verdict = by_style.get(inline)
        if verdict is None:
            verdict = by_style[inline] = style_verdict(declarations(inline))
        return verdict
    decl = rules.for_element(el)
    if inline:
        decl = {**decl, **declarations(inline)}
    verdict = style_verdict(decl)
    if verdict[0] == "display" and not inline and rules.reshown(el):
        verdict = (None, *verdict[1:])  # a @media rule shows it on a desktop
    return verdict


def strip_hidden(doc: HtmlElement, keep: frozenset[str] = frozenset(),
                 seen: PageNames | None = None) -> Counter[str]:
    """Remove from ``doc`` (in place) what a browser would not show; counts by reason.
    ``seen``, when given, gets every class and id value the page had before the cut (those
    left after it, and more: enough to tell that a class or an id is nowhere)."""
    return cut_hidden(doc, hidden_elements(doc, seen), keep)


Doomed = list[tuple[HtmlElement, str]]  # (element, why a browser would not show it)


def hidden_elements(doc: HtmlElement, seen: PageNames | None = None) -> Doomed:
    """What ``strip_hidden`` would cut, judged by one walk of ``doc`` and nothing cut yet
    (``cut_hidden`` cuts it): a reader of the uncut page (the product facts of its
    microdata) can use what the walk met (``seen``) in between."""
    rules = page_rules(doc)
    doomed: list[tuple[HtmlElement, str]] = [(el, el.tag) for el in doc.iter(*DROP_TAGS)]
    backgrounds: dict[HtmlElement, str | None] = {}
    # Pages repeat a few inline styles on many elements: each is read once
    by_style: dict[str, Verdict] = {}
    by_element: dict[tuple[str, str | None, str | None, str | None], Verdict] = {}
    for el in candidates(doc, rules, seen):
        tag = el.tag
        if not isinstance(tag, str) or tag in DROP_TAGS:
            continue
        get = el.get
        if get("hidden") is not None and tag != "input":
            doomed.append((el, "hidden"))
            continue
        if (get("aria-hidden") or "").strip().lower() == "true":
            doomed.append((el, "aria-hidden"))
            continue
        classes = get("class")
        if classes and hidden_on_desktop(classes):
            doomed.append((el, "not-on-desktop"))  # a phone's copy (tamis.extract.responsive)
            continue
        inline = get("style")
        # the verdict depends on the tag, id, class and style values only: pages repeat
        # them (a rule for ``a`` makes every link a candidate), each is judged once
        key = (tag, get("id"), classes, inline)
        verdict = by_element.get(key)
        if verdict is None:
            verdict = by_element[key] = _verdict(el, rules, inline, by_style)
        reason, background, text_colour = verdict
        if reason:
            doomed.append((el, reason))
            continue
        if background:
            backgrounds[el] = background
        if text_colour and text_colour != "transparent":
            declared = background
            if declared is None:
                for ancestor in el.iterancestors():
                    if ancestor in backgrounds:
                        declared = backgrounds[ancestor]
                        break
            if declared == text_colour:
                doomed.append((el, "same-colour"))
    return doomed


def cut_hidden(doc: HtmlElement, doomed: Doomed, keep: frozenset[str] = frozenset(),
               ) -> Counter[str]:
    """Cut ``hidden_elements``'s ``doomed`` from ``doc`` (in place) but what a script or a
    tab shows (see the module), and the reasons in ``keep``; counts by reason."""
    counts: Counter[str] = Counter()
    removed: set[HtmlElement] = set()
    panels = tab_panels(doc) if any(  # only a panel's own role can make it one
        r in TAB_REASONS and el.get("role") == "tabpanel" for el, r in doomed) else set()
    whole = -1  # the page's characters, counted when a hidden block may be revealed
    for el, reason in doomed:
        if reason in keep:
            continue
        if reason in REVEALED:
            if whole < 0:
                body = doc.find("body")
                whole = _page_chars(body if body is not None else doc)
            if _revealed(el.text_content(), whole):
                continue  # much of the page hidden: a script fades it in, as a browser shows
        if el in panels and reason in TAB_REASONS and not _speaks_to_ai(el):
            for name in ("hidden", "aria-hidden", "style"):  # readers drop them too
                el.attrib.pop(name, None)
            continue  # a tab's panel: one click shows it
        if any(a in removed for a in el.iterancestors()):
            continue
        if el.getparent() is None:
            continue
        removed.add(el)
        if el.tag not in ("script", "style"):
            counts[reason] += 1
        el.drop_tree()
    return counts


def still_shown(elements: list[HtmlElement], doc: HtmlElement) -> list[HtmlElement]:
    """Those of ``elements`` (in their order) that are still in ``doc``'s page after the
    cut: not in a subtree it cut, whose top has no parent."""
    root = doc.getroottree().getroot()
    kept = []
    for el in elements:
        top = deque(el.iterancestors(), maxlen=1)  # its last ancestor
        if (top[0] if top else el) is root:
            kept.append(el)
    return kept


def describe(counts: Counter[str]) -> str | None:
    """``hidden text removed: 2 display, 1 aria-hidden`` or None when nothing was."""
    if not counts:
        return None
    parts = ", ".join(f"{n} {reason}" for reason, n in sorted(counts.items()))
    return f"hidden elements removed: {parts}"
