"""Docs and article pages: the article path's and docs readers' rules, on small pieces."""

from __future__ import annotations

from tamis.extract.boilerplate import drop_widget_lines
from tamis.extract.html import extract_page, parse
from tamis.extract.region import region_markdown

FILLER = "".join(f"<p>Paragraph {n} explains the rewrite module and how its directives run "
                 "in order.</p>" for n in range(8))


def test_italics_inside_inline_code_keep_the_sentence_after_them() -> None:
    # trafilatura loses the text after <code><i>..</i></code> (nginx-style argument markup)
    html = ("<html><head><title>Rewrite</title></head><body><article><h1>Rewrite</h1>"
            f"{FILLER}<p>The specified <code><i>condition</i></code> is evaluated. If true,"
            " the directives inside the braces are executed.</p></article></body></html>")
    page = extract_page(html, "https://docs.example.org/docs/rewrite.html")
    assert page.method == "trafilatura"
    assert "is evaluated. If true, the directives inside the braces" in page.markdown
    assert "condition" in page.markdown


def test_a_pre_with_bold_children_comes_out_as_one_code_block() -> None:
    html = ("<html><body><article><h1>Config</h1>" + FILLER
            + "<pre>server {\n    listen <b>80</b>;\n    root /srv/www;\n}</pre>"
            "<p>Reload the server after the change.</p></article></body></html>")
    page = extract_page(html, "https://docs.example.org/docs/config.html")
    assert page.method == "trafilatura"
    assert "listen 80;" in page.markdown and "**80**" not in page.markdown
    assert "```" in page.markdown


def test_html_comments_neither_print_nor_cut_text() -> None:
    # Lit marks nodes with comments inside headings; React separates text nodes with <!-- -->
    html = ("<html><body><article><h1>Promise</h1>" + FILLER
            + "<h2 id='d'><!--lit-node 1--><a href='#d'>Description</a></h2>"
            "<p>A promise is a <!-- -->proxy for a value.</p>" + FILLER
            + "</article></body></html>")
    page = extract_page(html, "https://docs.example.org/docs/promise")
    assert page.method == "trafilatura"
    assert "## Description" in page.markdown and "lit-node" not in page.markdown
    assert "A promise is a proxy for a value." in page.markdown


def test_a_sphinx_theme_without_div_body_is_read_from_main() -> None:
    code = ("<div class='highlight-python notranslate'><div class='highlight'><pre>"
            "form = NameForm()\n\nform.is_valid()</pre></div></div>")
    html = ("<html><body><div class='sidebar' role='complementary'><ul><li>Version 4.2</li>"
            "</ul></div><main id='main-content'><article><h1>Working with forms"
            "<a class='headerlink' href='#w'>¶</a></h1><p>Forms take input.</p>" + code
            + "<h2>Bound forms<a class='headerlink' href='#b'>¶</a></h2><p>A bound form has"
            " data.</p>" + code + "</article></main></body></html>")
    page = extract_page(html, "https://docs.example.org/en/5.1/topics/forms/")
    assert page.method == "sphinx"
    assert "```python\nform = NameForm()\n\nform.is_valid()\n```" in page.markdown
    assert "¶" not in page.markdown and "Version 4.2" not in page.markdown


STORY = "".join(f"<p>Paragraph {n} of the story about physical security and what changes in "
                "the next decade for operators.</p>" for n in range(10))


def test_an_article_loses_the_author_bio_trafilatura_keeps_in_its_container() -> None:
    html = ("<html><head><meta property='og:type' content='article'></head><body><article>"
            "<h1>T</h1><div class='entry-content'>" + STORY + "<div class='author-bio-box'>"
            "<h3>Jeffrey Smith</h3><p>Jeffrey Smith is a risk consultant with twenty years in"
            " the trade.</p></div></div></article></body></html>")
    page = extract_page(html, "https://news.example.com/2025/03/strategist")
    assert (page.page_type, page.method) == ("article", "trafilatura")
    assert "Paragraph 9 of the story" in page.markdown
    assert "Jeffrey Smith" not in page.markdown and "risk consultant" not in page.markdown


def test_widget_lines_go_unless_the_page_holds_them_elsewhere() -> None:
    doc = parse("<html><body><div class='sidebar-toc'><a href='#why'>Why listen to us?</a>"
                "</div><article><h1>T</h1><h2 id='why'>Why listen to us?</h2><p>Because.</p>"
                "<div class='share-bar'><span>Share this article</span></div>"
                "<div class='newsletter'><p>Get the weekly letter.</p></div></article>"
                "</body></html>")
    assert doc is not None
    markdown = ("# T\n\n## Why listen to us?\n\nBecause.\n\nShare this article\n\n"
                "**Get the weekly letter.**")
    kept = drop_widget_lines(markdown, doc)
    assert [line for line in kept.split("\n") if line] == [
        "# T", "## Why listen to us?", "Because."]


