"""Page text for the top results, fetched concurrently and safely, cut to one budget.

``extract_results`` fills the excerpts of a ranked result list; ``read_url`` reads one page
(``tamis read``); ``extract_text(html, url=None)`` is the markdown ``tamis read`` would
print for that HTML, before the budget (hidden text removed, page type recognised). See
``docs/extraction.md`` for the settings and the statuses.

Names are imported on first use, so that the bounded worker process (``worker``) starts
without the HTTP stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from tamis.extract.core import extract_results, get_page, read_url
    from tamis.extract.html import extract_text
    from tamis.extract.models import Page, ReadResponse

_WHERE = {"extract_results": "core", "get_page": "core", "read_url": "core",
          "extract_text": "html", "Page": "models", "ReadResponse": "models"}

__all__ = ["Page", "ReadResponse", "extract_results", "extract_text", "get_page", "read_url"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tamis.extract' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tamis.extract.{_WHERE[name]}"), name)
