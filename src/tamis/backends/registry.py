"""Which adapter serves which line, and the lines made from the environment (zero config)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping

from tamis.backends.base import Adapter
from tamis.errors import ConfigError
from tamis.policy.schema import LineConfig

# type -> "module:Class". One line per adapter module in this folder.
ADAPTERS: dict[str, str] = {
    "searxng": "tamis.backends.searxng:SearXNG",
    "replay": "tamis.backends.replay:Replay",
}


def adapter_type(line: LineConfig) -> str:
    if line.type:
        return line.type
    return line.name if line.name in ADAPTERS else "generic"


def make_adapter(line: LineConfig, *, max_results: int = 8, max_chars: int = 400) -> Adapter:
    kind = adapter_type(line)
    target = ADAPTERS.get(kind)
    if target is None:
        known = ", ".join(sorted(ADAPTERS))
        raise ConfigError(f"backend {line.name!r}: unknown type {kind!r} (known: {known})")
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    return cls(line, max_results=max_results, max_chars=max_chars)


def lines_from_environment(env: Mapping[str, str]) -> list[LineConfig]:
    """Zero-config lines: one per backend whose environment variable is set."""
    lines: list[LineConfig] = []
    if env.get("SEARXNG_URL"):
        lines.append(LineConfig(name="searxng", base_url=env["SEARXNG_URL"]))
    return lines
