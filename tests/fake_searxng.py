"""A fake SearXNG for tests: answers ``/search?q=...&format=json`` from recorded answers."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from loopback import Reply, Request

RECORDINGS = Path(__file__).parent / "fixtures" / "searxng"


def slug(query: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")


def recorded(query: str) -> dict:
    return json.loads((RECORDINGS / f"{slug(query)}.json").read_text())


def shuffled(answer: dict, seed: int) -> dict:
    """The same answer with results in another order and each result's engines reordered.

    As in real searx: ``engines`` is a set (any order), ``positions`` stay in the order the
    engines answered (``engine``, the first, has ``positions[0]``)."""
    rng = random.Random(seed)
    out = json.loads(json.dumps(answer))
    rng.shuffle(out["results"])
    for item in out["results"]:
        rng.shuffle(item["engines"])
    return out


class FakeSearXNG:
    """``mode``: ok | shuffle:<seed> | 403 | html | empty | custom (``self.answer``)."""

    def __init__(self, mode: str = "ok") -> None:
        self.mode = mode
        self.answer: dict | None = None
        self.seen: list[Request] = []

    def __call__(self, req: Request) -> Reply:
        self.seen.append(req)
        if req.path != "/search":
            return Reply(404, "not found", content_type="text/plain")
        if self.mode == "403":
            return Reply(403, "<html>Forbidden</html>", content_type="text/html")
        if self.mode == "html" or req.arg("format") != "json":
            return Reply(200, "<!doctype html><html><body>results</body></html>",
                         content_type="text/html")
        query = req.arg("q")
        if self.mode == "custom":
            return Reply(body=json.dumps(self.answer))
        if self.mode == "empty":
            return Reply(body=json.dumps({"query": query, "results": [],
                                          "unresponsive_engines": []}))
        try:
            answer = recorded(query)
        except FileNotFoundError:
            answer = {"query": query, "results": [], "unresponsive_engines": []}
        if self.mode.startswith("shuffle:"):
            answer = shuffled(answer, int(self.mode.split(":")[1]))
        return Reply(body=json.dumps(answer))
