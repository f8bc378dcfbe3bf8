"""A validated config kept as plain data, so a CLI call can skip validating the same files again.

Validating the config builds the pydantic schema of every config model (``Config``,
``Policy``, ``LineConfig``... : tens of milliseconds of CPU, a good part of a CLI search). What
``read_config`` validates depends only on the bytes of the built-in policy and of the user's
file (and tamis's version), so the validated ``Config`` is stored once under a hash of those
bytes (``key``), as JSON of its fields (``dump``), and rebuilt with ``model_construct``, model
by model and without validation (``load``: the data was validated when it was kept), on the
next call that reads the same bytes.

A snapshot is only stored when it rebuilds into a config equal to the validated one, types of
values included (``dump`` checks it with ``same``); anything else (a value JSON cannot carry
exactly) is not snapshotted and is validated on every call, as before. A snapshot that does
not rebuild (another version's, a damaged store) is ignored. What completes the config
afterwards (the lines of the environment, the checks of keys and folders) always runs: it is
not in here.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from tamis.errors import SnapshotUnsupported
from tamis.store.answers import digest

if TYPE_CHECKING:
    from tamis.policy.schema import Config

NAMESPACE = "config-snapshot"
TTL_SECONDS = 30 * 86400  # the key is the files' bytes: a snapshot is never stale, only unused
FORMAT = 3  # 3: pydantic models rebuilt by model_construct (2: dataclasses)


def key(version: str, builtin_text: str, user_text: str | None) -> str:
    return digest(["config-snapshot", FORMAT, version, builtin_text, user_text])


def _models() -> dict[str, type]:
    """The config models by name (only these are rebuilt from a snapshot)."""
    from tamis.policy import schema, schema_policy
    from tamis.policy.schema_base import Strict

    found: dict[str, type] = {}
    for module in (schema, schema_policy):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Strict):
                found[value.__name__] = value
    return found


def _encode(value: Any, models: dict[str, type]) -> Any:
    if value is None or type(value) in (str, int, float, bool):
        return value
    if type(value) is list:
        return [_encode(v, models) for v in value]
    if type(value) is dict:
        if not all(type(k) is str for k in value):
            raise SnapshotUnsupported("a mapping with keys that are not strings")
        return {"dict": {k: _encode(v, models) for k, v in value.items()}}
    name = type(value).__name__
    if models.get(name) is type(value):
        return {"model": name, "fields": {name: _encode(getattr(value, name), models)
                                          for name in type(value).model_fields}}
    raise SnapshotUnsupported(f"a value of type {name}")


def _decode(value: Any, models: dict[str, type]) -> Any:
    if type(value) is list:
        return [_decode(v, models) for v in value]
    if type(value) is dict:
        if "dict" in value:
            return {k: _decode(v, models) for k, v in value["dict"].items()}
        cls = models[value["model"]]
        if value["fields"].keys() != cls.model_fields.keys():  # another version's model
            raise SnapshotUnsupported(f"the fields of {cls.__name__} differ")
        fields = {k: _decode(v, models) for k, v in value["fields"].items()}
        return cls.model_construct(**fields)  # type: ignore[attr-defined]
    return value


def dump(config: Config) -> bytes | None:
    """The snapshot of a validated config, or None when it would not rebuild into an equal
    config (then there is no snapshot)."""
    models = _models()
    try:
        raw = json.dumps({"format": FORMAT, "config": _encode(config, models)},
                         ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (SnapshotUnsupported, ValueError):
        return None
    rebuilt = load(raw)
    return raw if rebuilt is not None and same(rebuilt, config) else None


def load(raw: bytes) -> Config | None:
    """The config a snapshot holds, or None when it cannot be read as one."""
    from tamis.policy.schema import Config

    try:
        data = json.loads(raw)
        if data.get("format") != FORMAT:
            return None
        config = _decode(data["config"], _models())
    except Exception:
        return None
    return config if type(config) is Config else None


def same(a: Any, b: Any) -> bool:
    """Equal values of the same types all the way down (``==`` takes 1 for 1.0 and True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, BaseModel):
        return all(same(getattr(a, name), getattr(b, name)) for name in type(a).model_fields)
    return bool(a == b)
