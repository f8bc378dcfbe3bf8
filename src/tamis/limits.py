"""The limits a request must keep, checked in one place for every door.

The core (``Tamis.search``) checks every query, whichever interface it came through: not
blank, at most ``MAX_QUERY_CHARS``, lone surrogates made U+FFFD (a JSON ``\\ud800``
escape, or bytes on a command line that are not UTF-8: no encoder takes them, so a cache
key, a backend request or the printed answer would fail); the extraction budget not
negative. ``tamis serve`` asks the same function with its own, tighter settings
(``serve.max_query_chars``, ``serve.max_results``) and names the setting in the error. Each
raises ``RequestRejected`` (a ``TamisError``): the CLI prints it as one ``error:`` line,
HTTP answers 400, MCP a tool error.
"""

from __future__ import annotations

from tamis.errors import RequestRejected

MAX_QUERY_CHARS = 2000  # any query through any door; serve.max_query_chars is tighter


def check_query(query: str | None, *, max_chars: int = MAX_QUERY_CHARS,
                setting: str | None = None, how: str | None = None) -> str:
    """The query stripped, every lone surrogate made U+FFFD (as in backend answers); raises
    when it is blank or longer than ``max_chars``.

    ``setting`` names the config key the limit comes from; ``how`` says how to give one."""
    query = (query or "").strip()
    if not query.isascii():
        from tamis.text import clean_str

        query = clean_str(query)
    if not query:
        raise RequestRejected("the query is empty" + (f": {how}" if how else ""))
    if len(query) > max_chars:
        raise RequestRejected(f"the query is longer than {max_chars} characters"
                              + (f" ({setting})" if setting else ""))
    return query


def check_max_results(max_results: int | None, limit: int) -> int | None:
    """``max_results`` when it is within ``limit`` (None: the config's own)."""
    if max_results is not None and max_results > limit:
        raise RequestRejected(f"max_results is over the limit of {limit}")
    return max_results


def check_budget(budget: int | None) -> int | None:
    """An extraction budget override: None or not negative."""
    if budget is not None and budget < 0:
        raise RequestRejected("the extraction budget cannot be negative")
    return budget
