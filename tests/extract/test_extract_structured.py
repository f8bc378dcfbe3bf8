"""Forum threads give every post; docs pages keep their code blocks (served over loopback)."""

from __future__ import annotations

import pytest
from extract_support import PageServer, page, run

from tamis.extract import get_page
from tamis.extract.html import extract_page
from tamis.policy.schema import ExtractionConfig

THREADS = {
    "xenforo.html": ("xenforo", [
        ("alice", "transaction id mismatch"),
        ("bob", "lvconvert --repair pve/data"),
        ("carol", "all seventeen guests booted again"),
    ]),
    "discourse.html": ("discourse", [
        ("dana", "overflows the context window"),
        ("erik", "only decisions and open questions survive"),
        ("fatima", "retrieval of old tool outputs by id"),
    ]),
    "discourse_app.html": ("discourse", [
        ("gina", "rotate provider API keys"),
        ("hector", "Keep two keys live"),
    ]),
    "invision.html": ("invision", [
        ("kenji", "fast prime around 35mm equivalent"),
        ("lena", "zone focusing is hard to beat after dark"),
        ("kenji", "Ordered the 28mm"),
    ]),
    "phpbb.html": ("phpbb", [
        ("ivan", "CKSUM errors on sdc"),
        ("judy", "usually the SATA cable"),
        ("ivan", "two clean scrubs in a row"),
    ]),
}


@pytest.mark.parametrize("name", sorted(THREADS))
def test_a_thread_yields_every_post(server: PageServer, config: ExtractionConfig,
                                    name: str) -> None:
    kind, posts = THREADS[name]
    url = server.add(f"/thread/{name}", page(name))
    result = run(lambda client: get_page(url, config=config, client=client))
    assert result.status == "ok"
    text = result.text
    positions = []
    blocks = text.split("\n\n---\n\n")  # one block per post
    assert len(blocks) == len(posts), text
    for block, (author, words) in zip(blocks, posts, strict=True):
        assert block.startswith(f"**{author}**:\n"), (author, block)
        assert words in block, (words, block)
        positions.append(text.index(words))
    assert positions == sorted(positions)  # posts in thread order
    assert "(#" not in text  # no post numbers: a count from 1 is wrong on a second page
    assert extract_page(page(name)).method == kind
    # Chrome stays out: navigation, signatures, footers.
    for chrome in ("Sent from my homelab", "Terms and rules", "Powered by", "moderator",
                   "Click to expand"):
        assert chrome not in text


def test_trafilatura_alone_loses_posts() -> None:
    # Why the forum path exists: on XenForo markup trafilatura keeps only one post.
    from tamis.extract.html import with_trafilatura
    alone = with_trafilatura(page("xenforo.html"), None) or ""
    assert not all(words in alone for _, words in THREADS["xenforo.html"][1])


def test_sphinx_keeps_code_blocks(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/docs/sphinx", page("sphinx.html"))
    text = run(lambda client: get_page(url, config=config, client=client)).text
    assert text.startswith("# Running blocking code\n")
    assert "¶" not in text and "Quick search" not in text and "Copyright" not in text
    assert ("```python\nimport asyncio\n\n\ndef parse(page):\n    return page.upper()\n\n"
            "async def main():\n") in text
    assert '    text = await asyncio.to_thread(parse, "page")\n```' in text
    assert "```console\n$ python -X dev main.py\n```" in text
    assert "- Keep the loop free for I/O.\n- Cancel the awaiting task, not the thread." in text


def test_mkdocs_keeps_code_blocks(server: PageServer, config: ExtractionConfig) -> None:
    url = server.add("/docs/mkdocs", page("mkdocs.html"))
    text = run(lambda client: get_page(url, config=config, client=client)).text
    assert text.startswith("# Configuration\n")
    assert "```yaml\nextraction:\n  top_n: 5\n\n  total_chars: 12000\n```" in text
    assert "```python\ndef budget(total, n):\n\n    return total // n\n```" in text
    assert "1. Edit the file.\n2. Run `tamis check`." in text
    for chrome in ("Last update", "Home", "Made with Material", "edit", "¶"):
        assert chrome not in text


def test_plain_articles_go_through_trafilatura() -> None:
    html = ("<html><head><title>T</title></head><body><nav>Menu Home About</nav><article>"
            "<h1>Heading</h1>" + "<p>A real paragraph of article text, long enough.</p>" * 12 +
            "<ul><li>one</li><li>two</li></ul></article><footer>Footer links</footer>"
            "</body></html>")
    page = extract_page(html)
    title, text, method = page.title, page.markdown, page.method
    assert (title, method) == ("T", "trafilatura")
    assert "A real paragraph" in text and "Menu Home" not in text


@pytest.mark.parametrize(("name", "quoted"), [
    ("xenforo.html", "First take a backup of the metadata"),
    ("discourse.html", "only decisions and open questions survive"),
    ("invision.html", "I shoot mostly at night in narrow streets"),
])
def test_a_reply_quoting_an_earlier_post_does_not_repeat_it(name: str, quoted: str) -> None:
    text = extract_page(page(name)).markdown
    assert text.count(quoted) == 1, text
