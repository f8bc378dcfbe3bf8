"""Which adapter serves which line, found by scanning this package, and the lines made from
the environment (zero config).

Every module of ``tamis.backends`` is imported once and each ``Adapter`` subclass it defines
with a ``type`` is registered under that type and its ``aliases`` (``adapters()``); nothing
here names an adapter. A line's adapter is its ``type``, else its ``name`` when that is a
known type, else ``generic``.

Zero config (no config file, or one without ``backends``): one line per adapter whose
``zero_config`` variables are set, in their declared ``order`` (``lines_from_environment``),
and with none of them the ``fallback`` adapter's line (``ddgs``), so tamis answers out of the
box. The table in README.md and docs/configuration.md is generated from the same declarations
(``python tools/backend_docs.py``).

The environment: ``make_adapter(..., env=...)`` hands an adapter the mapping it reads; with
none given it is ``os.environ``, decided here and nowhere else.
"""

from __future__ import annotations

import functools
import importlib
import os
import pkgutil
from collections.abc import Mapping
from typing import TYPE_CHECKING

import tamis.backends
from tamis.backends.base import AUTH_HEADERS, COMMON_KEYS, Adapter
from tamis.errors import ConfigError, DeclarationError
from tamis.policy.checks import ENV_NAME, KeyShapes, key_in_url, key_refusal, url_problem
from tamis.policy.defaults import MAX_CHARS, MAX_RESULTS
from tamis.policy.schema import LineConfig
from tamis.redact import value_problem

if TYPE_CHECKING:
    from tamis.policy.schema import Config


@functools.cache
def adapters() -> dict[str, type[Adapter]]:
    """type (or alias) -> adapter class, from every module of the backends package."""
    found: dict[str, type[Adapter]] = {}
    package = tamis.backends
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        try:
            module = importlib.import_module(f"{package.__name__}.{info.name}")
        except Exception as exc:  # a broken adapter file is named, never a traceback
            raise DeclarationError(f"backend module {package.__name__}.{info.name} cannot be"
                                   f" imported: {type(exc).__name__}: {exc}") from None
        for cls in list(vars(module).values()):
            if not (isinstance(cls, type) and issubclass(cls, Adapter)
                    and cls.__module__ == module.__name__ and cls.type):
                continue
            check_declaration(cls)
            for name in (cls.type, *cls.aliases):
                if name in found:
                    raise DeclarationError(f"backend type {name!r} is declared twice: by"
                                    f" {found[name].__module__} and {cls.__module__}")
                found[name] = cls
    return dict(sorted(found.items()))


def adapter_classes() -> list[type[Adapter]]:
    """Each adapter class once (aliases folded), by type name."""
    unique = {cls.type: cls for cls in adapters().values()}
    return [unique[name] for name in sorted(unique)]


def check_declaration(cls: type[Adapter]) -> None:
    """Refuse an adapter whose declaration the rest of tamis could not use (a developer's
    mistake, found when the package is scanned)."""
    where = f"backend {cls.__module__}.{cls.__name__}"
    if cls.auth_style and cls.auth_style not in AUTH_HEADERS:
        raise DeclarationError(f"{where}: auth_style {cls.auth_style!r} is not one of"
                        f" {sorted(AUTH_HEADERS)} or ''")
    unknown = set(cls.options) - set(LineConfig.model_fields)
    if unknown:
        raise DeclarationError(f"{where}: options {sorted(unknown)} are not line keys")
    if set(cls.options) & set(COMMON_KEYS):
        raise DeclarationError(f"{where}: options repeat keys every line has")
    if any(not isinstance(p, str) or not p for p in cls.key_prefixes):
        raise DeclarationError(f"{where}: key_prefixes must be non-empty strings")
    variables = cls.zero_config.variables() if cls.zero_config else []
    for name in [*variables, *([cls.default_key_env] if cls.default_key_env else [])]:
        if not ENV_NAME.fullmatch(name):
            raise DeclarationError(f"{where}: {name!r} is not an environment variable name")
    module = importlib.import_module(cls.__module__)
    if not (module.__doc__ or "").strip():
        raise DeclarationError(f"{where}: the module has no docstring (it is the backend's manual)")


@functools.cache
def key_shapes() -> KeyShapes:
    """What the adapters declare of their keys, for the config's checks of pasted keys: every
    provider's key prefixes, and the variable each line type reads its key from."""
    return KeyShapes(
        prefixes=tuple(sorted({p for cls in adapter_classes() for p in cls.key_prefixes})),
        variables={kind: cls.default_key_env for kind, cls in adapters().items()
                   if cls.default_key_env})


