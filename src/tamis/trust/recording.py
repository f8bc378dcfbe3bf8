"""Record every line's answer per query into a folder, and replay a folder offline.

``tamis check --record DIR`` writes one file per query (``<query-slug>.json``, the format
described in ``tamis.backends.recorded``): every line's ``LineAnswer`` (status, hits with
provenance, notes) and, when it could be captured, the JSON the backend sent. Key values
never reach a file: notes are scrubbed by the fan-out, and every key value of the config is
replaced by ``***`` in the text before it is written.

``replay_config`` turns a config into one whose lines answer from such a folder: same names,
same order, same weights and ``required`` flags, so the ranking is the one of the live run.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from tamis.atomic import write_atomic
from tamis.backends.base import Adapter, AnswerError
from tamis.backends.recorded import (
    RECORDING_FORMAT,
    is_recording,
    is_searxng_answer,
    query_slug,
    read_file,
    recorded_query,
)
from tamis.backends.registry import adapter_type
from tamis.errors import ConfigError
from tamis.models import LineAnswer, SearchRequest
from tamis.pipeline.fanout import scrub
from tamis.policy.schema import CacheConfig, Config, LineConfig
from tamis.version import __version__

SEARXNG_TYPES = frozenset({"searxng", "replay"})


def bare_url(url: httpx.URL | str) -> str:
    """A URL without its query string and fragment: what a line's endpoint looks like."""
    return str(httpx.URL(str(url)).copy_with(query=None, fragment=None))


def request_url(adapter: Adapter, request: SearchRequest) -> str | None:
    """Where this adapter sends this request (no key involved), or None."""
    if not adapter.speaks_http:
        return None
    try:
        return bare_url(adapter.build_request(request, None).url)
    except Exception:  # an adapter that cannot build a keyless request: no payload for it
        return None


class PayloadTap:
    """An ``httpx`` response hook that keeps every answer's body, to store raw payloads.

    Install on a client (``event_hooks={"response": [tap]}``); ``payload_for`` gives a line
    the body of its last successful answer, matched by endpoint. Lines that share an
    endpoint cannot be told apart: they get no payload (their ``LineAnswer`` is still kept).
    """

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, bytes]] = []

    async def __call__(self, response: httpx.Response) -> None:
        await response.aread()
        self.seen.append((bare_url(response.request.url), response.status_code,
                          response.content))

    def clear(self) -> None:
        self.seen.clear()

    def payload_for(self, adapter: Adapter, adapters: list[Adapter],
                    request: SearchRequest) -> Any:
        url = request_url(adapter, request)
        if url is None:
            return None
        if sum(1 for other in adapters if request_url(other, request) == url) > 1:
            return None
        bodies = [body for seen, status, body in self.seen
                  if seen == url and 200 <= status < 300]
        if not bodies:
            return None
        try:
            return json.loads(bodies[-1])
        except (ValueError, UnicodeDecodeError):
            return None


def key_values(config: Config, env: Mapping[str, str]) -> list[str]:
    """Every key value the config's lines may read (to keep them out of recordings)."""
    names = {name for line in config.backends for name in line.key_envs()}
    names.add(config.extraction.firecrawl.api_key_env or "")
    return sorted({env[n] for n in names if n and env.get(n)}, key=len, reverse=True)


def write_recording(folder: Path, query: str, answers: list[LineAnswer],
                    adapters: list[Adapter], payloads: Mapping[str, Any],
                    secrets: list[str], *, config_source: str = "") -> Path:
    """Write one query's answers to ``folder/<slug>.json``; return the path."""
    by_name = {a.name: a for a in adapters}
    lines = []
    for answer in answers:
        adapter = by_name.get(answer.line)
        lines.append({
            "line": answer.line,
            "type": adapter.type if adapter else None,
            "endpoint": scrub(adapter.endpoint(), []) if adapter else None,
            "answer": answer.model_dump(mode="json"),
            "payload": payloads.get(answer.line),
        })
    data = {
        "format": RECORDING_FORMAT,
        "query": query,
        "recorded_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tamis_version": __version__,
        "config": config_source,
        "lines": lines,
    }
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    for secret in secrets:
        text = text.replace(secret, "***")
        escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
        if escaped != secret:
            text = text.replace(escaped, "***")
    path = folder / f"{query_slug(query)}.json"
    try:
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:  # a folder under /proc, a file in the way, a full disk
        raise ConfigError(f"cannot write the recording in {str(folder)!r}: {exc.strerror}"
                          ) from None
    return path


def check_folder(folder: str | os.PathLike[str]) -> Path:
    path = Path(folder).expanduser()
    if not path.is_dir():
        raise ConfigError(f"recordings folder {str(path)!r} does not exist")
    return path


def recorded_queries(folder: Path) -> list[str]:
    """The queries of every recording in a folder (file name order)."""
    queries: list[str] = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = read_file(path)
        except AnswerError:
            continue
        query = recorded_query(data) if (is_recording(data) or is_searxng_answer(data)) else None
        if query and query_slug(query) == path.stem and query not in queries:
            queries.append(query)
    return queries


def replay_config(config: Config, folder: Path) -> Config:
    """The config with every enabled line answering from ``folder`` (no network).

    A bare SearXNG answer file is given to the config's SearXNG lines, or to its first line
    when it has none (so ``--replay src/tamis/demo`` works with any config).
    """
    enabled = [line for line in config.backends if line.enabled]
    has_searxng = any(adapter_type(line) in SEARXNG_TYPES for line in enabled)
    lines = [
        LineConfig(
            name=line.name, type="recorded", path=str(folder), required=line.required,
            weight=line.weight,
            params={"searxng_files": (adapter_type(line) in SEARXNG_TYPES) if has_searxng
                    else index == 0},
        )
        for index, line in enumerate(enabled)
    ]
    return config.model_copy(update={"backends": lines, "cache": CacheConfig(enabled=False)})
