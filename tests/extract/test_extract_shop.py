"""Shop pages: reviews, recommendation strips and consent banners are not the page; JSON-LD
and Open Graph say whether a page is one product or a category."""

from __future__ import annotations

import json

from extract_support import paragraphs

from tamis.extract.html import extract_page, parse
from tamis.extract.jsonld import read_products
from tamis.extract.pagetype import classify
from tamis.extract.shop import (
    drop_cookie_lines,
    drop_footer_lines,
    drop_repeated_blocks,
    drop_shop_chrome,
    missing_specs,
    name_words,
)

DESCRIPTION = ("A hand-thrown stoneware mug with a speckled glaze. It holds twelve ounces "
               "and is safe in the dishwasher and the microwave.")
SPECS = ("<table><tr><th>Capacity</th><td>350 ml</td></tr>"
         "<tr><th>Weight</th><td>280 g</td></tr></table>")
REVIEWS = "".join(f"<p>{p}</p>" for p in paragraphs(8, seed=11))


def product_page(reviews: str) -> str:
    return ("<html><head><title>Speckled mug</title></head><body>"
            "<main><div class='product'><h1>Speckled mug</h1><p class='price'>$24.00</p>"
            f"<div class='product-description'><p>{DESCRIPTION}</p>{SPECS}</div></div>"
            f"{reviews}</main></body></html>")


def test_customer_reviews_are_cut_from_a_product_page() -> None:
    for wrapper in ("<section class='product-reviews'>{}</section>",
                    "<div id='customerReviews'>{}</div>",  # camelCase is split into words
                    "<div class='jdgm-widget'><div class='yotpo reviews'>{}</div></div>"):
        page = extract_page(product_page(wrapper.format(REVIEWS)),
                            "https://pottery.example/products/speckled-mug")
        assert page.page_type == "product"
        assert DESCRIPTION in page.markdown and "350 ml" in page.markdown
        assert paragraphs(8, seed=11)[3] not in page.markdown, wrapper


def test_a_recommendation_strip_is_cut_from_a_product_page() -> None:
    blurbs = paragraphs(6, seed=12)
    for wrapper in ("recommendations", "upsell", "recently-viewed"):
        strip = (f"<section class='{wrapper}'><h2>You may also like</h2>"
                 + "".join(f"<div class='card'><h3>Mug {n}</h3><p>{blurb}</p></div>"
                           for n, blurb in enumerate(blurbs)) + "</section>")
        page = extract_page(product_page(strip),
                            "https://pottery.example/products/speckled-mug")
        assert DESCRIPTION in page.markdown
        assert blurbs[2] not in page.markdown, wrapper


def test_the_product_block_and_a_described_review_block_stay() -> None:
    doc = parse("<html><body><div class='product-reviews-wrap'><h1>Mug</h1></div>"
                "<div class='description reviews'>Press: the best mug of the year.</div>"
                "<div class='user-reviews'>I love it.</div></body></html>")
    assert doc is not None
    assert drop_shop_chrome(doc) == 1
    text = doc.text_content()
    assert "Mug" in text and "Press" in text and "I love it" not in text


def test_a_listing_keeps_its_reviews_and_loses_its_consent_banner() -> None:
    doc = parse("<html><body><div id='onetrust-consent-sdk'><p>These cookies allow us to "
                "count visits.</p></div><div class='reviews'>Ten app reviews</div>"
                "</body></html>")
    assert doc is not None
    drop_shop_chrome(doc, product=False)
    assert doc.text_content() == "Ten app reviews"


def test_class_words_split_on_separators_and_camel_case() -> None:
    doc = parse("<html><body><div id='appReviewsAll' class='game_area-x preview'>x</div>"
                "</body></html>")
    assert doc is not None
    div = doc.find(".//div")
    assert name_words(div) == {"app", "reviews", "all", "game", "area", "x", "preview"}


def _ld(*items: dict[str, object]) -> str:
    return ("<script type='application/ld+json'>"
            + json.dumps({"@context": "https://schema.org", "@graph": list(items)})
            + "</script>")


def _page(head: str) -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs(3, seed=5))
    return f"<html><head>{head}</head><body><h1>Title</h1>{body}</body></html>"


