"""Articles keep trafilatura's reading unless the page shows it lost part of the story
(``tamis.extract.articles``, issue 31): link lists are not text, comments never replace the
body, a page is never empty when a reader can find its text."""

from __future__ import annotations

from tamis.extract.articles import REGION, STORY, drop_link_runs, is_article, region_verdict
from tamis.extract.html import extract_page, parse
from tamis.extract.region import main_region


def story(n: int, word: str = "Paragraph") -> str:
    return "".join(f"<p>{word} {i} tells how the harbour crews rebuilt the north pier after "
                   "the storm, plank by plank, and what the town paid for it over two "
                   "winters.</p>" for i in range(n))


TEASERS = ("<section class='related-stories'><h2>Latest news</h2>" + "".join(
    f"<div class='card'><h3><a href='/s{i}'>Council story {i}</a></h3><p>Teaser {i}: the "
    "council met again on Tuesday and argued for three hours about the budget of the new "
    "ferry line, without a vote.</p></div>" for i in range(10)) + "</section>")


def page(head: str, top: str = "", extra: str = TEASERS) -> str:
    return (f"<html><head><title>The pier</title>{head}</head><body><main><h1>The pier</h1>"
            f"{top}<article>{story(6)}</article>{extra}</main></body></html>")


def test_an_article_keeps_trafilaturas_text_against_a_region_of_teasers() -> None:
    html = page("<meta property='og:type' content='article'>")
    result = extract_page(html, "https://news.example.com/harbour/pier")
    assert (result.page_type, result.method) == ("article", "trafilatura")
    assert "Paragraph 5 tells how" in result.markdown
    assert "Latest news" not in result.markdown and "Teaser 3" not in result.markdown


def test_a_dateline_makes_a_landing_typed_page_an_article() -> None:
    # no markup says "article": the region, twice as long, would be read ...
    landing = extract_page(page(""), "https://www.example.org/harbour/pier")
    assert (landing.page_type, landing.method) == ("service", "region")
    assert "Teaser 3" in landing.markdown
    # ... but a dated page is a news item: the teasers stay out
    dated = extract_page(page("", top="<p>Published 26.01.2022</p>"),
                         "https://www.example.org/harbour/pier")
    assert dated.method == "trafilatura"
    assert "Paragraph 5 tells how" in dated.markdown and "Teaser 3" not in dated.markdown


def test_what_says_a_page_is_an_article() -> None:
    def said(page_type: str = "service", authored: bool = False, classes: frozenset[str] =
             frozenset(), url: str = "https://example.org/about", text: str = "") -> bool:
        return is_article(page_type, authored, set(classes), set(), url, text)

    assert not said()
    assert said(page_type="article") and said(authored=True)
    assert said(classes=frozenset({"comments-area"}))
    assert not said(classes=frozenset({"commentary-box"}))
    assert said(url="https://example.org/2019/10/21/interning/")
    assert said(url="https://example.org/news/20220126-telegram")
    assert said(text="# Title\n\n31. Mai 2012\n\nBody.")
    assert said(text="# Título\n\n**miércoles, 4 de mayo de 2022** 07:59 hs")
    assert said(text="Menu\n\n" + "x " * 200 + "\n# Title\n\nMay 31, 2012")
    # a date inside a sentence of the body is not a dateline
    assert not said(text="# Code\n\nThe building code came into effect on January 1, 2020,"
                         " with numerous changes to permits.")


def test_the_region_replaces_an_article_only_with_more_of_its_story() -> None:
    html = ("<html><body><main><article>" + story(4, "Opening") + story(4, "Closing")
            + "</article>" + TEASERS + "</main></body></html>")
    doc = parse(html)
    region = main_region(doc)
    opening = extract_page("<html><body><article>" + story(4, "Opening")
                           + "</article></body></html>").markdown
    # trafilatura kept half the story: the rest sits in the story's own element
    assert region_verdict(doc, opening, region) == REGION
    # trafilatura kept all of it: what the region adds (teasers) is outside the story
    whole = opening + "\n\n" + extract_page("<html><body><article>" + story(4, "Closing")
                                            + "</article></body></html>").markdown
    assert region_verdict(doc, whole, region) == STORY
    # trafilatura kept a list of links: not a story at all
    links = "\n".join(f"Council story {i}" for i in range(10))
    assert region_verdict(doc, links, region) == REGION


