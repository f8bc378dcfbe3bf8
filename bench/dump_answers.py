"""Dump tamis's full answers for fixed inputs, to prove a refactor changes no output byte.

    python bench/dump_answers.py OUT.jsonl [--data DIR]
    cmp before.jsonl after.jsonl

Two kinds of lines, one JSON document each:

- every SERP of ``DIR/serps`` (default ``../shared/fixtures/relevance-dev``) through the
  Python API (``Tamis.search``: no extraction, ``--explain``, every result), served by the
  same SearXNG stand-in as ``bench_relevance.py``; timings (the only figures that vary
  between runs) are zeroed;
- the 1,000 raw hits of ``bench_core.py`` through merge + filter + rank, as the ranked
  results with their score parts and the dropped hits, for three queries;
- ``explain_url`` (``tamis explain-url``) of every raw URL of every SERP, with its query.

Run it on two checkouts and ``cmp`` the files: identical files mean identical answers.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from bench_core import raw_hits
from bench_relevance import DEFAULT_DATA, serve

from tamis.core import Tamis, to_result
from tamis.models import SearchRequest
from tamis.pipeline.explain import explain_url
from tamis.pipeline.filter import filter_candidates
from tamis.pipeline.merge import merge
from tamis.pipeline.rank import rank
from tamis.pipeline.rules import Rules
from tamis.settings import load_config
from tamis.store.base import MemoryStore

CORE_QUERIES = ["proxmox thin pool metadata exhaustion recovery", "github", "what is rust"]


def _zero_timings(answer: dict[str, Any]) -> dict[str, Any]:
    answer["timing"] = {k: 0.0 for k in answer["timing"]}
    for line in answer["lines"]:
        line["seconds"] = 0.0
    return answer


async def api_answers(serps: Path) -> list[str]:
    queries = sorted(json.loads(f.read_text())["query"] for f in serps.glob("*.json"))
    server, base = serve(serps)
    env = {"SEARXNG_URL": base}
    cfg = load_config(None, overrides={"cache": {"enabled": False}}, env=env).config
    out = []
    try:
        async with Tamis(cfg, store=MemoryStore(), env=env) as layer:
            for q in queries:
                if not q.strip():
                    continue
                resp = await layer.search(SearchRequest(query=q), extract=False,
                                          explain=True, max_results=1000)
                out.append(json.dumps(_zero_timings(resp.model_dump(mode="json")),
                                      ensure_ascii=False, sort_keys=False))
    finally:
        server.shutdown()
    return out


def core_answers() -> list[str]:
    policy = load_config(None).config.policy
    hits = raw_hits(1000)
    out = []
    for query in CORE_QUERIES:
        rules = Rules(policy)
        candidates, invalid = merge(hits, tracking_params=policy.normalise.tracking_params,
                                    max_chars=400, unwrapper=rules.unwrapper)
        kept, dropped = filter_candidates(candidates, rules, query)
        ranked = rank(kept, query, policy.ranking)
        out.append(json.dumps({
            "query": query,
            "results": [to_result(i, item, True, policy.ranking).model_dump(mode="json")
                        for i, item in enumerate(ranked, 1)],
            "dropped": [d.model_dump(mode="json") for d in invalid + dropped],
        }, ensure_ascii=False))
    return out


def explained(serps: Path) -> list[str]:
    cfg = load_config(None).config
    out = []
    for f in sorted(serps.glob("*.json")):
        d = json.loads(f.read_text())
        for r in d.get("results", []):
            out.append(json.dumps(explain_url(r.get("url", ""), query=d["query"], config=cfg),
                                  ensure_ascii=False))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    a = ap.parse_args()
    lines = (asyncio.run(api_answers(a.data / "serps")) + core_answers()
             + explained(a.data / "serps"))
    a.out.write_text("\n".join(lines) + "\n", "utf-8")
    print(f"wrote {len(lines)} answers to {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
