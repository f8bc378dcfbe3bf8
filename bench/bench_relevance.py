"""Relevance of tamis's ranking on judged real search answers, beside the engine's own order.

    python bench/bench_relevance.py [--data DIR] [--show N] [--set ranking.rrf_k=1 ...]

DIR (default ``../shared/fixtures/relevance-dev`` beside the checkout) holds ``serps/*.json``
(SearXNG ``format=json`` answers, one real engine each, file name = slug of the query) and
``judgments.json`` (every result rated 0/1/2). Every judged query is run through the Python
API (``Tamis.search``, no extraction, 8 results) against a SearXNG stand-in on 127.0.0.1 that
serves those files, and the top 8 are scored the way ``shared/tools/relevance_eval.py`` scores
them, so the figures here and there agree:

  ndcg5   nDCG@5, gains 0/1/2, ideal = the best 5 judged results of the query
  good3   share of queries with a result rated 2 in the top 3
  lost2   results rated 2 in the engine's top 8 missing from tamis's top 8
  unjudged  returned URLs with no judgment (they count 0)
  nav_lost  navigational queries whose engine-first result is not in tamis's top 3

Each figure is printed beside the engine's from the same run, with CPU seconds beside wall.
``--set`` overrides one policy key for the run (``ranking.position_decay=0.5``), to see what a
knob does. Asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import re
import resource
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, parse_qsl, unquote, urlencode, urlparse

import yaml

from tamis.core import Tamis
from tamis.models import SearchRequest
from tamis.settings import load_config
from tamis.store.base import MemoryStore

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "relevance-dev"
TRACKING = re.compile(r"^(utm_.*|fbclid|gclid|msclkid|mc_cid|mc_eid|ref|ref_src|_hsenc|_hsmi"
                      r"|yclid|igshid)$", re.I)


def slug(query: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")


def _unwrap(url: str) -> str:
    """The judge's own unwrapping (independent of tamis's, so a tamis bug cannot hide)."""
    p = urlparse(url)
    host = (p.hostname or "").lower()
    qs = dict(parse_qsl(p.query))
    if re.search(r"(^|\.)google\.[a-z.]+$", host) and p.path == "/url":
        return qs.get("q") or qs.get("url") or url
    if host.endswith("duckduckgo.com") and p.path.startswith("/l/"):
        return qs.get("uddg") or url
    if host.endswith("search.yahoo.com") or host == "srd.yahoo.com":
        m = re.search(r"/RU=([^/]+)/", p.path) or re.search(r"\*(https?%3A.*|https?:.*)$", url)
        if m:
            return re.sub(r"^(https?):/+", r"\1://", unquote(m.group(1)))
    return url


def norm(url: str) -> str:
    p = urlparse(_unwrap(url))
    query = sorted((k, v) for k, v in parse_qsl(p.query, keep_blank_values=True)
                   if not TRACKING.match(k))
    path = re.sub(r"/+", "/", p.path).rstrip("/")
    return ((p.hostname or "").lower().removeprefix("www.") + path
            + ("?" + urlencode(query) if query else ""))


def dcg(gains: list[int]) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def score(urls: list[str], judged: dict[str, int], engine_top8: list[str]) -> dict[str, float]:
    gains = [judged.get(norm(u), 0) for u in urls[:8]]
    ideal = sorted(judged.values(), reverse=True)[:5]
    has2 = any(v == 2 for v in judged.values())
    mine = {norm(u) for u in urls[:8]}
    return {
        "ndcg5": dcg(gains[:5]) / dcg(ideal) if dcg(ideal) > 0 else 1.0,
        "good3": 1.0 if (any(g == 2 for g in gains[:3]) or not has2) else 0.0,
        "lost2": float(sum(1 for k in engine_top8 if judged.get(k) == 2 and k not in mine)),
        "unjudged": float(sum(1 for u in urls[:8] if norm(u) not in judged)),
    }


def is_navigational(query: str, first_url: str) -> bool:
    words = re.findall(r"[a-z0-9]+", query.lower())
    labels = (urlparse(_unwrap(first_url)).hostname or "").lower().removeprefix("www.")
    return any(len(p) >= 3 and (p in words or p == "".join(words))
               for p in labels.split(".")[:-1])


def serve(serps: Path) -> tuple[ThreadingHTTPServer, str]:
    answers = {f.stem: f.read_bytes() for f in serps.glob("*.json")}
    empty = json.dumps({"query": "", "results": []}).encode()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            q = parse_qs(urlparse(self.path).query).get("q", [""])[0]
            body = answers.get(slug(q), empty)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


def _override(spec: str) -> dict[str, Any]:
    dotted, _, value = spec.partition("=")
    out: dict[str, Any] = {}
    node = out
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = yaml.safe_load(value)
    return {"policy": out}


async def run_all(queries: list[str], base: str, overrides: list[str]
                  ) -> tuple[list[list[str] | None], list[str]]:
    data: dict[str, Any] = {"cache": {"enabled": False}}
    for spec in overrides:
        extra = _override(spec)
        data.setdefault("policy", {})
        _deep_merge(data["policy"], extra["policy"])
    cfg = load_config(None, overrides=data, env={"SEARXNG_URL": base}).config
    out: list[list[str] | None] = []
    intents: list[str] = []
    async with Tamis(cfg, store=MemoryStore(), env={"SEARXNG_URL": base}) as layer:
        for q in queries:
            resp = await layer.search(SearchRequest(query=q), extract=False, max_results=8)
            out.append(None if resp.status == "failed" else [r.url for r in resp.results])
            intents.append(str(getattr(resp, "query_intent", None) or "-"))
    return out, intents


def _deep_merge(into: dict[str, Any], extra: dict[str, Any]) -> None:
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(into.get(k), dict):
            _deep_merge(into[k], v)
        else:
            into[k] = v


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--show", type=int, default=0, help="the N queries tamis hurts most")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="override a policy key, e.g. ranking.rrf_k=1")
    ap.add_argument("--intents", action="store_true", help="print every query's intent")
    a = ap.parse_args()
    if not (a.data / "judgments.json").is_file():
        print(f"error: no judgments.json in {a.data} (pass --data DIR)", file=sys.stderr)
        return 2
    judgments = json.loads((a.data / "judgments.json").read_text())
    serps = {}
    for f in (a.data / "serps").glob("*.json"):
        d = json.loads(f.read_text())
        serps[d["query"]] = [r["url"] for r in d.get("results", []) if r.get("url")]
    queries = [q for q in sorted(judgments) if q in serps]
    server, base = serve(a.data / "serps")
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    try:
        outputs, intents = asyncio.run(run_all(queries, base, a.set))
    finally:
        server.shutdown()
    cpu1, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter() - wall0
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)

    totals: dict[str, dict[str, float]] = {"tamis": {}, "engine": {}}
    # shared/tools/relevance_eval.py cannot serve a query whose slug is empty ('餐具英语':
    # serps/.json): the figures are printed with and without such queries.
    servable: dict[str, dict[str, float]] = {"tamis": {}, "engine": {}}
    per_query = []
    failed = nav = nav_lost = 0
    for q, urls, intent in zip(queries, outputs, intents, strict=True):
        judged: dict[str, int] = {}
        for item in judgments[q]:
            k = norm(item["url"])
            judged[k] = max(judged.get(k, 0), int(item["rating"]))
        engine_top8: list[str] = []
        for u in serps[q]:
            if norm(u) not in engine_top8:
                engine_top8.append(norm(u))
        engine_top8 = engine_top8[:8]
        if urls is None:
            failed += 1
            urls = []
        mine, eng = score(urls, judged, engine_top8), score(serps[q], judged, engine_top8)
        for name, s in (("tamis", mine), ("engine", eng)):
            for k, v in s.items():
                totals[name][k] = totals[name].get(k, 0.0) + v
                if slug(q):
                    servable[name][k] = servable[name].get(k, 0.0) + v
        per_query.append((mine["ndcg5"] - eng["ndcg5"], q, intent, urls[:5]))
        if serps[q] and is_navigational(q, serps[q][0]):
            nav += 1
            nav_lost += norm(serps[q][0]) not in {norm(u) for u in urls[:3]}
    n = len(queries)
    t, e = totals["tamis"], totals["engine"]
    print(f"queries={n} failed={failed}   ({wall:.1f} s wall, {cpu:.1f} s CPU)")
    print(f"  nDCG@5   tamis {t['ndcg5'] / n:.3f}   engine {e['ndcg5'] / n:.3f}")
    print(f"  good@3   tamis {t['good3'] / n:.2f}    engine {e['good3'] / n:.2f}")
    print(f"  lost2    tamis {int(t['lost2'])}       (of the engine's top 8)")
    print(f"  unjudged tamis {int(t['unjudged'])}")
    print(f"  nav_lost tamis {nav_lost}/{nav}")
    m = sum(1 for q in queries if slug(q))
    if m < n:
        t, e = servable["tamis"], servable["engine"]
        print(f"without the {n - m} query(ies) with an empty slug (the eval tool cannot serve"
              f" them): nDCG@5 tamis {t['ndcg5'] / m:.3f} engine {e['ndcg5'] / m:.3f},"
              f" good@3 {t['good3'] / m:.2f} / {e['good3'] / m:.2f},"
              f" lost2 {int(t['lost2'])}, unjudged {int(t['unjudged'])}")
    for delta, q, intent, urls in sorted(per_query)[: a.show]:
        print(f"  {delta:+.2f} {q!r} [{intent}]: {[urlparse(u).hostname for u in urls]}")
    if a.intents:
        for _, q, intent, _ in sorted(per_query, key=lambda p: p[1]):
            print(f"  {intent:14s} {q}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