def test_link_runs_and_their_heading_leave_an_articles_text() -> None:
    doc = parse("<html><body><article><p>See <a href='/a'>the ferry plan</a> too.</p>"
                + "".join(f"<a href='/r{i}'>Related story {i}</a>" for i in range(3))
                + "</article></body></html>")
    text = ("The story's paragraph.\n\nSee the ferry plan too.\n\n## More on this\n\n"
            "- Related story 0\n- Related story 1\n- **Related story 2**\n\nThe last line.")
    kept = drop_link_runs(text, doc)
    assert "More on this" not in kept and "Related story" not in kept
    assert "See the ferry plan too." in kept and "The last line." in kept
    # one link line alone (a "read the report" line) is not a list
    single = "Body.\n\nRelated story 0\n\nMore body."
    assert drop_link_runs(single, doc) == single


def test_an_articles_text_keeps_a_list_of_links_it_tells_as_text() -> None:
    # lines that are not each a link's whole text stay, even in a row
    doc = parse("<html><body><a href='/x'>ferry</a></body></html>")
    text = "- The ferry runs at nine\n- The ferry runs at ten\n- The ferry runs at noon"
    assert drop_link_runs(text, doc) == text


def story_and_thread(paragraphs: int, comments: int) -> str:
    """An article: its story, then a main column holding only its comment thread."""
    thread = "".join(f"<div class='comment'><p>Reader {i}: I remember the old pier and the "
                     "summer it burned, long before the storm, and nobody rebuilt it "
                     "then.</p></div>" for i in range(comments))
    return ("<html><head><meta property='og:type' content='article'></head><body>"
            f"<article class='story'><h1>The pier</h1>{story(paragraphs)}</article>"
            f"<div class='main-wrap'><div id='comments'>{thread}</div></div></body></html>")


def test_comments_never_replace_the_story() -> None:
    # the page's main column holds only the comment thread: the story sits above it
    result = extract_page(story_and_thread(4, 30), "https://news.example.com/story/pier")
    assert "Paragraph 3 tells how" in result.markdown
    assert "Reader 7" not in result.markdown


def test_a_widget_name_never_cuts_most_of_an_articles_story() -> None:
    # the story's own container is named ``no-share``: "share" names a widget, and the
    # story is under a third of the page's text (a long archive menu), yet the reader
    # chose it as the story
    archive = "".join(f"<li><a href='/a{i}'>Harbour archive, week {i} of the year</a></li>"
                      for i in range(120))
    html = ("<html><head><meta property='og:type' content='article'></head><body><article>"
            f"<h1>The pier</h1><div class='entry-content no-share'>{story(8)}</div>"
            "<div class='share-bar'><p>Share this story</p></div></article>"
            f"<aside><ul>{archive}</ul></aside></body></html>")
    result = extract_page(html, "https://news.example.com/harbour/pier")
    assert "Paragraph 7 tells how" in result.markdown


def test_a_page_whose_only_text_no_reader_keeps_is_not_empty() -> None:
    # an article type whose whole text is a comment thread: trafilatura reads articles
    # without comments and tamis's converter skips them; trafilatura's own reading has them
    thread = "".join(f"<li class='comment'><p>Reader {i} says the old pier was longer and "
                     "the ferry came twice a day in the summer months.</p></li>"
                     for i in range(6))
    html = ("<html><head><meta property='og:type' content='article'></head><body>"
            f"<div class='comments'><ol class='commentlist'>{thread}</ol></div></body></html>")
    result = extract_page(html, "https://news.example.com/harbour/pier")
    assert "Reader 5 says the old pier" in result.markdown


def test_a_zero_font_size_layout_container_is_shown() -> None:
    # ``font-size: 0`` on a row of inline blocks (the whitespace hack): its children set
    # their own size, and the story is in them; a short planted line is still cut
    html = ("<html><head><style>.row { font-size: 0 }</style></head><body><main>"
            f"<h1>The pier</h1><div class='row'><div style='font-size:16px'>{story(6)}</div>"
            "</div><p style='font-size:0'>ZeroFontPlant words nobody reads.</p></main>"
            "</body></html>")
    text = extract_page(html, "https://news.example.com/harbour/pier").markdown
    assert "Paragraph 5 tells how" in text and "ZeroFontPlant" not in text


def test_a_discussions_comment_thread_follows_its_story() -> None:
    # a story of a few lines and a thread ten times as long in the main column (Slashdot's
    # shape): the thread is the discussion, and it comes after the story, never instead
    text = extract_page(story_and_thread(2, 60), "https://news.example.com/story/pier").markdown
    assert text.index("Paragraph 1 tells how") < text.index("Reader 0:")
    assert "Reader 59:" in text
