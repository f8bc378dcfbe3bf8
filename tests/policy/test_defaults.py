"""Defaults live in the schema: ``policy/default.yaml`` states the same values for its
reader, never others. Its lists (hosts, patterns, words) are the built-in policy itself,
which the schema leaves empty: those are data, not restated defaults."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

import tamis.policy.loader
from tamis.backends.base import Adapter
from tamis.backends.registry import make_adapter
from tamis.pipeline.fanout import FanoutContext
from tamis.policy.schema import Config, LineConfig

DEFAULT_YAML = Path(tamis.policy.loader.__file__).with_name("default.yaml")


def drift(defaults_of: BaseModel, data: dict[str, Any], path: str = "") -> list[str]:
    """Where ``data`` (the YAML) says other than the schema's defaults (``defaults_of``, a
    model made with no values: ``Config()``)."""
    found = []
    for key, value in data.items():
        where = path + key
        if key not in type(defaults_of).model_fields:
            found.append(f"{where}: not in the schema")
            continue
        default = getattr(defaults_of, key)
        if isinstance(default, BaseModel) and isinstance(value, dict):
            found += drift(default, value, where + ".")
        elif isinstance(value, list | dict) and default in ([], {}):
            continue  # the built-in policy's own list (or table: page kinds, their places)
        elif (default.model_dump(mode="json") if isinstance(default, BaseModel)
              else default) != value:
            found.append(f"{where}: yaml {value!r}, schema {default!r}")
    return found


def test_default_yaml_states_the_schema_defaults() -> None:
    data = yaml.safe_load(DEFAULT_YAML.read_text(encoding="utf-8"))
    assert drift(Config(), data) == []


def test_the_drift_check_can_fail() -> None:
    assert drift(Config(), {"max_results": 9, "cache": {"ttl_seconds": 1}, "nope": 1}) == [
        "max_results: yaml 9, schema 8", "cache.ttl_seconds: yaml 1, schema 300",
        "nope: not in the schema"]


def test_the_code_reads_its_defaults_from_the_schema() -> None:
    schema = Config()
    adapter: Adapter = make_adapter(LineConfig(name="s", base_url="http://127.0.0.1:9"))
    assert (adapter.max_results, adapter.max_chars) == (schema.max_results, schema.max_chars)
    assert FanoutContext(client=None).timeout == schema.timeout  # type: ignore[arg-type]


ROOT = DEFAULT_YAML.parents[3]
ROW = re.compile(r"^\| `([a-z_.]+)` \| `([^`]*)` \|")


def documented_defaults(text: str, anchor: str) -> dict[str, str]:
    """The key -> default rows of the markdown table that holds the row ``anchor``."""
    tables, current = [], []
    for line in text.splitlines():
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    tables.append(current)
    [table] = [t for t in tables if any(row.startswith(anchor) for row in t)]
    return {m.group(1): m.group(2) for row in table if (m := ROW.match(row))}


def shown(value: Any) -> str:
    return json.dumps(value) if isinstance(value, list) else str(value)


def test_the_extraction_tables_state_the_schema_defaults() -> None:
    extraction = Config().extraction
    for doc in ("README.md", "docs/extraction.md"):
        rows = documented_defaults((ROOT / doc).read_text(encoding="utf-8"), "| `total_chars` |")
        assert len(rows) >= 10, doc
        stale = {}
        for key, value in rows.items():
            default: Any = extraction
            for part in key.split("."):
                default = getattr(default, part)
            if shown(default) != value:
                stale[key] = (value, shown(default))
        assert stale == {}, doc
