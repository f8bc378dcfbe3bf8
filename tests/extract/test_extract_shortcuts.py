"""The extraction's shortcuts give the answers of the queries they replaced: the markup
signals read once (``signals``), the menu test's word bound (``region.is_menu``), the
structured readers given ``strip_hidden``'s class values, the region reader's lazy menu
test (``html._region_instead``), ``strip_hidden``'s verdict per distinct element, and
``drop_widget_lines`` given its class and id values."""

from __future__ import annotations

from pathlib import Path

import lxml.html
import pytest

from tamis.extract.boilerplate import drop_widget_lines, names_no_widget
from tamis.extract.css import page_rules
from tamis.extract.html import REGION_RATIO, _region_instead, _tidy_region, parse
from tamis.extract.jsonld import microdata_facts
from tamis.extract.region import _LINE_MARKS, MENU_SHARE, _key, is_menu, region_markdown
from tamis.extract.signals import read_signals
from tamis.extract.structured import extract_structured
from tamis.extract.visibility import (
    PageNames,
    Verdict,
    _verdict,
    candidates,
    cut_hidden,
    hidden_elements,
    still_shown,
    strip_hidden,
)

PAGES = sorted((Path(__file__).parent / "pages").glob("*.html"))
SIGNAL_PAGES = [
    "<html><head><meta name='generator' content='Sphinx 7'><meta property='og:type' "
    "content='product'><meta property='og:type' content='article'><meta name='generator'>"
    "<meta property='article:published_time' content='2024'></head><body>"
    "<div itemtype='https://schema.org/Product'><span itemprop='price'>3</span></div>"
    "<pre>a</pre><article><pre>b</pre></article><script type='application/ld+json'>"
    '{"@type": "NewsArticle"}</script><script type="application/ld+json"></script></body>'
    "</html>",
    "<html><body><meta property='product:price:amount' content='4'><p>x</p></body></html>",
    "<div><article>one</article><article itemtype='http://schema.org/Question/'>q</article>"
    "</div>",  # a fragment: lxml returns the div, ``//`` still reads the whole document
    "<html><body><p>nothing</p></body></html>",
]


def _old_signals(doc: lxml.html.HtmlElement) -> tuple[object, ...]:
    """The queries classify and the docs readers ran before ``read_signals``."""
    return (tuple(doc.xpath("//@itemtype")),
            tuple(s.text or "" for s in doc.xpath("//script[@type='application/ld+json']")),
            tuple(doc.xpath("//meta[@name='generator']/@content")),
            tuple(doc.xpath("//meta[@property='og:type']/@content")),
            bool(doc.xpath("//meta[@property='article:published_time']")),
            bool(doc.xpath("//*[@itemprop='price'] | //meta[@property='product:price:amount']")),
            len(doc.xpath("//pre")), len(doc.xpath("//article")))


@pytest.mark.parametrize("html", SIGNAL_PAGES + [p.read_text() for p in PAGES])
def test_signals_are_the_xpath_answers(html: str) -> None:
    doc = parse(html)
    assert doc is not None
    signals = read_signals(doc)
    assert (signals.item_types, signals.ld_json, signals.generators, signals.og_types,
            signals.published_time, signals.price, signals.code_blocks,
            signals.articles) == _old_signals(doc)
    assert signals.generator == " ".join(doc.xpath("//meta[@name='generator']/@content")).lower()


def _menu_by_keys(markdown: str, doc: lxml.html.HtmlElement) -> bool:
    """``is_menu`` as it was: every link keyed, no bound first."""
    lines = [_key(_LINE_MARKS.sub("", line)) for line in markdown.split("\n")]
    lines = [line for line in lines if line]
    if len(lines) < 10:
        return False
    links = {_key(a.text_content()) for a in doc.iter("a")}
    return sum(line in links for line in lines) >= MENU_SHARE * len(lines)


NAMES = ["Running", "Basket-ball", "Sandals & Slides", "GIFT cards", "Order status!",
         "Returns", "Membership", "Size charts", "Find a store", "Help", "Sale", "ΟΔΟΣ"]


@pytest.mark.parametrize("extra", [
    "", "\nA springy foam road shoe.", "\nRunning\nHelp", "\nrunning returns",
    "\nSale Help", "\n1. Returns", "\n# Find a store", "\nSize\ncharts",
    "\n" + "\n".join(f"Line {n}" for n in range(3)),
])
def test_the_menu_bound_never_changes_the_answer(extra: str) -> None:
    links = "".join(f"<li><a href='/{n}'>{n}</a></li>" for n in NAMES)
    doc = parse(f"<html><body><ul>{links}<li><a>Size</a> <a>Line 1</a></li></ul>"
                "<p>Road shoe</p></body></html>")
    assert doc is not None
    for count in (5, 9, 10, 12):
        markdown = "\n".join(f"- {n}" for n in NAMES[:count]) + extra
        assert is_menu(markdown, doc) == _menu_by_keys(markdown, doc), (count, extra)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_structured_readers_given_the_cut_names(path: Path) -> None:
    html = path.read_text()
    plain, given = parse(html), parse(html)
    assert plain is not None and given is not None
    strip_hidden(plain)
    seen = PageNames()
    strip_hidden(given, seen=seen)
    # the values left after the cut, and more
    assert set(plain.xpath("//@class")) <= seen.classes
    assert set(plain.xpath("//@id")) <= seen.ids
    assert extract_structured(given, read_signals(given), seen) == extract_structured(plain)