def known_types() -> list[str]:
    return list(adapters())


def adapter_type(line: LineConfig) -> str:
    if line.type:
        return line.type
    return line.name if line.name in adapters() else "generic"


def adapter_class(kind: str) -> type[Adapter]:
    cls = adapters().get(kind)
    if cls is None:
        raise ConfigError(f"unknown type {kind!r} (known: {', '.join(known_types())})")
    return cls


def make_adapter(line: LineConfig, *, max_results: int = MAX_RESULTS,
                 max_chars: int = MAX_CHARS,
                 pool_strategy: str | None = None, env: Mapping[str, str] | None = None
                 ) -> Adapter:
    """The adapter for one line. ``pool_strategy``: the section-level default; ``env``: the
    environment it reads (``os.environ`` when not given)."""
    kind = adapter_type(line)
    try:
        cls = adapter_class(kind)
    except ConfigError as exc:
        raise ConfigError(f"backend {line.name!r}: {exc}") from None
    return cls(line, max_results=max_results, max_chars=max_chars,
               pool_strategy=pool_strategy, env=os.environ if env is None else env)


def make_adapters(config: Config, env: Mapping[str, str] | None = None) -> list[Adapter]:
    """Adapters for every enabled line of a config, in config order."""
    return [make_adapter(line, max_results=config.max_results, max_chars=config.max_chars,
                         pool_strategy=config.pool_strategy, env=env)
            for line in config.backends if line.enabled]


def line_problems(config: Config, env: Mapping[str, str], *, live: bool = True
                  ) -> list[tuple[tuple[str | int, ...], str]]:
    """Every line mistake found without a network call, as (config location, message):
    an unknown type, contradictory keys, an enabled line missing what it needs to be asked
    (not checked with ``live=False``: the lines are about to be replaced by recordings)."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for index, line in enumerate(config.backends):
        kind = adapter_type(line)
        if kind not in adapters():
            problems.append((("backends", index, "type"),
                             f"unknown type {kind!r} (known: {', '.join(known_types())})"))
            continue
        try:
            adapter = make_adapter(line, max_results=config.max_results,
                                   max_chars=config.max_chars, env=env)
        except ConfigError as exc:
            message = str(exc).removeprefix(f"backend {line.name!r}: ")
            problems.append((("backends", index), message))
            continue
        if line.enabled and live:
            problems += [(("backends", index, key), message)
                         for key, message in adapter.config_problems(env)]
    return problems


def key_variables(config: Config) -> list[str]:
    """Every environment variable a config may read a key from (names only)."""
    names = [name for adapter in make_adapters(config) for name in adapter.key_envs()]
    if config.extraction.firecrawl.api_key_env:
        names.append(config.extraction.firecrawl.api_key_env)
    return list(dict.fromkeys(names))


def check_key_values(config: Config, env: Mapping[str, str]) -> None:
    """Refuse a key that cannot be sent (a line break, a control character, whitespace
    around it) before anything runs: the error names the variable, never its value."""
    for name in key_variables(config):
        value = env.get(name)
        problem = value_problem(value) if value else None
        if problem:
            raise ConfigError(f"environment variable {name}: {problem}; set it to the key"
                              " alone, with no line break or space around it")


def zero_config_classes() -> list[type[Adapter]]:
    """Adapters that make a line from the environment, in zero-config order (fallback last)."""
    declared = [(cls.zero_config, cls) for cls in adapter_classes() if cls.zero_config]
    declared.sort(key=lambda pair: (pair[0].fallback, pair[0].order, pair[1].type))
    return [cls for _, cls in declared]


def lines_from_environment(env: Mapping[str, str]) -> list[LineConfig]:
    """Zero-config lines: one per adapter whose variables are set (see above)."""
    rules = [(cls.type, cls.zero_config) for cls in zero_config_classes()
             if cls.zero_config is not None]
    for _, rule in rules:
        variable = rule.url_env
        url = env.get(variable) if variable else None
        problem = url and (url_problem(url) or (
            (where := key_in_url(url)) and str(key_refusal(where))))
        if problem:  # the URL itself is never echoed: it may carry a password
            raise ConfigError(f"environment variable {variable}: {problem}")
    lines = [line for name, rule in rules if not rule.fallback
             if (line := rule.line(name, env)) is not None]
    if not lines:
        lines = [LineConfig(name=name) for name, rule in rules if rule.fallback][:1]
    return lines
