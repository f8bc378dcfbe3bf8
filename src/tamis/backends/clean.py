"""Every string of an answer made encodable as UTF-8, where answers enter tamis.

A backend's JSON may hold a lone surrogate (``\\ud800``: a legal JSON escape that no UTF-8
encoder takes); ``sanitised`` makes each one U+FFFD before the answer is cached, ranked or
printed. It is the one boundary (``tamis.pipeline.fanout.ask_line``), whatever the adapter.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from tamis.backends.base import Parsed
from tamis.models import Note, RawHit

_SURROGATE = re.compile("[\ud800-\udfff]")


def clean_str(text: str) -> str:
    """Text that can always be encoded as UTF-8: lone surrogates (``\\ud800`` from a JSON
    escape or a library) become U+FFFD."""
    return _SURROGATE.sub("\ufffd", text) if _SURROGATE.search(text) else text


def sanitised(parsed: Parsed) -> Parsed:
    """Every string of an answer made encodable, whatever the adapter (the one place an
    answer crosses from an adapter into tamis: ``tamis.pipeline.fanout.ask_line``).

    Every string of the answer is first joined and looked at once (``encodable_text``):
    an answer without a surrogate, the usual one, is kept as it is; else each hit and note
    is cleaned (``clean_model``)."""
    if encodable_text(_strings(parsed)):
        return Parsed(hits=list(parsed.hits), notes=list(parsed.notes))
    hits = [clean_model(hit) for hit in parsed.hits]
    notes = [clean_model(note) for note in parsed.notes]
    return Parsed(hits=hits, notes=notes)


def _strings(parsed: Parsed) -> str | None:
    """Every str field of the answer's hits and notes joined (what ``clean_model`` would
    clean), or None when a field is not what ``RawHit``/``Note`` declare."""
    parts: list[str] = []
    add = parts.append
    try:
        for hit in parsed.hits:
            if hit.__class__ is not RawHit:
                return None
            add(hit.url)
            add(hit.title)
            add(hit.snippet)
            add(hit.line)
            parts += hit.engines
            if hit.published is not None:
                add(hit.published)
        for note in parsed.notes:
            if note.__class__ is not Note:
                return None
            add(note.source)
            add(note.kind)
            add(note.message)
        return "".join(parts)  # TypeError when a field holds something else than str
    except (TypeError, AttributeError):
        return None


def encodable_text(text: str | None) -> bool:
    """True when ``text`` is a str without a lone surrogate (encodable as UTF-8)."""
    return text is not None and (text.isascii() or _SURROGATE.search(text) is None)


def clean_model(model: Any) -> Any:
    """A copy of a flat dataclass (``RawHit``, ``Note``) whose str (and list-of-str) fields
    are clean."""
    update: dict[str, Any] = {}
    for name in model.__slots__:
        value = getattr(model, name)
        if isinstance(value, str):
            if value.isascii():  # no surrogate in it: the common case, at C speed
                continue
            fixed: Any = clean_str(value)
        elif isinstance(value, list) and any(isinstance(x, str) and not x.isascii()
                                             for x in value):
            fixed = [clean_str(x) if isinstance(x, str) else x for x in value]
        else:
            continue
        if fixed != value:
            update[name] = fixed
    return replace(model, **update) if update else model
