"""What ``tamis backends`` shows: every line, where it asks, its keys, what it supports; and
with ``--types``, every adapter type tamis knows, read from the adapters' declarations.

Key variables are shown by NAME with whether each is set and whether it rests (and until
when, from the store), never their values.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Mapping
from typing import Any

from tamis.backends.base import Adapter
from tamis.backends.keys import format_until, read_rest
from tamis.backends.registry import adapter_classes, adapter_type, make_adapter
from tamis.policy.schema import Config
from tamis.redact import scrub
from tamis.store.base import Store


def describe_lines(config: Config, store: Store | None, env: Mapping[str, str], *,
                   now: float | None = None) -> list[dict[str, Any]]:
    """One dict per configured line, in config order (disabled lines included).

    Raises ConfigError when a line cannot be built (unknown type, contradictory keys).
    """
    now = time.time() if now is None else now
    out: list[dict[str, Any]] = []
    for line in config.backends:
        adapter = make_adapter(line, max_results=config.max_results,
                               max_chars=config.max_chars, pool_strategy=config.pool_strategy,
                               env=env)
        keys: list[dict[str, Any]] = []
        secrets = [env[name] for name in adapter.key_envs() if env.get(name)]
        for name in adapter.key_envs():
            rest = read_rest(store, line.name, name, now) if store is not None else None
            keys.append({
                "env": name,
                "set": bool(env.get(name)),
                "resting_until": format_until(rest.until) if rest else None,
                # Rests written by an older version may quote a key: scrub on the way out.
                "rest_reason": scrub(rest.reason, secrets) if rest else None,
            })
        usable = [k for k in keys if k["set"] and not k["resting_until"]]
        if not line.enabled:
            state = "disabled"
        elif keys and not usable and adapter.needs_key():
            state = ("all keys resting" if any(k["set"] for k in keys)
                     else "no key set")
        else:
            state = "ready"
        out.append({
            "name": line.name,
            "type": adapter_type(line),
            "endpoint": adapter.endpoint(),
            "state": state,
            "required": line.required,
            "weight": line.weight,
            "enabled": line.enabled,
            "pool_strategy": adapter.pool_strategy or config.pool_strategy,
            "key": "required" if adapter.needs_key() else adapter.supports.key,
            "keys": keys,
            "supports": adapter.supports.as_dict(),
        })
    return out


def format_lines(lines: list[dict[str, Any]], source: str) -> str:
    """The human listing."""
    rows = [f"{len(lines)} line(s) from {source}"]
    for info in lines:
        flags = [info["state"]]
        if info["required"]:
            flags.append("required")
        if info["weight"] != 1:
            flags.append(f"weight {info['weight']:g}")
        rows.append(f"- {info['name']} ({info['type']}): {info['endpoint']}  [{', '.join(flags)}]")
        if info["keys"]:
            parts = []
            for key in info["keys"]:
                text = f"{key['env']} {'set' if key['set'] else 'NOT SET'}"
                if key["resting_until"]:
                    why = f" after {key['rest_reason']}" if key["rest_reason"] else ""
                    text += f", resting until {key['resting_until']}{why}"
                parts.append(text)
            rows.append(f"    keys ({info['pool_strategy']}): " + "; ".join(parts))
        else:
            kind = "keyless" if info["key"] == "none" else f"key {info['key']}, none named"
            rows.append(f"    keys: none ({kind})")
        supported = [name for name, value in info["supports"].items() if value is True]
        rows.append(f"    supports: {', '.join(supported) or 'query only'}")
    return "\n".join(rows)


def summary(cls: type[Adapter]) -> str:
    """The first line of the adapter module's docstring, without its final full stop."""
    doc = (sys.modules[cls.__module__].__doc__ or "").strip()
    first = doc.splitlines()[0].strip().rstrip(".") if doc else ""
    return first.replace("``", "`")


def endpoint(cls: type[Adapter]) -> str:
    """Where the adapter asks, in Markdown: its default URL, or the ``base_url`` it needs."""
    if cls.endpoint_doc:
        return cls.endpoint_doc
    path = f" + `{cls.default_search_path}`" if cls.default_search_path else ""
    if cls.default_base_url:
        return f"`{cls.default_base_url}{cls.default_search_path}`"
    if cls.zero_config and cls.zero_config.url_env:
        return f"`base_url` (default `${cls.zero_config.url_env}`){path}"
    return f"`base_url`{path}"


def describe_types() -> list[dict[str, Any]]:
    """One dict per adapter type, by name: what its class declares."""
    out: list[dict[str, Any]] = []
    for cls in adapter_classes():
        zero = cls.zero_config
        out.append({
            "type": cls.type,
            "aliases": list(cls.aliases),
            "summary": summary(cls).replace("`", ""),
            "endpoint": endpoint(cls).replace("`", ""),
            "key": cls.supports.key,
            "key_env": cls.default_key_env,
            "auth_style": cls.auth_style if cls.supports.key != "none" else "",
            "supports": cls.supports.as_dict(),
            "options": list(cls.options),
            "zero_config": None if zero is None else {
                "variables": zero.variables(), "order": zero.order, "fallback": zero.fallback},
        })
    return out


def format_types(types: list[dict[str, Any]]) -> str:
    """The human listing of ``tamis backends --types``."""
    rows = [f"{len(types)} backend type(s)"]
    for info in types:
        also = f" (also {', '.join(info['aliases'])})" if info["aliases"] else ""
        rows.append(f"- {info['type']}{also}: {info['summary']}")
        key = info["key"] + (f", {info['key_env']}" if info["key_env"] else "")
        rows.append(f"    key: {key}; endpoint: {info['endpoint']}")
        supported = [name for name, value in info["supports"].items() if value is True]
        rows.append(f"    supports: {', '.join(supported) or 'query only'}")
        zero = info["zero_config"]
        if zero:
            made = "when no other line is" if zero["fallback"] else (
                "when " + " or ".join(zero["variables"]) + " is set")
            rows.append(f"    zero config: a line {made}")
    return "\n".join(rows)
