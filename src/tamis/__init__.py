"""tamis: a search layer for AI agents.

One query fanned out to every configured backend; results deduped by normalised URL with
provenance kept; non-answers dropped with a reason; content farms demoted below primary
sources; a deterministic ranking; page text for the top results under a character budget.

The Python API is lazy so that ``import tamis`` stays cheap::

    import tamis
    response = tamis.search("proxmox thin pool metadata exhaustion recovery")
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from tamis.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from tamis.core import Tamis, aread, asearch, read, search
    from tamis.models import SearchResponse

__all__ = ["SearchResponse", "Tamis", "__version__", "aread", "asearch", "read", "search"]


_WHERE = {"search": "core", "asearch": "core", "read": "core", "aread": "core", "Tamis": "core",
          "SearchResponse": "models"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tamis' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tamis.{_WHERE[name]}"), name)
