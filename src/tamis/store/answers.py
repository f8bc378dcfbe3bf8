"""The ranked-answer cache: a repeat search within the TTL is answered from the stored answer,
without asking a line and without merge, filter, rank or extraction.

The key is a hash of everything that changes an answer: the effective config (its hash, so a
changed policy, line or parameter is a new key), the request (query and every parameter
given) and the options (extraction on or off, explain, a result count or budget given by the
caller). The value is the answer's JSON data as first returned (compact JSON); a repeat is
the same data with every line's ``cached: true``.

``config-fingerprint`` entries let a CLI call find the effective config's hash from the bytes
of the config files and the environment, before validating anything (see
``tamis.interfaces.cli_cache``). Standard library only: a cached repeat of the CLI reads its
answer through this module alone.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from typing import TYPE_CHECKING, Any

from tamis.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from tamis.store.protocol import Store

ANSWERS = "answer"
FINGERPRINTS = "config-fingerprint"
KEY_VERSION = 1
# Extraction states a repeat would reproduce from the page cache (failures are asked again).
STABLE_EXTRACTIONS = frozenset({"ok", "truncated", "skipped", "skipped_budget_exhausted",
                                "duplicate"})


def digest(material: Any) -> str:
    text = json.dumps(material, sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def answer_key(config_hash: str, request: dict[str, Any], options: dict[str, Any]) -> str:
    """``request``: the query and the parameters given (none left at their default)."""
    return digest([KEY_VERSION, __version__, config_hash, request, options])


def get(store: Store, key: str) -> dict[str, Any] | None:
    """The stored answer, marked cached; None when absent, expired, unreadable or the store
    fails (a cache never makes a search fail)."""
    raw = get_raw(store, key)
    return None if raw is None else parse(raw)


def get_raw(store: Store, key: str) -> bytes | None:
    """The stored answer's bytes as put (a server compares them with the answer it last
    rendered, to skip parsing it again); None when absent, expired or the store fails."""
    try:
        return store.get(ANSWERS, key)
    except Exception:
        return None


def parse(raw: bytes) -> dict[str, Any] | None:
    """``get``'s answer from the stored bytes: marked cached, None when unreadable."""
    try:
        data = json.loads(raw)
    except Exception:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("lines"), list):
        return None
    for line in data["lines"]:
        line["cached"] = True
    return data


def put(store: Store, key: str, answer: dict[str, Any], ttl: float) -> None:
    """Store the answer as compact JSON; an answer that cannot be dumped is not stored."""
    try:
        raw = json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except Exception:
        return
    with contextlib.suppress(Exception):  # the answer is still returned, the repeat slower
        store.set(ANSWERS, key, raw, ttl=ttl)


def storable(answer: dict[str, Any], line_statuses: list[str], every_line_cacheable: bool,
             line_notes: list[dict[str, Any]]) -> bool:
    """Only answers a repeat would reproduce: every line answered (ok or empty) from a line
    whose answers are cached, no stale stand-in, no page whose extraction failed."""
    if answer.get("status") not in ("ok", "no_results") or not every_line_cacheable:
        return False
    if not line_statuses or any(s not in ("ok", "empty") for s in line_statuses):
        return False
    if any(n.get("kind") == "cached" for n in line_notes):  # a stale answer stood in
        return False
    if (answer.get("extraction") or {}).get("failures"):
        return False
    return all(r.get("extraction", "skipped") in STABLE_EXTRACTIONS
               for r in answer.get("results", []))


def remember_config(store: Store, fingerprint: str, config_hash: str, ttl: float) -> None:
    with contextlib.suppress(Exception):
        store.set(FINGERPRINTS, fingerprint, config_hash.encode("ascii"), ttl=ttl)


def config_hash_for(store: Store, fingerprint: str) -> str | None:
    try:
        raw = store.get(FINGERPRINTS, fingerprint)
    except Exception:
        return None
    return raw.decode("ascii") if raw else None
