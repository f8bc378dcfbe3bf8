"""The one error type of `tamis dupes`: a problem with an input, a config or a state file.

Its message is a single line naming what went wrong and where (file, line, key); the CLI prints it
on stderr and exits 2, never with a traceback.
"""

from __future__ import annotations


class DupesError(Exception):
    """A clean, one-line error about an input the user gave (database, JSONL, config, state)."""