def test_json_ld_products_type_a_page_although_the_scripts_are_cut() -> None:
    one = {"@type": "ProductGroup", "name": "Runner 41", "hasVariant": [
        {"@type": "Product", "name": f"Runner 41 size {n}"} for n in range(8)]}
    many = [{"@type": "Product", "name": f"Lamp {n}"} for n in range(5)]
    listed = {"@type": "ItemList", "itemListElement": [
        {"@type": "ListItem", "position": 1, "url": "https://x.example/a"}]}
    assert extract_page(_page(_ld(one)), "https://x.example/runner").page_type == "product"
    assert extract_page(_page(_ld(*many)), "https://x.example/lamps").page_type == "collection"
    assert extract_page(_page(_ld(listed)), "https://x.example/dinner").page_type == "listing"
    doc = parse(_page(_ld(listed)))
    assert doc is not None and read_products(doc).types == frozenset({"itemlist", "listitem"})


def test_og_type_product_group_is_a_category_not_a_product() -> None:
    group = parse(_page("<meta property='og:type' content='product.group'>"))
    item = parse(_page("<meta property='og:type' content='product'>"))
    assert classify(group, "https://x.example/headphones") == "collection"
    assert classify(item, "https://x.example/headphones-x1") == "product"


SYSREQ = ("<ul><li>Minimum:</li><li>OS: Windows 10</li><li>Processor: 1.7 GHz</li>"
          "<li>Memory: 4 GB RAM</li><li>Storage: 15 GB available space</li></ul>")


def test_spec_blocks_the_text_lacks_are_given_back() -> None:
    doc = parse("<html><body><main><h1>Game</h1><p>A game about hats.</p>"
                f"<div class='sysreq'>{SYSREQ}</div>{SPECS}"
                "<ul><li>Fun</li><li>Hats</li><li>Maps</li></ul>"  # not labelled: no spec
                "<div class='site-footer'><table><tr><td>Shipping</td><td>Free</td></tr>"
                "<tr><td>Returns</td><td>30 days</td></tr></table></div>"
                "</main></body></html>")
    assert doc is not None
    found = missing_specs(doc, "# Game\n\nA game about hats.\n\n| Capacity | 350 ml |\n"
                               "| Weight | 280 g |")
    assert found == ["- Minimum:\n- OS: Windows 10\n- Processor: 1.7 GHz\n"
                     "- Memory: 4 GB RAM\n- Storage: 15 GB available space"]
    assert "Capacity" in "\n".join(missing_specs(doc, "A game about hats."))
    assert not any("Returns" in block or "Hats" in block
                   for block in missing_specs(doc, ""))


def test_a_product_page_keeps_its_system_requirements() -> None:
    page = extract_page(product_page(f"<div class='sysreq'>{SYSREQ}</div>"),
                        "https://games.example/products/hats")
    assert "Processor: 1.7 GHz" in page.markdown and DESCRIPTION in page.markdown


def test_screen_reader_only_text_is_cut_from_a_category_page() -> None:
    doc = parse("<html><body><h1>Sofas</h1><div class='card'><h3>Lounge sofa</h3>"
                "<span class='price'>$799</span><span class='sr-only'>Price $799, was "
                "$999</span><span class='visually-hidden'>Rated 4.5 of 5</span></div>"
                "<span class='a-offscreen x'>$12.99</span></body></html>")
    assert doc is not None
    assert drop_shop_chrome(doc, product=False) == 3
    assert doc.text_content() == "SofasLounge sofa$799"


def test_buyer_feedback_on_the_seller_is_cut_from_a_product_page() -> None:
    comments = paragraphs(8, seed=13)
    feedback = ("<section class='x-feedback-detail-list'><h2>Seller feedback (7,310)</h2><ul>"
                + "".join(f"<li>Verified purchase. {c}</li>" for c in comments) + "</ul></section>")
    page = extract_page(product_page(feedback), "https://pottery.example/products/speckled-mug")
    assert page.page_type == "product"
    assert DESCRIPTION in page.markdown
    assert comments[3] not in page.markdown


