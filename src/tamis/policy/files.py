"""The config's files, read without validating anything: which user file is in effect, the
built-in policy's text and data, and the layering of one over the other.

This is what a CLI repeat reads to find its stored answer (``tamis.interfaces.cli_cache``)
and what ``tamis.policy.loader`` validates afterwards; ``loader`` gives paths to its callers as
``Path``.

Discovery order: ``--config FILE``, else ``$TAMIS_CONFIG``, else
``$XDG_CONFIG_HOME/tamis/config.yaml`` (``~/.config/tamis/config.yaml``), else the built-in
policy alone. A user file is layered over the built-in policy: mappings merge key by key, a
list replaces the default list, and ``{add: [...], remove: [...]}`` edits the default list.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from tamis.errors import ConfigError

BUILTIN_FILE = os.path.join(os.path.dirname(__file__), "default.yaml")  # package data
# default.yaml parsed when it was last written (``python tools/default_json.py``),
# with the sha256 of the text it was parsed from: used only while default.yaml is that text,
# so a CLI call without a config file imports no YAML parser (PyYAML: ~25 ms of CPU).
BUILTIN_JSON_FILE = os.path.join(os.path.dirname(__file__), "default.json")


def default_config_file() -> str:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return os.path.join(base, "tamis", "config.yaml")


def config_file(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """The config file in effect (as given, ``~`` expanded), or None for the built-in policy."""
    if explicit:
        return os.path.expanduser(os.fspath(explicit))
    env = os.environ.get("TAMIS_CONFIG")
    if env:
        return os.path.expanduser(env)
    path = default_config_file()
    return path if os.path.isfile(path) else None


def read_text(path: str) -> str:
    """A config file's text, newlines made ``\\n`` (as ``Path.read_text`` reads it). A device
    or a pipe is refused: ``/dev/zero`` would be read until memory runs out."""
    if os.path.exists(path) and not os.path.isfile(path) and not os.path.isdir(path):
        raise ConfigError(f"{path}: not a regular file (a device or a pipe), not a config file")
    with open(path, encoding="utf-8") as file:
        return file.read()


def builtin_text() -> str:
    return read_text(BUILTIN_FILE)


def builtin_data(text: str | None = None) -> dict[str, Any]:
    """The built-in policy's data (``text``: its bytes, when already read)."""
    text = builtin_text() if text is None else text
    data = _parsed_builtin(text)
    if data is None:  # default.json is missing or was made from another default.yaml
        from tamis import yamlsafe

        data = yamlsafe.load(text)
    assert isinstance(data, dict)
    return data


def _parsed_builtin(text: str) -> dict[str, Any] | None:
    try:
        with open(BUILTIN_JSON_FILE, "rb") as file:
            saved = json.loads(file.read())
    except (OSError, ValueError):
        return None
    if not isinstance(saved, dict) or saved.get("sha256") != _sha256(text):
        return None
    data = saved.get("data")
    return data if isinstance(data, dict) else None


def builtin_json() -> str:
    """What default.json holds: default.yaml parsed, with the hash of its text."""
    from tamis import yamlsafe

    text = builtin_text()
    return json.dumps({"sha256": _sha256(text), "data": yamlsafe.load(text)},
                      ensure_ascii=False, indent=1) + "\n"


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_list_edit(value: Any) -> bool:
    return isinstance(value, dict) and bool(value) and set(value) <= {"add", "remove"}


def merge(base: Any, over: Any, where: str = "") -> Any:
    """Layer a user value over a default value (see the module docstring)."""
    if isinstance(base, dict) and isinstance(over, dict):
        out = dict(base)
        for key, value in over.items():
            out[key] = merge(base.get(key), value, f"{where}.{key}" if where else str(key))
        return out
    if isinstance(base, list) and is_list_edit(over):
        add = over.get("add") or []
        remove = over.get("remove") or []
        if not isinstance(add, list) or not isinstance(remove, list):
            raise ConfigError(f"{where}: 'add' and 'remove' take lists")
        removed = {str(x).lower() for x in remove}
        kept = [x for x in base if str(x).lower() not in removed]
        return kept + [x for x in add if x not in kept]
    return over
