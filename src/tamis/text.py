"""Text cleaning shared by every stage: backends clean snippets with it as they read an
answer, the merge cleans titles. The ground floor: it imports nothing of tamis."""

from __future__ import annotations

import re

_TAG = re.compile(r"<[^>]{0,2000}>")
_SURROGATE = re.compile("[\ud800-\udfff]")
# 1 for each byte of an ASCII text that asks for more than the whitespace step: '<' (a tag),
# '&' (an entity) and what ``str.isprintable`` refuses (the controls and DEL); 0 for the rest
NOT_PLAIN = bytes(1 if b < 32 or b == 127 or b in b"<&" else 0 for b in range(256))


def clean_text(text: str, cap: int | None = None) -> str:
    """Strip HTML tags, unescape entities, collapse whitespace, cap at a word boundary."""
    if not text:
        return ""
    if text.isascii() and 1 not in text.encode("ascii").translate(NOT_PLAIN):
        # no tag, no entity, printable (most texts): the same steps, each test made once
        if "  " in text or text[:1] == " " or text[-1:] == " ":
            text = " ".join(text.split())
    else:
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


def clean_str(text: str) -> str:
    """Text that can always be encoded as UTF-8: lone surrogates (``\\ud800`` from a JSON
    escape or a library, a byte of argv that is not UTF-8) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)
