"""Load the configured lists for searching: local files and fetched copies, never the network.

``load_lists`` keeps what it loaded in the process, keyed on each file's path, size and
modification time, so a server pays for a list once, and again only when it changed.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path

from tamis.policy.lists.matcher import ListInfo, ListMatcher
from tamis.policy.lists.model import CompiledList
from tamis.policy.lists.parse import detect_format, parse_list
from tamis.policy.lists.storage import (
    age_text,
    copy_path,
    is_url,
    load_parsed,
    now,
    read_meta,
    redact,
    save_parsed,
    sha256,
)
from tamis.policy.schema import ListEntry


@dataclass
class ListStatus:
    """One configured list as it stands: shown by ``tamis lists``, ``backends``, ``config
    check`` and the web page."""

    name: str
    source: str
    action: str
    state: str  # ok | never_fetched | missing | unreadable | disabled
    path: str | None = None
    format: str | None = None
    rules: int = 0
    summary: str = ""
    age_seconds: float | None = None
    bad: list[str] = field(default_factory=list)  # "<file>:<line>: <why>: <text>"
    message: str = ""
    parsed: CompiledList | None = None

    @property
    def age(self) -> str:
        if self.state == "never_fetched":
            return "never fetched"
        return age_text(self.age_seconds)

    def describe(self) -> str:
        if self.state != "ok":
            return f"list {self.name}: {self.message}"
        where = "fetched copy" if is_url(self.source) else "file"
        return f"list {self.name} ({self.action}): {self.summary}; {where} {self.age}"

    def as_json(self) -> dict[str, object]:
        return {"name": self.name, "source": redact(self.source), "action": self.action,
                "state": self.state, "path": self.path, "format": self.format,
                "rules": self.rules, "summary": self.summary,
                "age_seconds": None if self.age_seconds is None else round(self.age_seconds),
                "age": self.age, "bad_lines": self.bad, "message": self.message}


_LOCK = threading.Lock()
_PARSED: dict[tuple[str, str, int, int], CompiledList] = {}
_MATCHERS: dict[tuple[object, ...], ListMatcher] = {}


def list_file(entry: ListEntry, base_dir: Path | None) -> Path:
    if is_url(entry.source):
        return copy_path(entry.name)
    path = Path(entry.source).expanduser()
    if not path.is_absolute() and base_dir is not None:
        path = base_dir / path
    return path


def parse_cached(data: bytes, fmt: str) -> CompiledList:
    """Parse and compile a list's bytes, or load the compiled form of the same bytes from
    the cache folder (keyed on their hash)."""
    digest = sha256(data)
    text = data.decode("utf-8", "replace")
    chosen = detect_format(text) if fmt == "auto" else fmt
    compiled = load_parsed(digest, chosen)
    if compiled is None:
        compiled = parse_list(text, chosen).compile()
        save_parsed(digest, chosen, compiled)
    compiled.source_lines = text.removeprefix("\ufeff").splitlines()
    return compiled


def list_status(entry: ListEntry, base_dir: Path | None) -> ListStatus:
    status = ListStatus(entry.name, entry.source, entry.action, "ok")
    if not entry.enabled:
        status.state, status.message = "disabled", "disabled"
        return status
    path = list_file(entry, base_dir)
    status.path = str(path)
    try:
        stat = path.stat()
    except OSError:
        if is_url(entry.source):
            status.state = "never_fetched"
            status.message = "never fetched; run `tamis lists update` to fetch it"
        else:
            status.state, status.message = "missing", f"{path}: list file not found"
        return status
    key = (str(path), entry.format, stat.st_size, stat.st_mtime_ns)
    with _LOCK:
        parsed = _PARSED.get(key)
    if parsed is None and not path.is_file():  # /dev/zero would be read until memory runs out
        status.state, status.message = "unreadable", f"{path}: not a regular file"
        return status
    if parsed is None:
        try:
            data = path.read_bytes()
        except OSError as exc:
            status.state = "unreadable"
            status.message = f"{path}: cannot read: {type(exc).__name__}"
            return status
        parsed = parse_cached(data, entry.format)
        with _LOCK:
            if len(_PARSED) > 64:
                _PARSED.clear()
                _MATCHERS.clear()
            _PARSED[key] = parsed
    fetched = read_meta(entry.name).get("fetched_at") if is_url(entry.source) else None
    status.age_seconds = max(0.0, now() - (fetched if isinstance(fetched, (int, float))
                                           else stat.st_mtime))
    status.parsed = parsed
    status.format = parsed.format
    status.rules = parsed.rule_count
    status.summary = parsed.summary()
    shown = redact(entry.source)  # a list URL may carry a token: never shown
    status.bad = [f"{shown}:{b.line}: {b.why}: {b.text}" for b in parsed.bad]
    return status


def load_lists(entries: list[ListEntry], base_dir: Path | None = None
               ) -> tuple[ListMatcher | None, list[ListStatus]]:
    """The matcher for every usable list (None when there is none) and each list's status."""
    statuses = [list_status(e, base_dir) for e in entries]
    usable = [(e, s) for e, s in zip(entries, statuses, strict=True)
              if s.state == "ok" and s.parsed is not None]
    if not usable:
        return None, statuses
    key = tuple((e.name, e.action, e.rewrite_to, tuple(e.copies), id(s.parsed))
                for e, s in usable)
    with _LOCK:
        matcher = _MATCHERS.get(key)
    if matcher is None:
        matcher = ListMatcher([
            (ListInfo(e.name, e.action, e.rewrite_to.lower() if e.rewrite_to else None,
                      tuple(c.lower() for c in e.copies)),
             s.parsed)
            for e, s in usable])
        with _LOCK:
            if len(_MATCHERS) > 16:
                _MATCHERS.clear()
            _MATCHERS[key] = matcher
    return matcher, statuses


def forget() -> None:
    """Drop what this process keeps (tests, benchmarks)."""
    with _LOCK:
        _PARSED.clear()
        _MATCHERS.clear()
