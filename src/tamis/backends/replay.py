"""Replay: recorded SearXNG answers from a folder, one JSON file per query. No network.

Config::

    backends:
      - name: searxng        # the provenance label the recording is shown under
        type: replay
        path: ./recordings   # folder of <query-slug>.json files

A query's file is its slug: lowercased, every run of characters other than a-z and 0-9
replaced by '-', e.g. ``proxmox-thin-pool-metadata-exhaustion-recovery.json``. A query with
no recording answers no results, with a note. Used by ``tamis demo`` and by the tests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tamis.backends.base import Adapter, AnswerError, Parsed, Supports
from tamis.backends.searxng import parse_searxng
from tamis.models import SearchRequest


def query_slug(query: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")
    return slug[:120] or "empty"


class Replay(Adapter):
    type = "replay"
    supports = Supports()
    speaks_http = False
    cacheable = False  # reading a file is faster than the cache

    def config_problems(self, env: Mapping[str, str]) -> list[tuple[str, str]]:
        if not self.line.path:
            return [("path", "missing: a replay line reads the folder of recordings named here")]
        if not self.folder().is_dir():
            return [("path", "is not a folder of recordings (no such directory)")]
        return []

    def folder(self) -> Path:
        if not self.line.path:
            raise AnswerError("replay needs 'path': the folder of recorded answers")
        return Path(self.line.path).expanduser()

    def endpoint(self) -> str:
        return f"file://{self.line.path}" if self.line.path else "(no path)"

    def load(self, query: str) -> Any:
        folder = self.folder()
        if not folder.is_dir():
            raise AnswerError(f"replay folder {str(folder)!r} does not exist")
        path = folder / f"{query_slug(query)}.json"
        if not path.is_file():
            raise AnswerError(f"no recording for this query ({path.name})")
        try:
            return json.loads(path.read_text("utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise AnswerError(f"recording {path.name} is not readable JSON: {exc}") from None

    async def fetch(self, request: SearchRequest) -> Parsed:
        return parse_searxng(self, self.load(request.query))
