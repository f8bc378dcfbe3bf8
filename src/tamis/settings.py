"""The config in effect: the policy files read and validated (``tamis.policy.loader``), then
completed with the lines of the environment (zero config) and checked against the adapters
that will ask them, all without a network call. Every interface loads its config here.

It stands above ``policy`` and ``backends`` because it needs both: the policy knows nothing
of adapters, and adapters know only the line config they are given.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tamis.policy.loader import LoadedConfig, ReadConfig, read_config

if TYPE_CHECKING:
    from tamis.policy.schema import Config, LineConfig
    from tamis.store.base import Store

__all__ = ["LoadedConfig", "load_config", "zero_config_backends"]


def zero_config_backends(env: Mapping[str, str] | None = None) -> list[LineConfig]:
    """Lines made from the environment when no config file names any."""
    from tamis.backends.registry import lines_from_environment

    return lines_from_environment(os.environ if env is None else env)


def load_config(
    explicit: str | os.PathLike[str] | None = None,
    *,
    overrides: dict[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    live: bool = True,
    snapshots: Store | None = None,
) -> LoadedConfig:
    """Read the config in effect. Raises ConfigError with a one-line message.

    ``live=False`` (``--replay``: the lines are replaced by recordings) skips the checks of
    what a line needs to be asked live (its base_url, its folder). ``snapshots``: a store
    keeping the validated files (``tamis.policy.snapshot``; the CLI passes its store)."""
    from tamis.backends.registry import check_key_values, key_shapes

    environ = os.environ if env is None else env
    read = read_config(explicit, overrides=overrides, snapshots=snapshots,
                       key_shapes=key_shapes())
    config = read.config
    if not read.user_has_backends and not config.backends:
        config = config.model_copy(update={"backends": zero_config_backends(environ)})
    problem = _usability_problem(config, read, environ, live=live)
    if problem is not None:
        raise read.error(*problem)
    check_key_values(config, environ)
    return LoadedConfig(config=config, source=read.source)


def _usability_problem(config: Config, read: ReadConfig, env: Mapping[str, str], *,
                       live: bool = True) -> tuple[tuple[Any, ...], str] | None:
    """The first mistake that would make every search fail, found without a network call."""
    from tamis.backends.registry import line_problems

    problems = line_problems(config, env, live=live)
    if problems:
        return problems[0]
    enabled = [line for line in config.backends if line.enabled]
    if read.user_has_backends and not enabled:
        return ("backends",), ("no enabled line: name at least one backend, or remove"
                               " 'backends' to use the lines of the environment")
    if config.min_backends > len(enabled):
        return ("min_backends",), (f"is {config.min_backends} but only {len(enabled)} line(s)"
                                   " are enabled: no search could ever succeed")
    return None
