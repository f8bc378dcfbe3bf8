"""Docs and article pages: the article path's and docs readers' rules, on small pieces."""

from __future__ import annotations

from tamis.extract.html import extract_page

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
