"""What every ``tamis`` subcommand shares: one-line errors (never a traceback), the closed
pipe that is not an error, the ``--config`` option, and why a search failed in one line.

Every ``cli_*`` module imports from here, never from ``cli`` itself, so the command modules
form no import circle.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import click

from tamis.failure import failure_reason as failure_message  # noqa: F401  (the commands')
from tamis.interfaces.cli_quick import closed_pipe, fail, guarded  # noqa: F401  (the commands')

F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(func: F) -> F:
    """Turn every error into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return guarded(lambda: func(*args, **kwargs),
                       (click.exceptions.Exit, click.ClickException))

    return wrapper  # type: ignore[return-value]


config_option = click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), default=None,
    help="Config file (default: $TAMIS_CONFIG, then ~/.config/tamis/config.yaml, then built-in).",
)
