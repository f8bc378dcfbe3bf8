"""Helpers for the trust tests: loopback backends, config files, the CLI (the fixtures are in
conftest.py; tests import these by a name no other folder shares).

Every backend is a real HTTP server on 127.0.0.1 (tests/loopback.py); nothing here touches
the internet.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result
from loopback import Reply, Request

from tamis.interfaces.cli import cli

BEST = "best practices agent context management"
PROXMOX = "proxmox thin pool metadata exhaustion recovery"
DEMO = Path(__file__).parents[2] / "src" / "tamis" / "demo"


@dataclass
class FakeAPI:
    """A keyed JSON search API answering ``{"results": [{title, url, content}]}``.

    Accepts the keys in ``good``; 401 for any other; ``status`` forces an answer status;
    ``shape`` "odd" answers JSON in a shape no adapter reads.
    """

    good: set[str] = field(default_factory=lambda: {"good-key"})
    status: int | None = None
    shape: str = "results"
    delay: float = 0.0
    seen: list[Request] = field(default_factory=list)

    def __call__(self, req: Request) -> Reply:
        self.seen.append(req)
        auth = req.headers.get("authorization", "")
        if self.status is not None:
            return Reply(self.status, json.dumps({"error": "forced"}), delay=self.delay)
        if auth.removeprefix("Bearer ") not in self.good:
            return Reply(401, json.dumps({"error": "bad key"}))
        body = json.loads(req.body or b"{}")
        count = int(body.get("max_results") or 8)
        query = str(body.get("q", ""))
        if self.shape == "odd":
            return Reply(body=json.dumps({"items": [], "q": query}), delay=self.delay)
        items = [{"title": f"{query} answer {i}", "url": f"https://docs.example.org/{i}",
                  "content": f"about {query}"} for i in range(1, 6)]
        items.insert(1, {"title": "context management medium post",
                         "url": "https://medium.com/@x/context-management-1",
                         "content": "a content farm post"})
        return Reply(body=json.dumps({"results": items[:count]}), delay=self.delay)

    def body(self, index: int = -1) -> dict[str, Any]:
        return json.loads(self.seen[index].body or b"{}")


def searxng_line(url: str, name: str = "searxng") -> str:
    return f"  - name: {name}\n    type: searxng\n    base_url: {url}\n"


def api_line(url: str, name: str = "acme", keys: tuple[str, ...] = ("ACME_KEY",)) -> str:
    creds = ", ".join(keys)
    return (f"  - name: {name}\n    base_url: {url}\n    search_path: /search\n"
            f"    credentials: [{creds}]\n")


def write_config(tmp_path: Path, lines: str, extra: str = "", *, store: str = "memory:",
                 name: str = "tamis.yaml") -> Path:
    path = tmp_path / name
    path.write_text("backends:\n" + lines + f"store: {{url: '{store}'}}\n" + extra)
    return path


def invoke(args: list[str], env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(cli, args, env={"COLUMNS": "200", **(env or {})})


def report_of(result: Result) -> dict[str, Any]:
    assert result.stdout.startswith("{"), (result.stdout, result.stderr)
    return json.loads(result.stdout)
