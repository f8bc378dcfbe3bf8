"""Policy as config: the YAML schema, the built-in policy and the loader.

Names are imported on first use, so that reading config files (``tamis.policy.loader``)
does not import the schema and pydantic."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from tamis.policy.loader import LoadedConfig, read_config
    from tamis.policy.schema import Config, LineConfig

# The config in effect, completed with the environment's lines: tamis.settings.load_config.
__all__ = ["Config", "LineConfig", "LoadedConfig", "read_config"]


_WHERE = {"LoadedConfig": "loader", "read_config": "loader", "Config": "schema",
          "LineConfig": "schema"}


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'tamis.policy' has no attribute {name!r}")
    return getattr(importlib.import_module(f"tamis.policy.{_WHERE[name]}"), name)
