"""``tamis lists update``: fetch every URL list, explicitly (searches never fetch).

A conditional GET (``If-None-Match`` / ``If-Modified-Since`` from the last fetch), a size
cap (``max_bytes``, checked while the body streams in), redirects followed (raw file hosts
redirect), a timeout. A new copy replaces the old one atomically, and only once it has been
read whole; any failure keeps the previous copy. Each list gets one line saying what
changed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import httpx

from tamis.atomic import write_atomic
from tamis.errors import DownloadTooLarge
from tamis.http_client import download_client
from tamis.policy.lists.load import parse_cached
from tamis.policy.lists.storage import (
    age_text,
    copy_path,
    is_url,
    now,
    read_meta,
    redact,
    sha256,
    write_meta,
)
from tamis.policy.schema import ListEntry

USER_AGENT = "tamis lists update"


@dataclass
class UpdateResult:
    name: str
    outcome: str  # updated | new | not_modified | unchanged | failed | local | disabled
    message: str
    added: int = 0
    removed: int = 0
    rules: int = 0
    bad: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return self.outcome == "failed"

    def line(self) -> str:
        return f"{self.name}: {self.message}"

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "outcome": self.outcome, "message": self.message,
                "added": self.added, "removed": self.removed, "rules": self.rules,
                "bad_lines": self.bad}


def _rule_texts(data: bytes | None, fmt: str) -> list[str]:
    if data is None:
        return []
    compiled = parse_cached(data, fmt)
    return [compiled.line_text(n) for n in compiled.rule_lines()]


def _fetch(client: httpx.Client, entry: ListEntry, meta: dict[str, object]
           ) -> tuple[int, bytes, httpx.Headers]:
    headers = {"User-Agent": USER_AGENT, "Accept": "text/plain, */*"}
    if copy_path(entry.name).is_file():
        if meta.get("etag"):
            headers["If-None-Match"] = str(meta["etag"])
        if meta.get("last_modified"):
            headers["If-Modified-Since"] = str(meta["last_modified"])
    with client.stream("GET", entry.source, headers=headers) as response:
        if response.status_code != 200:
            return response.status_code, b"", response.headers
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > entry.max_bytes:
            raise DownloadTooLarge(f"{int(declared):,} bytes declared")
        # a whole-download deadline: the timeout bounds each read, and a trickle never stops
        chunks, size, until = [], 0, time.monotonic() + 10 * (client.timeout.read or 30.0)
        for chunk in response.iter_bytes():
            if time.monotonic() > until:
                raise httpx.ReadTimeout("the download took over 10 times the timeout")
            size += len(chunk)
            if size > entry.max_bytes:
                raise DownloadTooLarge(f"more than {entry.max_bytes:,} bytes")
            chunks.append(chunk)
        return 200, b"".join(chunks), response.headers


def update_one(client: httpx.Client, entry: ListEntry) -> UpdateResult:
    if not entry.enabled:
        return UpdateResult(entry.name, "disabled", "disabled, not fetched")
    if not is_url(entry.source):
        return UpdateResult(entry.name, "local", f"a local file ({entry.source}), nothing to"
                            " fetch")
    meta = read_meta(entry.name)
    path = copy_path(entry.name)
    old = path.read_bytes() if path.is_file() else None
    kept = (f"; kept the previous copy ({age_text(now() - float(meta['fetched_at']))})"
            if old is not None and isinstance(meta.get("fetched_at"), (int, float))
            else "; no copy yet" if old is None else "; kept the previous copy")
    start = time.perf_counter()
    try:
        status, data, headers = _fetch(client, entry, meta)
    except DownloadTooLarge as exc:
        return UpdateResult(entry.name, "failed", f"failed: the list is over the size cap"
                            f" (max_bytes {entry.max_bytes:,}): {exc}{kept}")
    except httpx.TimeoutException:
        return UpdateResult(entry.name, "failed", f"failed: timed out{kept}")
    except httpx.HTTPError as exc:  # scrubbed: a list URL may carry a token
        why = f"{type(exc).__name__}: {redact(str(exc))[:200]}"
        return UpdateResult(entry.name, "failed", f"failed: {why}{kept}")
    seconds = time.perf_counter() - start
    if status == 304:
        meta["fetched_at"] = now()
        write_meta(entry.name, meta)
        rules = len(_rule_texts(old, entry.format))
        return UpdateResult(entry.name, "not_modified",
                            f"not modified (304), {rules:,} rules", rules=rules)
    if status != 200:
        return UpdateResult(entry.name, "failed", f"failed: HTTP {status}{kept}")
    head = data[:512].lstrip().lower()
    if head.startswith((b"<!doctype html", b"<html")):  # a login or error page, not a list
        return UpdateResult(entry.name, "failed", f"failed: the server answered an HTML page,"
                            f" not a list{kept}")
    new_rules = _rule_texts(data, entry.format)
    parsed = parse_cached(data, entry.format)
    shown = redact(entry.source)  # never a user:password or a ?token= in output
    bad = [f"{shown}:{b.line}: {b.why}: {b.text}" for b in parsed.bad]
    new_meta = {"url": shown, "etag": headers.get("etag"),
                "last_modified": headers.get("last-modified"), "fetched_at": now(),
                "sha256": sha256(data), "bytes": len(data), "format": parsed.format}
    if old is not None and sha256(old) == new_meta["sha256"]:
        write_meta(entry.name, new_meta)
        return UpdateResult(entry.name, "unchanged", f"unchanged (same content),"
                            f" {len(new_rules):,} rules", rules=len(new_rules), bad=bad)
    old_rules = set(_rule_texts(old, entry.format))
    fresh = set(new_rules)
    added, removed = len(fresh - old_rules), len(old_rules - fresh)
    write_atomic(path, data)
    write_meta(entry.name, new_meta)
    outcome = "new" if old is None else "updated"
    size = f"{len(data) / 1024:,.0f} kB" if len(data) >= 1024 else f"{len(data)} bytes"
    what = (f"fetched {len(new_rules):,} rules" if old is None
            else f"updated: {len(new_rules):,} rules (+{added:,} -{removed:,})")
    message = f"{what} ({parsed.format}, {size}, {seconds:.2f} s)"
    skipped = ", ".join(f"{n:,} {kind}" for kind, n in sorted(parsed.skipped.items()))
    if skipped:
        message += f"; skipped {skipped}"
    if bad:
        message += f"; {len(bad):,} bad lines skipped"
    return UpdateResult(entry.name, outcome, message, added=added, removed=removed,
                        rules=len(new_rules), bad=bad)


def update_lists(entries: list[ListEntry], *, timeout: float = 30.0,
                 only: set[str] | None = None, client: httpx.Client | None = None
                 ) -> list[UpdateResult]:
    chosen = [e for e in entries if only is None or e.name in only]
    own = client is None
    client = client or download_client(timeout)
    try:
        return [update_one(client, e) for e in chosen]
    finally:
        if own:
            client.close()
