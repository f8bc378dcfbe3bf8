"""The optional dependencies, by job: what one command or one setting alone uses is an extra
of the package (``pip install 'tamis[dupes]'``), not part of the default install.

``require(module, extra)`` imports a module of an extra where it is needed, or raises
``MissingExtra``: one line naming the package and the install that brings it (the CLI's
``error:`` line, exit 2; the service's start-up error), never an ImportError traceback.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from tamis.errors import MissingExtra

# extra -> who needs it, as the error line says it
NEEDED_BY = {
    "dupes": "tamis dupes",
    "serve": "tamis serve",
    "redis": "a redis:// store",
    "lists": "a community list's regex rules",
}
# import name -> the name pip installs it by, where the two differ
PACKAGE = {"re2": "google-re2", "prometheus_client": "prometheus-client"}


def require(module: str, extra: str) -> ModuleType:
    """``module``, imported; ``MissingExtra`` when it is not installed (a package that is
    installed but fails to import raises as it does: that is not a missing extra)."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name != module.partition(".")[0]:
            raise
        package = PACKAGE.get(module, module)
        raise MissingExtra(f"{NEEDED_BY.get(extra, 'this')} needs {package}:"
                           f" pip install 'tamis[{extra}]'") from None
