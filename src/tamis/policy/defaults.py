"""The schema's defaults, by name, for code that needs one outside a loaded ``Config``
(an adapter built without a config, the fan-out's context): read from the schema, never
restated. ``policy/default.yaml`` states the same values for its reader, and
``tests/policy/test_defaults.py`` fails when the two drift apart.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from tamis.policy.schema import Config


def default(model: type[BaseModel], name: str) -> Any:
    """The default of one field of a schema model (``default(Config, "timeout")``)."""
    field = model.model_fields[name]
    return field.get_default(call_default_factory=True)


TIMEOUT: float = default(Config, "timeout")          # seconds for the whole fan-out
MAX_RESULTS: int = default(Config, "max_results")    # results returned
MAX_CHARS: int = default(Config, "max_chars")        # snippet cap, characters
