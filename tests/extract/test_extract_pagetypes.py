"""Landing, listing and shop-category pages keep their headings, cards and feature lists."""

from __future__ import annotations

from tamis.extract.html import extract_page, parse
from tamis.extract.region import is_furniture, is_menu, main_region, region_markdown

CARDS = "".join(
    f"<div class='card'><h3>{name}</h3><p>{blurb}</p><ul><li>{a}</li><li>{b}</li></ul>"
    f"<a class='btn' href='/{name.lower()}'>Learn more</a></div>"
    for name, blurb, a, b in [
        ("Backups", "Nightly snapshots kept for ninety days.", "Point-in-time restore",
         "Encrypted at rest"),
        ("Monitoring", "Alerts before your users notice.", "Latency dashboards",
         "Pager rotation"),
        ("Migrations", "Move a cluster without downtime.", "Dry-run reports",
         "Rollback plan"),
    ])
LANDING = (
    "<html><head><title>Managed Postgres</title></head><body>"
    "<div id='cookie-banner'><p>We use cookies to improve your experience. Accept all?</p>"
    "</div><header class='site-header'><a href='/'>Acme</a><ul><li>Pricing</li>"
    "<li>Careers</li></ul></header><nav><a href='/'>Home</a> <a href='/blog'>Blog</a></nav>"
    "<main><section class='hero'><h1>Managed Postgres for busy teams</h1>"
    "<p>We run your databases so that you can ship features.</p></section>"
    f"<section class='features'><h2>What we do</h2>{CARDS}</section>"
    "<section class='newsletter'><p>Subscribe to our newsletter for monthly tips.</p>"
    "</section></main>"
    "<footer><p>Copyright Acme Inc. Imprint. Privacy policy.</p></footer></body></html>")


def test_a_landing_page_keeps_its_cards_and_lists_without_the_furniture() -> None:
    page = extract_page(LANDING, "https://acme.example/")
    assert page.page_type == "service"
    assert page.method == "region"
    for kept in ("# Managed Postgres for busy teams", "### Monitoring", "Pager rotation",
                 "Move a cluster without downtime.", "- Rollback plan"):
        assert kept in page.markdown
    for furniture in ("cookies", "Careers", "Blog", "Copyright", "newsletter"):
        assert furniture not in page.markdown


def test_furniture_is_matched_by_whole_words_of_class_and_id() -> None:
    doc = parse("<html><body><div class='site-footer'>a</div><div class='footnote'>b</div>"
                "<div id='main_menu'>c</div><div role='navigation'>d</div>"
                "<header><h1>Title</h1></header><header>logo</header></body></html>")
    assert doc is not None
    found = {el.text_content(): is_furniture(el) for el in doc.iter("div", "header")}
    assert found == {"a": True, "b": False, "c": True, "d": True, "Title": False,
                     "logo": True}


def test_an_article_trafilatura_reads_well_stays_with_trafilatura() -> None:
    body = "".join(f"<p>Paragraph {n} of the article text, long enough to be its body.</p>"
                   for n in range(15))
    html = (f"<html><head><title>T</title></head><body><article><h1>Heading</h1>{body}"
            "</article><aside><p>Related: ten other stories you may like today.</p></aside>"
            "</body></html>")
    page = extract_page(html, "https://news.example/2024/05/story")
    assert (page.page_type, page.method) == ("article", "trafilatura")


def test_without_main_the_named_content_container_is_the_region() -> None:
    cards = "".join(f"<li><h3>Plan {n}</h3><p>Plan {n} has {n} seats.</p></li>"
                    for n in range(1, 7))
    html = ("<html><body><div class='top-links'><p>Sign in or register to continue now.</p>"
            "<p>Free shipping on orders over fifty pounds this week.</p></div>"
            f"<div id='page-content'><h1>Plans</h1><ul>{cards}</ul></div></body></html>")
    doc = parse(html)
    assert doc is not None
    assert main_region(doc).get("id") == "page-content"
    text = region_markdown(doc)
    assert "### Plan 6" in text and "Sign in" not in text and "Free shipping" not in text


