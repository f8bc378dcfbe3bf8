"""Errors that reach a user: each carries one clear line saying what was wrong and where."""

from __future__ import annotations


class TamisError(Exception):
    """Base class. ``str(err)`` is the one line shown to the user; exit code 2 by default."""

    exit_code = 2


class ConfigError(TamisError):
    """A config file is missing, unreadable, not YAML, or does not fit the schema."""


class SearchFailed(TamisError):
    """The search as a whole could not run (every line failed, a required line failed...)."""


class RequestRejected(TamisError):
    """A request broke a limit (empty or too long query, max_results over the cap...)."""
