"""``tamis search`` without click, for the console script (``entry``): when its arguments are
plain, ``quick_body`` reads them exactly as the click command would (a test holds it, case
by case) and ``main`` runs the same search (``cli_search.run``), printing the same bytes.
Importing click is a good part of a warm call's CPU, and a few percent of a cold one's.

Anything else (``--help``, ``--format markdown``, ``--config``, a value click would refuse,
an option written another way) goes to the click command, which says what is wrong. Errors
are one ``error:`` line with the keys of the environment scrubbed, an exit code, never a
traceback (``guarded``, ``fail``: the click commands' too, through ``cli_common``). Standard
library only.
"""

from __future__ import annotations

import os
import sys
from typing import Any

FLAGS = {"--no-extract": ("no_extract", True), "--explain": ("explain", True)}
CHOICES = {"--format": ("format", ("json",)),
           "--time-range": ("time_range", ("day", "week", "month", "year"))}
INTEGERS = {"--max-results": ("max_results", 1, 100), "--safesearch": ("safesearch", 0, 2),
            "--pageno": ("pageno", 1, 50)}
TEXTS = {"--language": "language", "--categories": "categories", "--engines": "engines"}
ORDER = ("time_range", "language", "categories", "engines", "safesearch", "pageno",
         "max_results")  # the order the click command puts them in (``given``)


def quick_arguments(args: list[str]) -> dict[str, Any] | None:
    """``tamis search ARGS`` read: query, no_extract, explain and ``given`` (the options
    set, as the click command collects them); None when click must read these arguments."""
    read: dict[str, Any] = {"no_extract": False, "explain": False}
    positional: list[str] = []
    rest = iter(args)
    for arg in rest:
        if arg == "--":
            positional.extend(rest)
            break
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, equals, value = arg.partition("=")
        if name in FLAGS and not equals:
            key, flag = FLAGS[name]
            read[key] = flag
            continue
        if name not in CHOICES and name not in INTEGERS and name not in TEXTS:
            return None  # --help, --config, an unknown or abbreviated option: click says
        if not equals:
            value = next(rest, None)  # type: ignore[arg-type]
            if value is None or value.startswith("-"):
                return None
        if name in CHOICES:
            key, allowed = CHOICES[name]
            if value not in allowed:
                return None
            read[key] = value
        elif name in INTEGERS:
            key, low, high = INTEGERS[name]
            if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
                return None
            read[key] = int(value)
        else:
            read[TEXTS[name]] = value
    if len(positional) != 1:
        return None
    read.pop("format", None)
    given = {key: read.pop(key) for key in ORDER if key in read}
    return {"query": positional[0], **read, "given": given}


def quick_body(args: list[str]) -> dict[str, Any] | None:
    """The ``/v1/search`` body the warm path sends for ``tamis search ARGS``, or None."""
    read = quick_arguments(args)
    if read is None:
        return None
    return {"query": read["query"], **read["given"], "extract": not read["no_extract"],
            "explain": read["explain"]}


def main(args: list[str]) -> None:
    """Run ``tamis search ARGS`` and exit, when the arguments are plain; else return."""
    read = quick_arguments(args)
    if read is None:
        return
    from tamis.interfaces.cli_search import run

    guarded(lambda: run(read["query"], None, read["no_extract"], read["explain"], "json",
                        read["given"], echo, own_process=True))


def echo(message: str, nl: bool = True, err: bool = False) -> None:
    """``click.echo`` for text: written and flushed; ANSI styles removed when the stream is
    not a terminal, and UTF-8 (bad characters replaced) on a stream set to ASCII, as click
    does both."""
    stream = sys.stderr if err else sys.stdout
    text = message + ("\n" if nl else "")
    if "\x1b" in text and not stream.isatty():
        import re

        text = re.sub(r"\033\[[;?0-9]*[a-zA-Z]", "", text)  # click's strip_ansi
    if _ascii(stream) and hasattr(stream, "buffer"):
        stream.flush()
        stream.buffer.write(text.encode("utf-8", "replace"))
        stream.buffer.flush()
        return
    stream.write(text)
    stream.flush()


def _ascii(stream: Any) -> bool:
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def guarded(work: Any, passing: tuple[type[BaseException], ...] = ()) -> Any:
    """``work()``, every error turned into one line on stderr and an exit code, never a
    traceback; ``passing``: exceptions let through (click's own, for click commands:
    ``cli_common.friendly_errors``)."""
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
        if os.environ.get("TAMIS_DEBUG"):
            raise
        fail(f"internal error: {type(exc).__name__}: {exc} (TAMIS_DEBUG=1 shows more)")


def fail(message: str, code: int = 2) -> None:
    """One ``error:`` line on stderr, then exit ``code``."""
    from tamis.redact import environment_secrets, scrub

    # Whatever the error, no key of the environment reaches the terminal.
    message = scrub(message, environment_secrets(os.environ)).replace("\n", " ")
    echo(f"error: {message}", err=True)
    sys.exit(code)


def closed_pipe() -> None:
    """The reader of our output went away (``tamis check | head``): not an error. Stop
    quietly, with stdout pointed at /dev/null so the exit flush cannot complain either."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(0)
