"""A phone's copy of a block, hidden on a desktop screen by a CSS framework's class names
(tamis.extract.responsive), is cut like other hidden text and counted as ``not-on-desktop``."""

from __future__ import annotations

import lxml.html
import pytest
from extract_support import paragraphs

from tamis.extract import extract_text
from tamis.extract.responsive import hidden_on_desktop
from tamis.extract.visibility import strip_hidden


@pytest.mark.parametrize("classes", [
    "d-lg-none", "card d-block d-md-none", "d-none d-md-block d-xl-none",
    "lg:hidden", "block md:hidden", "hidden-lg", "visible-xs", "visible-xs visible-sm",
    "hide-for-large", "show-for-small-only", "android-hidden-tablet android-hidden-desktop",
    "mobile-only", "nav_show-mobile", "hide-on-desktop",
])
def test_classes_that_hide_on_a_desktop_screen(classes: str) -> None:
    assert hidden_on_desktop(classes)


@pytest.mark.parametrize("classes", [
    "", "card-body", "d-none", "hidden", "d-none d-lg-block", "d-lg-none d-xl-block",
    "hidden md:block", "lg:hidden xl:flex", "d-xxl-none", "2xl:hidden",
    "visible-xs visible-lg", "android-hidden-mobile", "hidden-xs", "show-for-large",
    "mobile-menu-toggle", "table-responsive",
])
def test_classes_that_show_on_a_desktop_screen(classes: str) -> None:
    assert not hidden_on_desktop(classes)


def _page() -> str:
    body = "".join(f"<p>{p}</p>" for p in paragraphs(4, seed=71))
    return ("<html><body><main><h1>Plans and prices</h1>" + body
            + "<div class='d-none d-lg-block'><table><tr><th>Plan</th><th>Price</th></tr>"
            "<tr><td>Starter tier for small teams</td><td>9 euros</td></tr></table></div>"
            "<div class='d-lg-none'><p>Starter tier for small teams, nine euros a month,"
            " swipe for more plans on your phone.</p></div></main></body></html>")


def test_the_phone_copy_is_cut_and_the_desktop_copy_kept() -> None:
    text = extract_text(_page())
    assert "swipe for more plans on your phone" not in text
    assert "Starter tier for small teams" in text
    assert paragraphs(4, seed=71)[3] in text


def test_the_phone_copy_is_counted() -> None:
    counts = strip_hidden(lxml.html.fromstring(_page()))
    assert counts["not-on-desktop"] == 1
