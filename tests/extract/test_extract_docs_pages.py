"""Docs pages: streamed parts put in place, headings given back, button links and docs
chrome cut — each rule on a small piece of markup."""

from __future__ import annotations

from tamis.extract.docs import drop_button_lines, restore_headings
from tamis.extract.html import extract_page, parse
from tamis.extract.region import drop_docs_chrome
from tamis.extract.streamed import place_streamed
from tamis.extract.visibility import strip_hidden

FILLER = "".join(f"<p>Paragraph {n} explains how the guide's functions compose and why "
                 "pure functions help.</p>" for n in range(8))


def _streamed_page(script: str) -> str:
    return ("<html><body><main><h1>Guide</h1>" + FILLER
            + "<p>The code is also available as an npm module:</p>"
            "<!--$?--><template id='B:3'></template><p>Loading the code…</p><!--/$-->"
            "<p>Alternatively, run the exercises in your browser.</p></main>"
            "<div hidden id='S:3'><pre><code>$ npm i @guide/support</code></pre></div>"
            + script + "</body></html>")


def test_a_streamed_part_is_shown_where_its_template_was() -> None:
    page = extract_page(_streamed_page("<script>$RC(\"B:3\",\"S:3\")</script>"),
                        "https://guide.example.org/book")
    text = page.markdown
    assert "npm i @guide/support" in text and "Loading the code" not in text
    assert text.index("npm module") < text.index("npm i @guide") < text.index("Alternatively")


def test_a_hidden_part_no_script_moves_stays_hidden() -> None:
    page = extract_page(_streamed_page(""), "https://guide.example.org/book")
    assert "npm i @guide/support" not in page.markdown


def test_a_streamed_segment_replaces_its_placeholder() -> None:
    doc = parse("<html><body><div><p>Before</p><template id='P:1'></template><p>After</p>"
                "</div><div hidden id='S:1'>Lead text <b>bold</b> tail</div>"
                "<script>$RS(\"S:1\",\"P:1\")</script></body></html>")
    assert doc is not None
    assert place_streamed(doc) == 1
    strip_hidden(doc)
    assert " ".join(" ".join(doc.itertext()).split()) == "Before Lead text bold tail After"


def test_a_heading_named_hide_from_toc_is_not_docs_chrome() -> None:
    doc = parse("<html><body><div class='toc'><a href='#h'>Hello</a></div><article>"
                "<h3 class='hide-from-toc'>Hello, world!</h3><p>Follow this codelab.</p>"
                + FILLER + "</article></body></html>")
    assert doc is not None
    drop_docs_chrome(doc)
    assert "Hello, world!" in doc.text_content()
    assert not doc.xpath("//div[@class='toc']")


DOCBOOK = ("<html><body><nav><h2>Navigation</h2><p>Home Docs Download About Policies</p>"
           "</nav><div id='docContent'><h2>Synopsis</h2><pre>SELECT expression\n"
           "    FROM from_item</pre><h2>Description</h2><p><code>SELECT</code> retrieves rows "
           "from zero or more tables.</p><h3>Dropped section</h3><p>This paragraph never "
           "made it into the text.</p><h3><code>WHERE</code> Clause<a href='#w'>#</a></h3>"
           "<p>The optional WHERE clause has the general form</p></div></body></html>")
LOST_HEADINGS = ("```\nSELECT expression\n    FROM from_item\n```\n\n"
                 "`SELECT` retrieves rows from zero or more tables.\n\n"
                 "The optional WHERE clause has the general form")


def test_headings_trafilatura_left_out_are_put_back_before_their_text() -> None:
    doc = parse(DOCBOOK)
    assert doc is not None
    restored = restore_headings(LOST_HEADINGS, doc)
    assert restored.split("\n") == [
        "## Synopsis", "", "```", "SELECT expression", "    FROM from_item", "```", "",
        "## Description", "", "`SELECT` retrieves rows from zero or more tables.", "",
        "### WHERE Clause", "", "The optional WHERE clause has the general form"]


def test_headings_the_text_has_are_not_added_twice() -> None:
    doc = parse(DOCBOOK)
    assert doc is not None
    kept = ("## Synopsis\n\n```\nSELECT expression\n    FROM from_item\n```\n\n"
            "**Description**\n`SELECT` retrieves rows from zero or more tables.")
    assert restore_headings(kept, doc) == kept


BUTTONS = ("<html><body><main><h1>Get started</h1><div class='card'><h3>Hello, world!</h3>"
           "<p>Follow this introductory codelab.</p><a class='button button-primary' "
           "href='/codelab'>Start codelab</a></div><div class='card'><h3>Compose</h3><p>Build "
           "interfaces.</p><a class='btn' href='/compose'>Learn more</a></div><p>Read "
           "<a class='button-link' href='/faq'>the FAQ</a> next.</p><h2>Learn more</h2>"
           "<p>Learn more is also this section's name.</p></main></body></html>")