def test_a_region_too_short_to_win_is_not_converted() -> None:
    doc = parse("<html><body><main><h1>Plans</h1><p>" + "Nightly backups. " * 20
                + "</p></main></body></html>")
    assert doc is not None
    whole = region_markdown(doc)
    assert whole.startswith("# Plans") and region_markdown(doc, needed=len(whole) - 1) == whole
    assert region_markdown(doc, needed=10 * len(whole)) == ""


PLANS = "".join(f"<p>Paragraph {n} of the page about our repair plans and what each plan "
                "covers for owners.</p>" for n in range(10))


def test_a_landing_page_loses_the_promo_box_trafilatura_keeps() -> None:
    # a terms or landing page (typed service) with a shop's promo box in its container
    html = ("<html><head><title>Plans</title></head><body><main><h1>Repair plans</h1>"
            "<div class='page-content'>" + PLANS + "<div class='promo-box'><h3>Free "
            "shipping</h3><p>Get free standard shipping on orders over $40 in every region."
            "</p></div></div></main></body></html>")
    page = extract_page(html, "https://www.example.com/pages/repair-plans")
    assert (page.page_type, page.method) == ("service", "trafilatura")
    assert "Paragraph 9 of the page" in page.markdown
    assert "free standard shipping" not in page.markdown


def test_a_camel_case_widget_name_is_split_into_words() -> None:
    # styled-components and CSS modules name boxes StyledAuthorContainer, not author-box
    html = ("<html><head><meta property='og:type' content='article'></head><body><article>"
            "<h1>T</h1><div class='entry-content'>" + STORY + "<div class='Styles__Styled"
            "AuthorContainer-sc-1x2y'><h3>Jeffrey Smith</h3><p>Jeffrey Smith is a risk "
            "consultant with twenty years in the trade.</p></div></div></article></body></html>")
    page = extract_page(html, "https://news.example.com/2025/03/strategist")
    assert (page.page_type, page.method) == ("article", "trafilatura")
    assert "Paragraph 9 of the story" in page.markdown
    assert "risk consultant" not in page.markdown


def test_a_landing_page_keeps_its_camel_case_cta_cells() -> None:
    html = ("<html><head><title>Plans</title></head><body><main><h1>Repair plans</h1>"
            "<div class='page-content'>" + PLANS + "<div class='grid-module__block stories-"
            "module__ctaCell'><p>Owners saw repair times fall from seven days to two after "
            "switching.</p></div></div></main></body></html>")
    page = extract_page(html, "https://www.example.com/pages/repair-plans")
    assert (page.page_type, page.method) == ("service", "trafilatura")
    assert "repair times fall from seven days to two" in page.markdown


CHECKLIST = ("<html><head><meta property='og:type' content='article'></head><body><main>"
             "<h1>Car checklist</h1><p>Keep your car in shape with these checks.</p><ul>"
             + "".join(f"<li><a href='/c{n}'>Check {n}: the tyre pressure every month</a></li>"
                       for n in range(40))
             + "</ul><div class='share-bar'><ul><li><a href='/f'>Share on Facebook</a></li>"
             "<li><a href='/e'>Share by Email</a></li></ul></div><div id='more-related-text'>"
             + "".join(f"<p>Long paragraph {n} on what a shop may recommend for a service, and"
                       " why the owner's manual is the better guide for fluids, filters and "
                       "parts that are not worn out yet, whatever the shop's own printed list "
                       "says.</p>" for n in range(3))
             + "</div><div class='cta-banner'><h3>Book a free inspection</h3><p>Our mechanics "
             "check forty points in an hour.</p></div></main></body></html>")


def test_an_articles_region_text_loses_its_widgets_not_its_prose() -> None:
    # on the main region's text of an article: the share bar goes; the story's last
    # paragraphs, in a box named for related articles, stay; so does a call to action
    doc = parse(CHECKLIST)
    region = region_markdown(doc)
    text = drop_widget_lines(region, doc, on_region=True)
    assert "Check 39: the tyre pressure" in text
    assert "Share on Facebook" not in text
    assert "Long paragraph 2 on what a shop" in text
    assert "check forty points in an hour" in text


def test_an_article_whose_region_adds_a_list_of_links_keeps_trafilaturas_text() -> None:
    # the region is far longer, but by a list of links (issue 31): not more of the story
    page = extract_page(CHECKLIST, "https://www.example.com/cars/checklist-a123/")
    assert (page.page_type, page.method) == ("article", "trafilatura")
    assert "Long paragraph 2 on what a shop" in page.markdown
    assert "Check 39" not in page.markdown and "Share on Facebook" not in page.markdown