def _region_eagerly(doc: lxml.html.HtmlElement, extracted: str | None,
                    ratio: float | None) -> str | None:
    """``_region_instead`` as ``_read`` had it inline: the menu test first."""
    menu = bool(extracted) and is_menu(extracted or "", doc)
    if ratio is None and not menu:
        return None
    needed = 0 if menu else (ratio or 0) * len(extracted or "")
    region = region_markdown(doc, needed)
    if region and (menu or len(region) > needed):
        region = _tidy_region(region, doc)
    return region if region and (menu or len(region) > needed) else None


MENU_PAGE = ("<html><body><nav><ul>" + "".join(f"<li><a href='/{n}'>{n}</a></li>"
                                                for n in NAMES) + "</ul></nav><main>"
             + "<p>A springy foam road shoe for long runs on hard roads.</p>" * 4
             + "<a class='btn'>Get started</a></main></body></html>")


@pytest.mark.parametrize("extracted", [
    None, "", "Short.", "\n".join(NAMES), "\n".join(NAMES[:4]),
    "A springy foam road shoe for long runs on hard roads." * 6,
])
@pytest.mark.parametrize("ratio", [None, *sorted(set(REGION_RATIO.values()))])
def test_the_lazy_menu_test_keeps_the_region_choice(extracted: str | None,
                                                    ratio: float | None) -> None:
    doc = parse(MENU_PAGE)
    assert doc is not None
    assert _region_instead(doc, extracted, ratio) == _region_eagerly(doc, extracted, ratio)


RULED_PAGE = (
    "<html><head><style>a { color: #fff } .promo { display: none } #x { opacity: 0 }"
    " p.note { background: #fff } @media (min-width: 768px) { .promo { display: block } }"
    "</style></head><body style='background: #fff'><a href='/'>one</a><a href='/' "
    "class='promo'>two</a><a id='x' href='/'>three</a><p class='note' style='color: #fff'>"
    "four</p><p class='note'>five</p><p class='note' style='color: #000'>six</p>"
    "<div class='promo' style='display: block'>seven</div><div class='promo'>eight</div>"
    "</body></html>")


@pytest.mark.parametrize("html", [RULED_PAGE, *(p.read_text() for p in PAGES)])
def test_one_verdict_per_tag_id_class_and_style(html: str) -> None:
    """strip_hidden judges each (tag, id, class, style) once a page: every candidate with
    those values gets, judged alone, the verdict the first of them got."""
    doc = parse(html)
    assert doc is not None
    rules = page_rules(doc)
    first: dict[tuple[object, ...], Verdict] = {}
    for el in candidates(doc, rules):
        if not isinstance(el.tag, str):
            continue
        key = (el.tag, el.get("id"), el.get("class"), el.get("style"))
        alone = _verdict(el, rules, el.get("style"), {})
        assert first.setdefault(key, alone) == alone
    assert first or html is not RULED_PAGE


WIDGET_PAGE = (
    "<html><body><article><h1>Title</h1><p>The story's first paragraph.</p>"
    "<div class='author-bio'><p>Jo writes here.</p></div><p>The story goes on.</p></article>"
    "</body></html>")


@pytest.mark.parametrize("html", [WIDGET_PAGE, RULED_PAGE, *(p.read_text() for p in PAGES)])
@pytest.mark.parametrize(("camel_case", "on_region"), [(True, False), (False, False),
                                                        (True, True)])
def test_widget_lines_given_the_cut_names(html: str, camel_case: bool, on_region: bool,
                                          ) -> None:
    """drop_widget_lines given strip_hidden's class and id values (it returns the text as
    it is when none names a widget) drops the lines it drops without them."""
    doc = parse(html)
    assert doc is not None
    seen = PageNames()
    strip_hidden(doc, seen=seen)
    text = "\n".join(" ".join(el.text_content().split()) for el in doc.iter("h1", "p", "li"))
    alone = drop_widget_lines(text, doc, camel_case, on_region)
    assert drop_widget_lines(text, doc, camel_case, on_region, names=seen) == alone
    if html is WIDGET_PAGE:
        assert "Jo writes here." not in alone and not names_no_widget(seen, True, False)


MICRODATA_PAGE = (  # the root is an item; the cut takes a product card and an offer
    "<html itemscope itemtype='https://schema.org/WebPage'><body>"
    "<div itemscope itemtype='https://schema.org/Product'><h1 itemprop='name'>Mug</h1>"
    "<p itemprop='description'>A speckled mug.</p><span itemprop='price'>3</span></div>"
    "<div hidden itemscope itemtype='https://schema.org/Product'><h3 itemprop='name'>Jug</h3>"
    "<p itemprop='description'>A tall jug.</p></div><section style='display:none'>"
    "<div itemscope itemtype='https://schema.org/Offer'><b itemprop='price'>4</b></div>"
    "</section></body></html>")


@pytest.mark.parametrize("html", [MICRODATA_PAGE, *SIGNAL_PAGES, *(p.read_text() for p in PAGES)])
def test_microdata_from_the_cuts_walk(html: str) -> None:
    """The microdata elements the cut's walk lists give the product facts of the uncut page
    and the signals of the cut one that the queries over the whole tree give."""
    walked, queried = parse(html), parse(html)
    assert walked is not None and queried is not None
    seen = PageNames()
    doomed = hidden_elements(walked, seen)
    whole = walked.getparent() is None  # a fragment's caller runs the queries
    facts = microdata_facts(queried)
    assert not whole or microdata_facts(walked, seen.microdata) == facts
    cut_hidden(walked, doomed)
    strip_hidden(queried)
    signals = read_signals(queried)
    assert not whole or read_signals(walked, still_shown(seen.microdata, walked)) == signals
    if html is MICRODATA_PAGE:
        assert facts is not None and facts.name == "Mug" and signals.item_types == (
            "https://schema.org/WebPage", "https://schema.org/Product")
