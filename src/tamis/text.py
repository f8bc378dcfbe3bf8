"""Text cleaning shared by every stage: backends clean snippets with it as they read an
answer, the merge cleans titles. The ground floor: it imports nothing of tamis."""

from __future__ import annotations

import html
import re

_TAG = re.compile(r"<[^>]{0,2000}>")
_SURROGATE = re.compile("[\ud800-\udfff]")
# Terminal sequences (CSI, OSC), control characters: they clear screens, write clipboards.
_CONTROL = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
                      r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` without terminal sequences and control characters (line breaks, tabs kept)."""
    return text if text.isprintable() else _CONTROL.sub("", text)


def cut(text: str, width: int) -> str:
    """``text`` on one line of at most ``width`` characters, an ellipsis where it was cut."""
    return text if len(text) <= width else text[:width - 1] + "…"


def clean_text(text: str, cap: int | None = None) -> str:
    """Strip HTML tags, unescape entities, collapse whitespace, cap at a word boundary."""
    if not text:
        return ""
    if "<" in text or "&" in text:
        text = html.unescape(_TAG.sub(" ", text))
        text = _TAG.sub(" ", text)  # tags that were entity-escaped in the source
    text = " ".join(printable(text).split())
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
