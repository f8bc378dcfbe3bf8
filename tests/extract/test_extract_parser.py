"""The one parse of a page: lxml.html's element API on every element, classes picked in C."""

from __future__ import annotations

import threading

import lxml.html
from lxml.html import HtmlComment, HtmlElement

from tamis.extract.html import extract_page, page_type, parse

FORM_PAGE = """<!DOCTYPE html><html><head><title>Contact the ferry office</title></head><body>
<article><h1>Contact the ferry office</h1>
<p class="lead intro">The ferry office on the north quay answers questions about timetables,
season tickets and freight bookings every weekday between eight and six.</p>
<p>Write to us with the form below, or read the <a href="/timetable">winter timetable</a>
and the <a href="https://example.org/fares">list of fares</a> first: most answers are there.</p>
<!-- a comment the readers never print -->
<form action="/send" method="post"><label for="m">Your message</label>
<input id="m" name="message" value="typed text"><select name="topic"><option>Fares</option>
</select><textarea name="more">left here</textarea><button>Send</button></form>
<p>Freight bookings need the vehicle's length and weight, and a day's notice for lorries
longer than twelve metres; passengers with bicycles need no booking.</p>
</article></body></html>"""


def test_every_element_is_a_plain_html_element() -> None:
    doc = parse(FORM_PAGE)
    assert doc is not None
    for tag in ("form", "input", "select", "textarea", "label", "p", "a"):
        element = doc.find(f".//{tag}")
        assert type(element) is HtmlElement, tag  # not lxml.html's FormElement & co
    comments = [node for node in doc.iter() if isinstance(node, HtmlComment)]
    assert len(comments) == 1


def test_the_html_element_api_still_works() -> None:
    doc = parse(FORM_PAGE)
    assert doc is not None
    lead = doc.find(".//p")
    assert lead.classes == {"lead", "intro"} and "season tickets" in lead.text_content()
    links = [link for _el, _attr, link, _pos in doc.iterlinks() if "://" in link or
             link.startswith("/")]
    assert "/timetable" in links and "https://example.org/fares" in links
    doc.find(".//form").drop_tree()
    assert doc.find(".//input") is None and "Freight bookings" in doc.text_content()


def test_a_page_with_a_form_still_extracts() -> None:
    page = extract_page(FORM_PAGE, "https://ferry.example.org/contact")
    assert page.title == "Contact the ferry office"
    assert "season tickets" in page.markdown and "twelve metres" in page.markdown
    assert "typed text" not in page.markdown and "a comment" not in page.markdown
    assert page_type(FORM_PAGE, "https://ferry.example.org/contact") == page.page_type


def test_the_same_text_as_lxml_html_default_parser() -> None:
    ours, theirs = parse(FORM_PAGE), lxml.html.fromstring(FORM_PAGE)
    assert ours is not None
    assert lxml.html.tostring(ours) == lxml.html.tostring(theirs)


def test_pages_parsed_in_threads_at_once() -> None:
    pages = [FORM_PAGE.replace("ferry office", f"ferry office {n}") for n in range(8)]
    found: dict[int, str] = {}

    def work(n: int) -> None:
        for _ in range(20):
            doc = parse(pages[n])
            assert doc is not None
            found[n] = doc.findtext(".//h1")

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == {n: f"Contact the ferry office {n}" for n in range(8)}