def test_lines_only_the_footer_holds_are_cut_from_a_product_page() -> None:
    signup = ("Enter your email for ten percent off your first order, plus the latest pottery "
              "news and studio stories from our little workshop by the sea.")
    footer = (f"<div class='site-newsletter'><p>{signup}</p></div>")
    page = extract_page(product_page(footer), "https://pottery.example/products/speckled-mug")
    assert page.page_type == "product"
    assert DESCRIPTION in page.markdown
    assert signup not in page.markdown


def test_drop_footer_lines_keeps_text_the_page_also_holds_outside_its_footer() -> None:
    doc = parse("<html><body><main><h1>Mug</h1><p>Free shipping over $50</p></main>"
                "<footer><p>Free shipping over $50</p><p>Call us any day.</p></footer>"
                "</body></html>")
    assert doc is not None
    text = drop_footer_lines("# Mug\n\nFree shipping over $50\n\nCall us any day.", doc)
    assert text == "# Mug\n\nFree shipping over $50\n"


def test_editorial_reviews_are_the_publishers_text_and_stay() -> None:
    blurb = paragraphs(3, seed=21)
    editorial = ("<div id='editorialReviews_feature_div'><h2>Editorial Reviews</h2>"
                 + "".join(f"<p>{p}</p>" for p in blurb) + "</div>")
    page = extract_page(product_page(editorial + f"<div class='reviews'>{REVIEWS}</div>"),
                        "https://books.example/products/speckled-mug")
    assert page.page_type == "product"
    assert blurb[1] in page.markdown
    assert paragraphs(8, seed=11)[3] not in page.markdown


def test_a_product_block_a_page_renders_twice_is_given_once() -> None:
    sticky = ("<div class='sticky-buy'><h3>Speckled mug</h3><p>$24.00</p>"
              "<ul><li>EUR: 22.10</li><li>GBP: 19.30</li><li>CAD: 33.00</li></ul></div>")
    page = extract_page(product_page(sticky + sticky),
                        "https://pottery.example/products/speckled-mug")
    assert page.markdown.count("GBP: 19.30") == 1
    assert page.markdown.count(DESCRIPTION) == 1


def test_drop_repeated_blocks_keeps_short_blocks_and_first_copies() -> None:
    prices = "- EUR: 22.10\n- GBP: 19.30\n- CAD: 33.00"
    text = f"# Mug\n\n$24\n\n{prices}\n\nText.\n\n$24\n\n{prices}"
    assert drop_repeated_blocks(text) == f"# Mug\n\n$24\n\n{prices}\n\nText.\n\n$24"


def test_term_and_definition_rows_without_a_dl_are_a_spec_block() -> None:
    rows = "".join(f"<div class='r'><dt role='term'>{k}:</dt>&#160;<dd role='definition'>{v}"
                   "</dd></div>" for k, v in (("Collar", "Turn-down collar"),
                                              ("Fastening", "Zip"), ("Pockets", "Chest pocket")))
    doc = parse("<html><body><main><h1>Jacket</h1><p>A faux leather jacket.</p>"
                f"<div class='details'>{rows}<div><button>More</button></div></div>"
                "<div><div><span>Alone</span></div><div><dt>Only a term</dt></div></div>"
                "</main></body></html>")
    assert doc is not None
    assert missing_specs(doc, "# Jacket\n\nA faux leather jacket.") == [
        "- Collar: Turn-down collar\n- Fastening: Zip\n- Pockets: Chest pocket"]


def test_a_cookie_notice_without_a_class_word_is_cut_from_a_product_page() -> None:
    notice = ("Pottery uses cookies to enhance site functionality and analyze traffic. By using "
              "our site, you agree to our cookie use.")
    banner = f"<div class='fixed bottom-6 z-50 rounded-lg'><p>{notice}</p><button>OK</button></div>"
    page = extract_page(product_page(banner), "https://pottery.example/products/speckled-mug")
    assert DESCRIPTION in page.markdown
    assert notice not in page.markdown
    terms = "ACCEPTANCE OF THE PRIVACY & COOKIE POLICY IS REQUIRED TO PLAY."
    assert drop_cookie_lines(f"{terms}\n{notice}") == terms
