"""Find, read, merge and validate the config, with errors that name the file, key and line.

Finding the files and layering them is ``tamis.policy.files`` (plain strings, for the CLI's
repeat path; its docstring gives the discovery order and the layering); here as ``Path``.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from tamis.errors import ConfigError
from tamis.policy import files, snapshot
from tamis.policy.checks import KeyShapes
from tamis.policy.files import builtin_data, merge
from tamis.version import __version__

if TYPE_CHECKING:
    import yaml  # imported to read a user's file: the built-in policy needs no YAML parser

    from tamis.policy.schema import Config
    from tamis.store.base import Store


class LoadedConfig(NamedTuple):  # NamedTuples: a frozen dataclass costs ~0.5 ms at import
    """The effective config and where it came from."""

    config: Config
    source: str  # the file it came from, or "built-in"


def discover(explicit: str | os.PathLike[str] | None = None) -> Path | None:
    """The config file in effect, or None for the built-in policy."""
    found = files.config_file(explicit)
    return None if found is None else Path(found)


BUILTIN = Path(files.BUILTIN_FILE)


def _line_map(node: yaml.Node, path: tuple[Any, ...] = ()) -> dict[tuple[Any, ...], int]:
    """Map every key path in a YAML document to its 1-based line number."""
    import yaml

    lines: dict[tuple[Any, ...], int] = {path: node.start_mark.line + 1}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            sub = _line_map(value_node, (*path, key))
            sub[(*path, key)] = key_node.start_mark.line + 1
            lines.update(sub)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines.update(_line_map(item, (*path, i)))
    return lines


def _format_error(
    err: dict[str, Any], source: str, lines: dict[tuple[Any, ...], int], data: dict[str, Any]
) -> str:
    loc = tuple(err.get("loc", ()))
    key = ".".join(str(p) for p in loc) or "(top level)"
    if len(loc) >= 2 and loc[0] == "backends" and isinstance(loc[1], int):
        try:
            name = data["backends"][loc[1]].get("name")
        except (AttributeError, IndexError, KeyError, TypeError):
            name = None
        if name:
            key = f"backends[{name}]" + "".join(f".{p}" for p in loc[2:])
    line = None
    for cut in range(len(loc), -1, -1):
        if loc[:cut] in lines:
            line = lines[loc[:cut]]
            break
    where = f"{source}, line {line}" if line else source
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return f"{where}: unknown key '{key}'"
    if kind == "missing":
        return f"{where}: missing key '{key}'"
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{where}: key '{key}': {msg}"


class ReadConfig(NamedTuple):
    """A config read and validated against the schema, before the lines of the environment
    complete it (``tamis.settings.load_config`` does that, and checks the lines)."""

    config: Config
    source: str
    lines: dict[tuple[Any, ...], int]  # key path -> line in the user's file
    data: dict[str, Any]  # the merged data that was validated
    user_has_backends: bool

    def error(self, loc: tuple[Any, ...], message: str) -> ConfigError:
        """A ConfigError for a key of this config, naming its file and line."""
        return ConfigError(_format_error({"loc": loc, "msg": message}, self.source, self.lines,
                                         self.data))


def read_config(
    explicit: str | os.PathLike[str] | None = None,
    *,
    overrides: dict[str, Any] | None = None,
    snapshots: Store | None = None,
    key_shapes: KeyShapes | None = None,
) -> ReadConfig:
    """Read the config files (see the module docstring) and validate them against the schema.
    Raises ConfigError with a one-line message.

    ``snapshots``: a store where the validated config of the same files was kept
    (``tamis.policy.snapshot``): found there, it is not validated again; else it is kept.
    ``key_shapes``: what the backends declare of their keys (a pasted key is refused)."""
    path = discover(explicit)
    builtin_text = BUILTIN.read_text("utf-8")
    data = builtin_data(builtin_text)
    text = None
    lines: dict[tuple[Any, ...], int] = {}
    source = "built-in policy"
    if path is not None:
        source = str(path)
        try:
            text = files.read_text(source)
        except FileNotFoundError:
            raise ConfigError(f"{source}: config file not found") from None
        except IsADirectoryError:
            raise ConfigError(f"{source}: is a directory, not a config file") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{source}: cannot read: {exc.__class__.__name__}") from None
        import yaml

        from tamis import yamlsafe

        try:
            node = yamlsafe.compose(text)
            user = yamlsafe.construct(node)
        except yamlsafe.AliasRefused as exc:
            raise ConfigError(f"{source}, line {exc.line}: {exc.reason}") from None
        except yaml.YAMLError as exc:
            line, problem = yamlsafe.problem_of(exc)
            at = f", line {line}" if line is not None else ""
            raise ConfigError(f"{source}{at}: not valid YAML: {problem or 'not valid YAML'}"
                              ) from None
        if user is None:
            user = {}
        if not isinstance(user, dict):
            raise ConfigError(f"{source}: the top level must be a mapping of keys")
        if node is not None:
            lines = _line_map(node)
        try:
            data = merge(data, user)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from None
        user_has_backends = "backends" in user
    else:
        user_has_backends = False
    if overrides:
        data = merge(data, overrides)
    kept = None if snapshots is None or overrides else snapshot.key(
        __version__, builtin_text, text)
    config = _snapshot_of(snapshots, kept)
    if config is None:
        config = _validate(data, source, lines, key_shapes or KeyShapes())
        if kept is not None:
            _keep_snapshot(snapshots, kept, config)
    return ReadConfig(config=config, source=source, lines=lines, data=data,
                      user_has_backends=user_has_backends)


def _validate(data: dict[str, Any], source: str, lines: dict[tuple[Any, ...], int],
              key_shapes: KeyShapes) -> Config:
    from pydantic import ValidationError

    from tamis.policy.schema import Config

    try:
        return Config.model_validate(data, context={"key_shapes": key_shapes})
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        raise ConfigError(_format_error(dict(first), source, lines, data)) from None


def _snapshot_of(store: Store | None, key: str | None) -> Config | None:
    """The validated config kept under ``key``, or None (a store never makes a read fail)."""
    if store is None or key is None:
        return None
    try:
        raw = store.get(snapshot.NAMESPACE, key)
    except Exception:
        return None
    return snapshot.load(raw) if raw else None


def _keep_snapshot(store: Store | None, key: str, config: Config) -> None:
    raw = snapshot.dump(config)
    if store is not None and raw is not None:
        with contextlib.suppress(Exception):
            store.set(snapshot.NAMESPACE, key, raw, ttl=snapshot.TTL_SECONDS)

