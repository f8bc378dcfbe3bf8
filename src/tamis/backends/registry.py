"""Which adapter serves which line, and the lines made from the environment (zero config).

A line's adapter is its ``type``, else its ``name`` when that is a known type, else
``generic``. Zero config (no config file, or one without ``backends``): one line per
provider whose environment variable is set, in this order:

    SEARXNG_URL                      -> searxng (that instance)
    TAVILY_API_KEY                   -> tavily
    BRAVE_API_KEY                    -> brave
    EXA_API_KEY                      -> exa
    SERPER_API_KEY                   -> serper
    FIRECRAWL_API_KEY / FIRECRAWL_URL -> firecrawl (hosted with the key; FIRECRAWL_URL: that
                                        self-hosted instance, with the key only if it is set)

and with none of them, the keyless ``ddgs`` line, so tamis answers out of the box.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING

from tamis.backends.base import Adapter
from tamis.errors import ConfigError
from tamis.policy.checks import url_problem
from tamis.policy.schema import LineConfig
from tamis.redact import value_problem

if TYPE_CHECKING:
    from tamis.policy.schema import Config

# type -> "module:Class". One line per adapter module in this folder.
ADAPTERS: dict[str, str] = {
    "searxng": "tamis.backends.searxng:SearXNG",
    "tavily": "tamis.backends.tavily:Tavily",
    "brave": "tamis.backends.brave:Brave",
    "exa": "tamis.backends.exa:Exa",
    "serper": "tamis.backends.serper:Serper",
    "firecrawl": "tamis.backends.firecrawl:Firecrawl",
    "ddgs": "tamis.backends.ddgs:DDGSAdapter",
    "generic": "tamis.backends.generic:Generic",
    "replay": "tamis.backends.replay:Replay",
    "recorded": "tamis.backends.recorded:Recorded",
}

# Zero-config environment variables, in line order.
ENV_LINES: tuple[tuple[str, str], ...] = (
    ("TAVILY_API_KEY", "tavily"),
    ("BRAVE_API_KEY", "brave"),
    ("EXA_API_KEY", "exa"),
    ("SERPER_API_KEY", "serper"),
)


def adapter_type(line: LineConfig) -> str:
    if line.type:
        return line.type
    return line.name if line.name in ADAPTERS else "generic"


def adapter_class(kind: str) -> type[Adapter]:
    target = ADAPTERS.get(kind)
    if target is None:
        known = ", ".join(sorted(ADAPTERS))
        raise ConfigError(f"unknown type {kind!r} (known: {known})")
    module_name, class_name = target.split(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    assert issubclass(cls, Adapter)
    return cls


def make_adapter(line: LineConfig, *, max_results: int = 8, max_chars: int = 400,
                 pool_strategy: str | None = None) -> Adapter:
    """The adapter for one line. ``pool_strategy``: the section-level default."""
    kind = adapter_type(line)
    try:
        cls = adapter_class(kind)
    except ConfigError as exc:
        raise ConfigError(f"backend {line.name!r}: {exc}") from None
    return cls(line, max_results=max_results, max_chars=max_chars,
               pool_strategy=pool_strategy)


def make_adapters(config: Config) -> list[Adapter]:
    """Adapters for every enabled line of a config, in config order."""
    return [make_adapter(line, max_results=config.max_results, max_chars=config.max_chars,
                         pool_strategy=config.pool_strategy)
            for line in config.backends if line.enabled]


def line_problems(config: Config, env: Mapping[str, str], *, live: bool = True
                  ) -> list[tuple[tuple[str | int, ...], str]]:
    """Every line mistake found without a network call, as (config location, message):
    an unknown type, contradictory keys, an enabled line missing what it needs to be asked
    (not checked with ``live=False``: the lines are about to be replaced by recordings)."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    for index, line in enumerate(config.backends):
        kind = adapter_type(line)
        if kind not in ADAPTERS:
            known = ", ".join(sorted(ADAPTERS))
            problems.append((("backends", index, "type"),
                             f"unknown type {kind!r} (known: {known})"))
            continue
        try:
            adapter = make_adapter(line, max_results=config.max_results,
                                   max_chars=config.max_chars)
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


def lines_from_environment(env: Mapping[str, str]) -> list[LineConfig]:
    """Zero-config lines: one per backend whose environment variable is set (see above)."""
    for variable in ("SEARXNG_URL", "FIRECRAWL_URL"):
        problem = url_problem(env[variable]) if env.get(variable) else None
        if problem:  # the URL itself is never echoed: it may carry a password
            raise ConfigError(f"environment variable {variable}: {problem}")
    lines: list[LineConfig] = []
    if env.get("SEARXNG_URL"):
        lines.append(LineConfig(name="searxng", base_url=env["SEARXNG_URL"]))
    for variable, name in ENV_LINES:
        if env.get(variable):
            lines.append(LineConfig(name=name, api_key_env=variable))
    if env.get("FIRECRAWL_URL"):
        key = "FIRECRAWL_API_KEY" if env.get("FIRECRAWL_API_KEY") else None
        lines.append(LineConfig(name="firecrawl", base_url=env["FIRECRAWL_URL"],
                                api_key_env=key))
    elif env.get("FIRECRAWL_API_KEY"):
        lines.append(LineConfig(name="firecrawl", api_key_env="FIRECRAWL_API_KEY"))
    if not lines:
        lines.append(LineConfig(name="ddgs"))
    return lines
