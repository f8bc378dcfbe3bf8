"""The fan-out's state in the store: a guard that never lets a failing store take a search
down, and the answer cache (its key, its entries, stale-if-error).

Cache key: everything that changes the request (the line's settings including ``params``,
adapter type, endpoint, query, request parameters, count). Entries are kept past their TTL
(up to ``STALE_SECONDS``) so that they can stand in for a line that fails.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import TYPE_CHECKING, NamedTuple

from tamis.backends.base import Adapter, Parsed
from tamis.models import Note, RawHit, SearchRequest
from tamis.redact import scrub
from tamis.store.base import Store

if TYPE_CHECKING:  # pragma: no cover
    from concurrent.futures import Future

CACHE_NAMESPACE = "answers"
STALE_SECONDS = 86400.0  # how long an expired answer may still stand in for a failed line

log = logging.getLogger("tamis.fanout")


def describe_error(exc: BaseException, secrets: list[str]) -> str:
    """One scrubbed line for an exception: its type and (scrubbed, capped) text."""
    whole = scrub(str(exc), secrets).strip()  # scrub first: a key may span a line break
    text = whole.splitlines()[0][:200] if whole else ""
    name = type(exc).__name__
    return f"{name}: {text}" if text else name


# -- store access that never takes a search down --------------------------------------------
class GuardedStore:
    """A store wrapper: a failing store reads as empty and ignores writes, once noted."""

    def __init__(self, store: Store, secrets: list[str]) -> None:
        self.store = store
        self.secrets = secrets
        self.error: str | None = None

    def _fail(self, exc: Exception) -> None:
        if self.error is None:
            self.error = describe_error(exc, self.secrets)
            log.warning("store unavailable: %s", self.error)

    def get(self, namespace: str, key: str) -> bytes | None:
        try:
            return self.store.get(namespace, key)
        except Exception as exc:
            self._fail(exc)
            return None

    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None:
        try:
            self.store.set(namespace, key, value, ttl)
        except Exception as exc:
            self._fail(exc)

    def delete(self, namespace: str, key: str) -> None:
        try:
            self.store.delete(namespace, key)
        except Exception as exc:
            self._fail(exc)

    def written(self) -> Future[None] | None:
        written = getattr(self.store, "written", None)
        return written() if written is not None else None

    def flush(self) -> None:
        try:
            self.store.flush()
        except Exception as exc:
            self._fail(exc)

    def close(self) -> None:  # the caller owns the store
        pass


# -- cache -------------------------------------------------------------------------------------
# Line settings that never change what the backend is asked.
_NOT_IN_REQUEST = frozenset({"weight", "required", "enabled", "pool_strategy"})


def cache_key(adapter: Adapter, request: SearchRequest) -> str:
    """Hash of everything that changes the request: the line's settings (name, type,
    base_url, path, params, method, fields, auth style, key variable NAMES), the endpoint,
    the query, the request parameters and the requested count."""
    line = adapter.line.model_dump(mode="json", exclude=_NOT_IN_REQUEST)
    material = json.dumps(
        [adapter.name, adapter.type, adapter.endpoint(), request.query,
         request.cache_params(), adapter.count(request), line],
        sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class Cached(NamedTuple):
    status: str
    hits: list[RawHit]
    notes: list[Note]
    age: float


def cache_read(store: GuardedStore, key: str, now: float) -> Cached | None:
    raw = store.get(CACHE_NAMESPACE, key)
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        # strict: every value of the type tamis wrote it as
        hits = [RawHit.model_validate(hit, strict=True) for hit in data["hits"]]
        notes = [Note.model_validate(note, strict=True) for note in data.get("notes", [])]
        age = max(0.0, now - float(data.get("fetched", now)))
    except (ValueError, KeyError, TypeError):
        return None  # an unreadable entry is a miss; it is overwritten on the next answer
    return Cached("ok" if hits else "empty", hits, notes, age)


def cache_write(store: GuardedStore, key: str, parsed: Parsed, ttl: float, now: float) -> None:
    value = json.dumps({"hits": [hit.model_dump(mode="json") for hit in parsed.hits],
                        "notes": [note.model_dump(mode="json") for note in parsed.notes],
                        "fetched": now}, ensure_ascii=False, separators=(",", ":"))
    # Kept past its TTL so that it can stand in for the line when the line fails.
    store.set(CACHE_NAMESPACE, key, value.encode("utf-8"), ttl=max(ttl, STALE_SECONDS))


def stale_note(line: str, cached: Cached, why: str) -> Note:
    return Note(source=line, kind="cached",
                message=f"stale answer from cache ({cached.age:.0f} s old) used because the"
                        f" line {why}")