def test_a_category_page_loses_its_filter_panel_and_drawers() -> None:
    items = "".join(f"<li class='product-tile'><h3>Helmet model {n}</h3><p>${40 + n}</p></li>"
                    for n in range(1, 9))
    html = ("<html><body><main><h1>Bike helmets</h1>"
            "<div class='search-filters'><h2>Filters</h2><ul><li>Argyle</li><li>Dots</li>"
            "</ul></div><div class='cart-drawer'><p>Your basket is empty today.</p></div>"
            f"<ul class='grid'>{items}</ul></main></body></html>")
    doc = parse(html)
    assert doc is not None
    text = region_markdown(doc)
    assert "### Helmet model 8" in text and "$48" in text
    assert "Filters" not in text and "Argyle" not in text and "basket" not in text


def test_a_text_made_of_the_site_menus_is_a_menu() -> None:
    names = ["Running", "Basketball", "Sandals & Slides", "Gift cards", "Order status",
             "Returns", "Membership", "Size charts", "Find a store", "Help", "Sale"]
    doc = parse("<html><body><ul>" + "".join(f"<li><a href='/{n}'>{n}</a></li>"
                                              for n in names) + "</ul><p>Road shoe</p></body>"
                "</html>")
    assert doc is not None
    menu = "\n".join(f"- {n}" for n in names)
    assert is_menu(menu, doc)
    assert not is_menu(menu + "\n\nA springy foam road shoe.\n\nIt weighs 280 g.\n\nNew", doc)
    assert not is_menu("\n".join(names[:5]), doc)  # too short to judge


def test_a_docs_page_loses_its_chapter_list() -> None:
    chapters = "".join(
        f"<li class='chapter'>{n}. <a href='/book/{n}'>Chapter {n}</a><ol>"
        + "".join(f"<li>{n}.{m} <a href='/book/{n}/{m}'>Chapter section {n}{m}</a></li>"
                  for m in range(1, 6)) + "</ol></li>" for n in range(1, 4))
    body = "".join(f"<p>Branching paragraph {n}: a branch is a movable pointer to a commit, "
                   f"and switching branches moves HEAD to another one.</p>" for n in range(8))
    html = ("<html><head><title>Branches</title></head><body><div id='content'>"
            "<h1>Branches in a nutshell</h1><p>To see how Git branches, look at how it"
            " stores its data: as a series of snapshots, each commit pointing to its tree.</p>"
            f"<div class='column-left'><ol class='book-toc'>{chapters}</ol></div>"
            f"{body}</div></body></html>")
    page = extract_page(html, "https://book.example/docs/branching")
    assert page.page_type == "documentation"
    assert "Branching paragraph 7" in page.markdown
    assert "Chapter section" not in page.markdown


def _related_cards(n: int) -> str:
    return "".join(f"<article class='card'><h3>Other story {i}</h3><p>Teaser {i}.</p></article>"
                   for i in range(n))


def test_json_ld_article_type_makes_an_article_though_scripts_are_cut() -> None:
    # six related-story cards tie with og:type article; the page's own JSON-LD says it is
    # an article, and it is read before the hidden-text cut drops every script
    body = "".join(f"<p>Paragraph {n} of the story, long enough to be its body.</p>"
                   for n in range(12))
    ld = '<script type="application/ld+json">{"@context": "https://schema.org", ' \
         '"@type": "NewsArticle", "headline": "A story"}</script>'
    html = (f"<html><head><meta property='og:type' content='article'>{ld}</head><body>"
            f"<main><h1>A story</h1>{body}</main>"
            f"<section>{_related_cards(6)}</section></body></html>")
    assert extract_page(html, "https://example.org/a-story").page_type == "article"
    without = html.replace(ld, "")
    assert extract_page(without, "https://example.org/a-story").page_type == "listing"


def test_an_open_graph_publication_time_tips_a_tie_to_article() -> None:
    meta = ("<meta property='og:type' content='article'>"
            "<meta property='article:published_time' content='2025-03-01T08:00:00Z'>")
    html = (f"<html><head>{meta}</head><body><main><h1>Sourdough</h1><p>Mix flour and water."
            f"</p></main><section>{_related_cards(7)}</section></body></html>")
    assert extract_page(html, "https://example.org/sourdough/").page_type == "article"
    no_time = html.replace("<meta property='article:published_time' content="
                           "'2025-03-01T08:00:00Z'>", "")
    assert extract_page(no_time, "https://example.org/sourdough/").page_type == "listing"
