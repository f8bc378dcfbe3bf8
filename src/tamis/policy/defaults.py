"""The schema's defaults, by name, for code that needs one outside a loaded ``Config``
(an adapter built without a config, the fan-out's context): read from the schema, never
restated. ``policy/default.yaml`` states the same values for its reader, and
``tests/policy/test_defaults.py`` fails when the two drift apart.
"""

from __future__ import annotations

from dataclasses import MISSING, fields
from typing import Any

from tamis.policy.schema import Config


def default(model: type, name: str) -> Any:
    """The default of one field of a schema dataclass (``default(Config, "timeout")``)."""
    for found in fields(model):
        if found.name == name:
            if found.default_factory is not MISSING:
                return found.default_factory()
            if found.default is MISSING:
                raise KeyError(f"{model.__name__}.{name} has no default")
            return found.default
    raise KeyError(f"{model.__name__} has no field {name!r}")


TIMEOUT: float = default(Config, "timeout")          # seconds for the whole fan-out
MAX_RESULTS: int = default(Config, "max_results")    # results returned
MAX_CHARS: int = default(Config, "max_chars")        # snippet cap, characters
