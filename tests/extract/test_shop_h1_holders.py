"""``shop.h1_holders``: the set answer equals the per-element XPath it replaced."""

import lxml.html
import pytest

from tamis.extract.shop import drop_footer_lines, h1_holders

PAGES = [
    "<html><body><div><footer><h1>A</h1><p>x</p></footer><nav><p>y</p></nav></div></body></html>",
    "<html><body><main><section><div><h1>T</h1></div></section></main><footer>f</footer>"
    "</body></html>",
    "<html><body><p>no heading</p><div><span>s</span></div></body></html>",
    "<html><body><h1>one</h1><div><h1>two</h1><div><p>deep</p></div></div></body></html>",
]


@pytest.mark.parametrize("html", PAGES)
def test_h1_holders_is_the_xpath_answer(html: str) -> None:
    doc = lxml.html.fromstring(html)
    holders = h1_holders(doc)
    for element in doc.iter():
        assert (element in holders) == bool(element.xpath(".//h1")), element.tag


def test_footer_holding_the_h1_keeps_its_lines() -> None:
    doc = lxml.html.fromstring(
        "<html><body><main><p>Main text</p></main><footer><p>Sign up now</p></footer>"
        "<footer><h1>Title</h1><p>Kept line</p></footer></body></html>")
    out = drop_footer_lines("Main text\nSign up now\nKept line", doc)
    assert out == "Main text\nKept line"
