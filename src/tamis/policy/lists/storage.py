"""Where lists live on disk: the fetched copies and the parsed-form cache.

Both sit in the tamis cache folder (``$XDG_CACHE_HOME/tamis/lists``, beside the default
store): ``<name>.txt`` is the last good copy of a URL list and ``<name>.json`` what is known
of it (URL, ETag, Last-Modified, when fetched, its hash); ``parsed/<sha256>-<format>.marshal``
is a list's parsed rules, keyed on the hash of its text, so a list that did not change is
not parsed again. Every write is a temporary file renamed into place: a reader never sees
half a file, and a failed fetch leaves the previous copy as it was.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import re
import time
from pathlib import Path
from typing import Any

from tamis.atomic import write_atomic
from tamis.policy.lists.model import BadLine, CompiledList, Rule
from tamis.store.base import default_store_path

PARSED_VERSION = 2  # bump when a parser changes what it makes of a line


def lists_dir() -> Path:
    return default_store_path().parent / "lists"


_USERINFO = re.compile(r"(\w+://)[^/@\s]+@")
_QUERY = re.compile(r"(\w+://[^\s?#]+)[?#][^\s]*")


def redact(text: str) -> str:
    """A list URL (or a message quoting one) without its user:password or query string:
    a subscription token never reaches output, logs or the cache folder."""
    return _QUERY.sub(r"\1?…", _USERINFO.sub(r"\1***@", text))


def is_url(source: str) -> bool:
    return source.startswith(("http://", "https://"))


def copy_path(name: str) -> Path:
    return lists_dir() / f"{name}.txt"


def meta_path(name: str) -> Path:
    return lists_dir() / f"{name}.json"


def read_meta(name: str) -> dict[str, Any]:
    try:
        data = json.loads(meta_path(name).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_meta(name: str, meta: dict[str, Any]) -> None:
    write_atomic(meta_path(name), json.dumps(meta, indent=1, sort_keys=True).encode())


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# ------------------------------------------------------------------ parsed-form cache
def _parsed_path(digest: str, fmt: str) -> Path:
    return lists_dir() / "parsed" / f"{digest}-{fmt}-v{PARSED_VERSION}.marshal"


def load_parsed(digest: str, fmt: str) -> CompiledList | None:
    try:
        raw = _parsed_path(digest, fmt).read_bytes()
        fmt_, hosts, other, count, bad, skipped, comments, title = marshal.loads(raw)
        compiled = CompiledList(fmt_, hosts, [Rule._make(r) for r in other], count,
                                [BadLine(*b) for b in bad], comments=comments, title=title)
        compiled.skipped.update(skipped)
        return compiled
    except (OSError, ValueError, EOFError, TypeError):
        return None


def save_parsed(digest: str, fmt: str, compiled: CompiledList) -> None:
    data = marshal.dumps((compiled.format, compiled.hosts, [tuple(r) for r in compiled.other],
                          compiled.rule_count, [(b.line, b.text, b.why) for b in compiled.bad],
                          dict(compiled.skipped), compiled.comments, compiled.title))
    with contextlib.suppress(OSError):  # a read-only cache folder costs a parse, no more
        write_atomic(_parsed_path(digest, fmt), data)


def age_text(seconds: float | None) -> str:
    if seconds is None:
        return "never fetched"
    if seconds < 120:
        return f"{int(seconds)} s old"
    if seconds < 7200:
        return f"{int(seconds // 60)} min old"
    if seconds < 172800:
        return f"{int(seconds // 3600)} h old"
    return f"{int(seconds // 86400)} days old"


def now() -> float:
    return time.time()
