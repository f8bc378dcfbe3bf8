"""What every ``tamis`` subcommand shares: one-line errors (never a traceback), the closed
pipe that is not an error, the ``--config`` option, and why a search failed in one line.

Every ``cli_*`` module imports from here, never from ``cli`` itself, so the command modules
form no import circle.
"""

from __future__ import annotations

import errno
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import click

from tamis.failure import failure_reason as failure_message  # noqa: F401  (the commands')

F = TypeVar("F", bound=Callable[..., Any])


def guarded(work: Callable[[], Any], passing: tuple[type[BaseException], ...] = ()) -> Any:
    """``work()``, every error turned into one line on stderr and an exit code, never a
    traceback; ``passing``: exceptions let through (click's own, which the group reports)."""
    from tamis.errors import TamisError

    try:
        try:
            return work()
        finally:
            sys.stdout.flush()  # a closed pipe shows here, where it is handled
    except TamisError as exc:
        fail(str(exc), exc.exit_code)
    except KeyboardInterrupt:
        fail("interrupted", 130)
    except BrokenPipeError:
        closed_pipe()
    except (*passing, SystemExit):
        raise
    except Exception as exc:
        if problem := stdout_problem(exc):
            fail(problem)
        if os.environ.get("TAMIS_DEBUG"):
            raise
        fail(f"internal error: {type(exc).__name__}: {exc} (TAMIS_DEBUG=1 shows more)")


def stdout_problem(exc: BaseException | None = None) -> str | None:
    """Why the output could not be written (stdout closed, a full disk, an OSError naming no
    file), or None; stdout then points at /dev/null, so the exit flush prints no traceback."""
    if sys.stdout is None:
        return "stdout is closed: the output could not be written"
    if not (isinstance(exc, OSError) and exc.filename is None
            and exc.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)):
        return None
    stdout_to_devnull()
    return f"the output could not be written: {exc.strerror}"


def friendly_errors(func: F) -> F:
    """Turn every error into one line on stderr and an exit code; never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return guarded(lambda: func(*args, **kwargs),
                       (click.exceptions.Exit, click.ClickException))

    return wrapper  # type: ignore[return-value]


def fail(message: str, code: int = 2) -> NoReturn:
    """One ``error:`` line on stderr, then exit ``code``."""
    from tamis.redact import environment_secrets, scrub

    # Whatever the error, no key of the environment reaches the terminal.
    message = scrub(message, environment_secrets(os.environ)).replace("\n", " ")
    click.echo(f"error: {message}", err=True)
    sys.exit(code)


def closed_pipe() -> NoReturn:
    """The reader of our output went away (``tamis check | head``): not an error. Stop
    quietly, with stdout pointed at /dev/null so the exit flush cannot complain either."""
    stdout_to_devnull()
    sys.exit(0)


def stdout_to_devnull() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


config_option = click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), default=None,
    help="Config file (default: $TAMIS_CONFIG, then ~/.config/tamis/config.yaml, then built-in).",
)


class QueryCommand(click.Command):
    """A command whose one argument is a search query. A query may start with an exclusion
    (``-wikipedia "Vesuvius"``): such an argument, which is not one of the command's
    options, is the query, where click alone would refuse it as an unknown option. A single
    dash marks it (a misspelt ``--option`` is still refused); after ``--`` nothing is moved."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" in args:
            return super().parse_args(ctx, args)
        options = [p for p in self.get_params(ctx) if isinstance(p, click.Option)]
        known = {name for p in options for name in (*p.opts, *p.secondary_opts)}
        valued = {name for p in options if not (p.is_flag or p.count) for name in p.opts}
        kept: list[str] = []
        queries: list[str] = []
        for arg in args:
            value_of_option = bool(kept) and kept[-1] in valued
            if (arg[:1] == "-" and arg[1:2] not in ("", "-") and not value_of_option
                    and arg.partition("=")[0] not in known):
                queries.append(arg)
            else:
                kept.append(arg)
        return super().parse_args(ctx, [*kept, "--", *queries] if queries else kept)
