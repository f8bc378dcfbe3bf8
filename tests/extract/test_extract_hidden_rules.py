"""The hidden-text cut's walk: only elements a rule, a style or an attribute can hide."""

from __future__ import annotations

from tamis.extract.html import parse
from tamis.extract.visibility import candidates, page_rules, strip_hidden

PAGE = """<!DOCTYPE html><html><head><title>Rules</title><style>
  aside { display: none }
  .promo { visibility: hidden }
  #legal { opacity: 0 }
  .dark { background-color: #000000 }
  em { color: black }
</style></head><body><main>
<p>Plain paragraph one, with no attribute at all, that stays on the page.</p>
<aside>AsideWords hidden by a rule on the aside tag.</aside>
<div class="card promo">PromoOne words hidden by the promo class.</div>
<div class="card promo">PromoTwo words: the same class value again.</div>
<div class="card">CardWords that stay: the card class is named by no rule.</div>
<p id="legal">LegalWords hidden by an id rule.</p>
<div class="dark"><p>DarkText <em>SameColourWords</em> inherits a black background.</p></div>
<div class="d-none d-lg-block">DesktopWords shown from the lg breakpoint up.</div>
<div class="d-lg-none">PhoneWords only a phone shows.</div>
<div role="tabpanel" id="lonely" hidden>LonelyPanel no tab controls.</div>
</main></body></html>"""


def test_the_walk_yields_what_can_be_hidden_in_document_order() -> None:
    doc = parse(PAGE)
    assert doc is not None
    found = [el.get("class") or el.get("id") or el.tag
             for el in candidates(doc, page_rules(doc))]
    assert found == ["aside", "card promo", "card promo", "legal", "dark", "em",
                     "d-lg-none", "lonely"]


def test_rules_on_tags_classes_and_ids_cut_their_elements() -> None:
    doc = parse(PAGE)
    assert doc is not None
    counts = strip_hidden(doc)
    text = doc.text_content()
    for gone in ("AsideWords", "PromoOne", "PromoTwo", "LegalWords", "SameColourWords",
                 "PhoneWords", "LonelyPanel"):
        assert gone not in text, gone
    for kept in ("Plain paragraph one", "CardWords", "DarkText", "DesktopWords"):
        assert kept in text, kept
    assert counts == {"display": 1, "visibility": 2, "opacity": 1, "same-colour": 1,
                      "not-on-desktop": 1, "hidden": 1}


def test_only_simple_selectors_of_a_rule_apply_and_media_shows_again() -> None:
    doc = parse("""<html><head><style>
      .menu .item, .gone, div > p { display: none }
      .wrap .inner { display: none }
      .hidden { DISPLAY: none }
      @media (min-width: 768px) { .md\\:block { Display: BLOCK } }
    </style></head><body>
      <div class="gone">GoneWords</div>
      <div class="wrap"><p class="inner">InnerWords a complex selector does not reach</p></div>
      <p class="hidden md:block">ShownWords on a desktop screen</p>
      <p class="hidden">HiddenWords</p>
    </body></html>""")
    assert doc is not None
    rules = page_rules(doc)
    assert set(rules.by_key) == {".gone", ".hidden"} and ".md:block" in rules.shown_in_media
    strip_hidden(doc)
    text = doc.text_content()
    assert "GoneWords" not in text and "HiddenWords" not in text
    assert "InnerWords" in text and "ShownWords" in text
