"""Text cleaning shared by every stage: backends clean snippets with it as they read an
answer, the merge cleans titles. The ground floor: it imports nothing of tamis."""

from __future__ import annotations

import re

_TAG = re.compile(r"<[^>]{0,2000}>")


def clean_text(text: str, cap: int | None = None) -> str:
    """Strip HTML tags, unescape entities, collapse whitespace, cap at a word boundary."""
    if not text:
        return ""
    if "<" in text or "&" in text:
        import html

        text = html.unescape(_TAG.sub(" ", text))
        text = _TAG.sub(" ", text)  # tags that were entity-escaped in the source
    if not (text.isprintable() and "  " not in text and text[:1] != " " != text[-1:]):
        text = " ".join(text.split())  # (printable: no whitespace but the plain space)
    if cap is not None and len(text) > cap:
        cut = text[: cap - 1]
        space = cut.rfind(" ")
        if space > cap // 2:
            cut = cut[:space]
        text = cut.rstrip(" ,;:.-") + "…"
    return text