def test_lines_that_are_a_button_links_text_go() -> None:
    doc = parse(BUTTONS)
    assert doc is not None
    markdown = ("## Hello, world!\n\nFollow this introductory codelab.\n\nStart codelab\n\n"
                "## Compose\n\nBuild interfaces.\n\nRead the FAQ next.\n\n## Learn more\n\n"
                "Learn more is also this section's name.")
    kept = [line for line in drop_button_lines(markdown, doc).split("\n") if line]
    assert "Start codelab" not in kept  # a call to action
    assert "Read the FAQ next." in kept  # a sentence that holds a button link stays
    assert "## Learn more" in kept  # the page has the text outside its buttons too


def test_a_code_listing_in_a_figure_is_kept_without_its_hidden_lines() -> None:
    # mdBook: each listing is a <figure>, which trafilatura drops whole; span.boring lines
    # are hidden until the reader asks for them
    html = ("<html><body><main><h1>Traits</h1>" + FILLER
            + "<figure class='listing'><span class='file-name'>Filename: src/lib.rs</span>"
            "<pre><code class='language-rust'><span class='boring'>use std::fmt;\n</span>"
            "impl Summary for Tweet {}\n</code></pre><figcaption>Listing 10-3: an impl"
            "</figcaption></figure><p>Then the trait is in scope.</p></main></body></html>")
    page = extract_page(html, "https://example.org/docs/book/ch10-02-traits.html")
    assert page.page_type == "documentation"
    assert "impl Summary for Tweet {}" in page.markdown
    assert "Filename: src/lib.rs" in page.markdown and "Listing 10-3" in page.markdown
    assert "use std::fmt;" not in page.markdown


def test_sibling_spans_do_not_glue_two_words() -> None:
    html = ("<html><body><main><h1>The Charge object</h1>" + FILLER
            + "<ul><li><h4><span><span>amount</span></span><span>integer</span></h4>"
            "<p>Amount intended to be collected.</p></li><li><h4><span>currency</span>"
            "<span>enum</span></h4><p>Three-letter ISO code.</p></li></ul><p>Code stays: "
            "<code><span>foo</span><span>bar</span></code>.</p></main></body></html>")
    page = extract_page(html, "https://docs.example.com/api/charges")
    assert page.page_type == "documentation"
    assert "amount integer" in page.markdown and "currency enum" in page.markdown
    assert "foobar" in page.markdown


SPHINX = ("<html><head><meta name='generator' content='Sphinx 7.2'></head><body><main>"
          "<div class='version-switcher'><ul class='language-switcher doc-switcher'><li>"
          "<a href='/zh-hans/'>zh-hans</a></li><li><a href='/pt-br/'>pt-br</a></li></ul>"
          "<ul class='doc-switcher' id='doc-versions'><li>5.0</li><li>dev</li></ul></div>"
          "<h1>Middleware<a class='headerlink' href='#m'>¶</a></h1><p>Middleware is a "
          "framework of hooks.</p><div class='highlight'><pre>MIDDLEWARE = []</pre></div>"
          "<div class='page-feedback'><p>Was this page helpful?</p></div>"
          "<a class='backtotop' href='#top'>Back to Top</a><p>Version history lists "
          "what changed.</p></main></body></html>")


def test_a_docs_readers_text_leaves_out_pickers_feedback_and_back_to_top() -> None:
    page = extract_page(SPHINX, "https://docs.example.org/en/5.1/ref/middleware/")
    assert page.method == "sphinx"
    assert "Middleware is a framework of hooks." in page.markdown
    assert "Version history lists what changed." in page.markdown
    for widget in ("zh-hans", "pt-br", "dev", "Was this page helpful", "Back to Top"):
        assert widget not in page.markdown


def test_trafilaturas_docs_text_leaves_out_a_feedback_box() -> None:
    html = ("<html><body><main><h1>Services</h1>" + FILLER
            + "<div class='feedback-box'><p>Was this page helpful? Tell us how we did "
            "with this page.</p></div>" + FILLER.replace("Paragraph", "Section")
            + "</main></body></html>")
    page = extract_page(html, "https://example.org/docs/concepts/services/")
    assert (page.page_type, page.method) == ("documentation", "trafilatura")
    assert "Section 7 explains" in page.markdown
    assert "Was this page helpful" not in page.markdown


def test_the_main_region_text_of_a_landing_page_loses_its_button_lines() -> None:
    # "promo-bar": trafilatura drops a block whose class holds "bar"; the region keeps it
    cards = "".join(f"<div class='promo-bar'><h3>Feature {n}</h3><p>Feature {n} ships builds in "
                    f"seconds from every push.</p><a class='btn btn-primary' href='/f{n}'>"
                    "Learn more</a></div>" for n in range(6))
    html = ("<html><body><main><h1>Deploy faster</h1><p>One platform.</p>" + cards
            + "</main></body></html>")
    page = extract_page(html, "https://www.example.com/")
    assert page.method == "region"
    assert "Feature 5 ships builds in seconds" in page.markdown
    assert "Learn more" not in page.markdown
