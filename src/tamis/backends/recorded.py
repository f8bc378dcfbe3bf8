"""Recorded: answers saved in a folder, one JSON file per query. No network.

What each line answered when ``tamis check --record DIR`` ran, or bare SearXNG answers.

``tamis check --replay DIR`` (and ``tamis compare --replay DIR``) replaces every configured
line by a ``recorded`` line of the same name, so the whole pipeline runs offline on the
answers the live stack gave that day: a frozen regression suite CI can run without keys.
It can also be configured by hand::

    backends:
      - name: tavily          # the line whose recorded answers this line gives back
        type: recorded        # ``replay`` is the same adapter (its older name)
        path: ./recordings    # folder of <query-slug>.json files

A query's file is its slug (``query_slug``): lowercased, every run of characters other than
a-z and 0-9 replaced by '-', e.g. ``proxmox-thin-pool-metadata-exhaustion-recovery.json``.
Its format::

    {"format": "tamis-recording/1", "query": "...", "recorded_at": "2026-...Z",
     "lines": [{"line": "tavily", "type": "tavily", "endpoint": "https://...",
                "answer": {<LineAnswer: status, hits with provenance, notes, seconds>},
                "payload": <the JSON the backend sent, when it could be captured; else null>}]}

A line answers exactly what it answered when recorded: its hits (with their provenance
labels and positions) and its notes; a line that had failed, timed out or had no usable key
fails again, with the recorded reason. An entry may carry a SearXNG ``format=json`` answer
instead of ``answer`` (``{"line": "searxng", "searxng": {...}}``), read as the live SearXNG
adapter reads it. A bare SearXNG answer file (what ``tamis demo`` replays under a ``type:
replay`` line: ``src/tamis/demo/*.json``) is the answer of a line whose
``params.searxng_files`` is true: the default for a hand-written line; ``--replay`` sets it
on the config's SearXNG lines (or on its first line when it has none).

A query with no file, or a file with no entry for this line, fails the line (status
``failed``) with a note saying which file was missing: it never answers "no results".
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tamis.backends.base import Adapter, Parsed, Supports
from tamis.backends.searxng import parse_searxng
from tamis.errors import AnswerError
from tamis.models import LineAnswer, SearchRequest

RECORDING_FORMAT = "tamis-recording/1"

# Notes the fan-out adds itself when it builds a LineAnswer: not given back, or they would
# appear twice after a replay.
FANOUT_KINDS = frozenset({"line_empty", "line_failed", "line_timeout", "no_usable_key"})
FAILURE_STATUSES = frozenset({"failed", "timeout", "no_key"})


def query_slug(query: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")
    return slug[:120] or "empty"


def is_recording(data: Any) -> bool:
    return isinstance(data, dict) and data.get("format") == RECORDING_FORMAT


def is_searxng_answer(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("results"), list) and (
        "lines" not in data)


def read_file(path: Path) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise AnswerError(f"recording {path.name} is not readable JSON: {exc}") from None


def recorded_query(data: Any) -> str | None:
    """The query a recording (or a bare SearXNG answer) was made for, when it says."""
    if isinstance(data, dict) and isinstance(data.get("query"), str) and data["query"].strip():
        return str(data["query"]).strip()
    return None


class Recorded(Adapter):
    type = "recorded"
    aliases = ("replay",)
    options = ("path",)
    endpoint_doc = "`path`: a folder of recorded answers (no network)"
    supports = Supports()
    speaks_http = False
    cacheable = False  # reading a file is faster than the cache

    def config_problems(self, env: Mapping[str, str]) -> list[tuple[str, str]]:
        if not self.line.path:
            return [("path", f"missing: a {self.kind} line reads the folder of recordings"
                             " named here")]
        if not self.folder().is_dir():
            return [("path", "is not a folder of recordings (no such directory)")]
        return []

    @property
    def kind(self) -> str:
        """The type the line was given (``replay`` is an alias), for messages."""
        return self.line.type or self.type

    def folder(self) -> Path:
        if not self.line.path:
            raise AnswerError(f"{self.kind} needs 'path': the folder of recordings")
        return Path(self.line.path).expanduser()

    def endpoint(self) -> str:
        return f"file://{self.line.path}" if self.line.path else "(no path)"

    def accepts_searxng_files(self) -> bool:
        return bool(self.line.params.get("searxng_files", True))

    def load(self, query: str) -> Any:
        folder = self.folder()
        if not folder.is_dir():
            raise AnswerError(f"recordings folder {str(folder)!r} does not exist")
        path = folder / f"{query_slug(query)}.json"
        if not path.is_file():
            raise AnswerError(f"no recording for this query ({path.name})")
        return read_file(path)

    async def fetch(self, request: SearchRequest) -> Parsed:
        data = self.load(request.query)
        if is_searxng_answer(data):
            if not self.accepts_searxng_files():
                raise AnswerError("the recording is a SearXNG answer, given to another line")
            return parse_searxng(self, data)
        if not is_recording(data):
            raise AnswerError(f"{query_slug(request.query)}.json is neither a tamis recording"
                              " nor a SearXNG answer")
        entry = next((e for e in data.get("lines") or []
                      if isinstance(e, dict) and e.get("line") == self.name), None)
        if entry is None:
            raise AnswerError(f"the recording has no answer of line {self.name!r}")
        if isinstance(entry.get("searxng"), dict):
            return parse_searxng(self, entry["searxng"])
        try:
            answer = LineAnswer.model_validate(entry.get("answer"))
        except ValueError as exc:
            first = str(exc).splitlines()[0]
            raise AnswerError(f"the recorded answer of {self.name!r} is not valid: {first}"
                              ) from None
        if answer.status in FAILURE_STATUSES:
            why = "; ".join(n.message for n in answer.notes if n.kind in FANOUT_KINDS)
            raise AnswerError(f"recorded as {answer.status}" + (f": {why}" if why else ""))
        return Parsed(hits=answer.hits,
                      notes=[n for n in answer.notes if n.kind not in FANOUT_KINDS])
