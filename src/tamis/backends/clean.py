"""Every string of an answer made encodable as UTF-8, where answers enter tamis.

A backend's JSON may hold a lone surrogate (``\\ud800``: a legal JSON escape that no UTF-8
encoder takes); ``sanitised`` makes each one U+FFFD before the answer is cached, ranked or
printed. It is the one boundary (``tamis.pipeline.fanout.ask_line``), whatever the adapter.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel

from tamis.backends.base import Parsed
from tamis.text import clean_str

Model = TypeVar("Model", bound=BaseModel)


def sanitised(parsed: Parsed) -> Parsed:
    """The answer with every string of its hits and notes encodable (new lists)."""
    return Parsed(hits=[clean_model(hit) for hit in parsed.hits],
                  notes=[clean_model(note) for note in parsed.notes])


def clean_model(model: Model) -> Model:
    """The model (a ``RawHit``, a ``Note``), or a copy whose str and list-of-str fields are
    encodable when one of them was not."""
    update: dict[str, object] = {}
    for name in type(model).model_fields:
        value = getattr(model, name)
        if isinstance(value, str):
            fixed: object = clean_str(value)
        elif isinstance(value, list):
            fixed = [clean_str(x) if isinstance(x, str) else x for x in value]
        else:
            continue
        if fixed != value:
            update[name] = fixed
    return model.model_copy(update=update) if update else model
