"""tamis: a search layer for AI agents.

One query fanned out to every configured backend; results deduped by normalised URL with
provenance kept; non-answers dropped with a reason; content farms demoted below primary
sources; a deterministic ranking; page text for the top results under a character budget.

The Python API is lazy so that ``import tamis`` stays cheap::

    import tamis
    response = tamis.search("proxmox thin pool metadata exhaustion recovery")
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from tamis.version import __version__


def _defer_httpx_cli() -> None:
    """httpx's ``__init__`` imports its command-line tool, and with it rich, pygments and
    click: about 100 ms of CPU that a tamis call never uses. Until httpx is imported, stand in
    a module whose ``main`` loads the real tool when called, so ``httpx.main`` still works."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    import types

    def main(*args: Any, **kwargs: Any) -> Any:
        if sys.modules.get("httpx._main") is shim:
            del sys.modules["httpx._main"]
        from httpx._main import main as real_main

        return real_main(*args, **kwargs)

    shim = types.ModuleType("httpx._main", "Stands in for httpx's CLI until it is called.")
    shim.main = main  # type: ignore[attr-defined]
    sys.modules["httpx._main"] = shim


_defer_httpx_cli()

if TYPE_CHECKING:  # pragma: no cover
    from tamis.core import Tamis, aread, asearch, read, search
    from tamis.models import SearchResponse

__all__ = ["SearchResponse", "Tamis", "__version__", "aread", "asearch", "read", "search"]


def __getattr__(name: str) -> Any:
    if name in {"search", "asearch", "read", "aread", "Tamis"}:
        from tamis import core

        return getattr(core, name)
    if name == "SearchResponse":
        from tamis.models import SearchResponse

        return SearchResponse
    raise AttributeError(f"module 'tamis' has no attribute {name!r}")
