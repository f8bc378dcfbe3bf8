"""Every error tamis raises, in one tree (as httpx draws its own).

Two families. ``TamisError`` reaches a user: ``str(err)`` is the one line that says what was
wrong and where (file, key, line, backend), never a traceback. Each interface maps it to its
shape in one place: the CLI prints ``error: <line>`` and exits ``exit_code``
(``interfaces.cli_common.friendly_errors``), HTTP answers ``status`` with ``{"error": ...}``
(``interfaces.http_errors.error_for``), MCP gives a tool error
(``interfaces.mcp_server.tool_errors``).
``StageError`` never reaches a user: the stage that raises it catches it at its own
boundary and turns it into a status and a note (a line ``failed``, a key ``no_key``).
httpx's own errors (``httpx.HTTPError`` and its tree, as httpx draws it) never
leave the stage that sent the request: the fan-out maps them once to an ``AnswerError``
(``pipeline.fanout.http_failure``), the page reader to an ``ExtractError``.

    Exception
    +-- TamisError              one line for the user; exit code 2, HTTP 400
    |   +-- ConfigError         a config file, section or value is wrong; the store cannot open
    |   |   +-- DeclarationError    an adapter file declares itself badly (backends.registry)
    |   +-- RequestRejected     a request broke a limit (tamis.limits): empty or long query...
    |   +-- SearchFailed        the search as a whole could not run
    |   +-- HTTPRefusal         ``tamis serve`` answers this HTTP status instead (401, 429, 502...)
    |   +-- DupesError          ``tamis dupes``: an input, config or state file is wrong
    |   +-- MissingExtra        a command needs a package of an extra not installed (tamis.extras)
    +-- StageError              caught by the stage that raised it, becomes a status/note
        +-- AnswerError         a line answered, but not with something usable (its note)
        +-- NoUsableKey         no key of a line can be used now (status ``no_key``)
        +-- DownloadTooLarge    a community list is over its size cap (``tamis lists update``)
        +-- AliasRefused        a config file used a YAML alias (made a ConfigError by its reader)
        +-- SnapshotUnsupported a config value a stored snapshot cannot carry (validated instead)
        +-- InvalidURL          a result URL that cannot be a web page (dropped as invalid_url)
        +-- ExtractError        one page could not be had (its ``failed:<Type>`` status)
        +-- KindedFailure       a failure with a machine ``kind`` and a human ``detail``
            +-- WorkerError     the bounded parsing process: over its time, CPU or memory
            +-- PdfError        a PDF gives no text: encrypted, image-only, broken, too large
"""

from __future__ import annotations


class TamisError(Exception):
    """Base class of the errors a user sees. ``str(err)`` is the one line shown to the user;
    exit code 2 by default."""

    exit_code = 2


class ConfigError(TamisError):
    """A config file is missing, unreadable, not YAML, or does not fit the schema."""


class DeclarationError(ConfigError, TypeError):
    """An adapter module that cannot be imported, or whose declaration tamis could not use:
    one ``error:`` line naming the module, like any other config error."""


class RequestRejected(TamisError):
    """A request broke a limit (empty or too long query, max_results over the cap...)."""


class HTTPRefusal(TamisError):
    """What ``tamis serve`` answers instead of a result: ``status`` (400, 401, 413, 429, 502,
    503...) and the headers to send with it (``Retry-After``, ``WWW-Authenticate``)."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


class SearchFailed(TamisError):
    """The search as a whole could not run (every line failed, a required line failed...)."""


class DupesError(TamisError):
    """``tamis dupes``: a clean, one-line error about an input the user gave (database,
    JSONL, config, state)."""


class MissingExtra(TamisError):
    """A command needs a package that an extra of tamis installs (``tamis.extras.require``):
    the line names the package and the ``pip install`` that brings it."""


class StageError(Exception):
    """Base class of the errors a stage raises for itself and catches at its boundary."""


class AnswerError(StageError):
    """The line answered, but not with something usable. The message is shown as a note.

    ``rest_key`` says whether the key that was used should rest (auth or quota trouble,
    server errors, connection errors). ``kind``: what went wrong, as a ``LineOutcome`` kind
    (the fan-out fills it when the raiser does not). Messages never contain a key.
    """

    def __init__(self, message: str, *, rest_key: bool = False, status: int | None = None,
                 kind: str | None = None):
        super().__init__(message)
        self.rest_key = rest_key
        self.status = status
        self.kind = kind


class NoUsableKey(StageError):
    """No key of the line can be used now: not set, or resting."""


class DownloadTooLarge(StageError):
    """A community list download is over its size cap (declared or read)."""


class AliasRefused(StageError, ValueError):
    """A config file used a YAML alias. ``line`` is 1-based; ``reason`` is the message."""

    def __init__(self, name: str, line: int) -> None:
        self.line = line
        self.reason = (f"YAML aliases are not allowed in config files (*{name}):"
                       " write the value out instead")
        super().__init__(f"line {line}: {self.reason}")


class SnapshotUnsupported(StageError, ValueError):
    """A value a stored config snapshot cannot carry exactly (``tamis.policy.snapshot``): the
    config is then validated on every call instead of kept."""


class InvalidURL(StageError, ValueError):
    """A result's URL that cannot be a web page (no scheme, javascript:, too long...)."""


class ExtractError(StageError):
    """One page could not be had. ``status`` is what the result shows; ``detail`` says why."""

    def __init__(self, status: str, detail: str) -> None:
        super().__init__(detail)
        self.status = status
        self.detail = detail


class KindedFailure(StageError):
    """A failure with a machine ``kind`` (``Timeout``, ``PdfEncrypted``...) and a ``detail``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail


class WorkerError(KindedFailure):
    """The bounded worker process that parses PDFs and very large pages failed or was
    stopped (over its deadline, CPU or memory)."""


class PdfError(KindedFailure):
    """A PDF that gives no text: encrypted, image-only, broken or too large."""
