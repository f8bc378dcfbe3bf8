"""Fit the ranking's weights (``policy.ranking``) on judged real answers, honestly.

    python bench/fit_ranking.py [--data DIR] [--folds 5] [--repeats 3] [--fit a,b,...]

DIR (default ``../shared/fixtures/relevance-dev`` beside the checkout) holds ``serps/*.json``
(SearXNG ``format=json`` answers, one engine each) and ``judgments.json`` (every result rated
0/1/2 blind). Each answer goes once through tamis's own merge and filter (the built-in policy);
then only ``rank`` runs again for each set of weights tried, and the first 8 results are scored
as ``shared/tools/relevance_eval.py`` scores them (nDCG@5, gains 0/1/2, ideal = the best 5
judged results of the query).

The fit: coordinate ascent, one weight at a time over a few values (places are coarse on
purpose: a rule that needs a precise value fits noise), passes until nothing improves, starting
from the built-in values (``--from-zero``: from 0 places). The built-in values
(``policy/default.yaml``) are the median, weight by weight, of the fits on the folds: one fit
on every query follows the noise of a few queries; the median of fifteen does less.

The honest figure is **k-fold cross-validated**: the queries split into k folds (by query,
shuffled with a fixed seed, repeated with other seeds); each fold is scored with the weights
fitted on the other folds. Printed beside it: the in-sample figure
(fitted and scored on every query) and the engine's own order, with CPU seconds.

A change to the ranking is kept only when the cross-validated figure rises; the in-sample
figure alone says little (it rose by 0.045 more than the unseen queries did, last round).
Asserts nothing; writes nothing.
"""

from __future__ import annotations

import argparse
import functools
import json
import random
import resource
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tamis.models import RawHit
from tamis.pipeline.filter import filter_candidates, query_intent
from tamis.pipeline.merge import merge
from tamis.pipeline.query import parse_query
from tamis.pipeline.rank import Evidence, gather, order
from tamis.pipeline.rules import Rules
from tamis.policy.schema import Ranking
from tamis.settings import load_config

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "fixtures" / "relevance-dev"
TOOLS = Path(__file__).resolve().parents[2] / "shared" / "tools"
# The values each weight may take (places); kind_places.<kind> take KIND_VALUES.
VALUES: dict[str, tuple[float, ...]] = {
    "relevance_places": (0, 1, 2, 3, 4, 5),
    "title_places": (0, 0.5, 1, 2, 3),
    "address_places": (0, 0.5, 1, 2, 3),
    "phrase_places": (0, 0.5, 1, 2, 3),
    "off_topic_places": (0, 1, 2, 3, 4, 5),
    "dynamic_places": (0, 0.5, 1, 1.5, 2, 3),
    "no_snippet_places": (0, 0.5, 1, 1.5, 2, 3),
    "named_places": (0, 1, 2, 3, 4, 5),
    "prefer_places": (0, 0.5, 1, 2),
    "demote_places": (1, 2, 3, 5),
    "same_site_places": (0, 0.5, 1, 2, 3),
    "max_places": (3, 4, 5, 6, 8),
}
KIND_VALUES = (0, 1, 2, 3, 5)


@dataclass
class Query:
    text: str
    evidence: list[Evidence]  # what rank knows of each kept result before any weight
    vary: bool  # same_site_places applies (not a site: query)
    ratings: dict[str, int]  # normalised URL: rating
    engine_top8: list[str]


def load(data: Path, score_tools: Any, config: Path | None = None
         ) -> tuple[list[Query], float]:
    """Every judged query through merge and filter; and the engine's own nDCG@5."""
    judgments = json.loads((data / "judgments.json").read_text())
    policy = load_config(config).config.policy
    rules = Rules(policy)
    queries, engine = [], 0.0
    for path in sorted((data / "serps").glob("*.json")):
        serp = json.loads(path.read_text())
        text = serp["query"]
        if text not in judgments:
            continue
        urls = [r["url"] for r in serp["results"] if r.get("url")]
        hits = [(RawHit(url=r["url"], title=r.get("title") or "", snippet=r.get("content") or "",
                        line="searxng", engines=[f"searxng:{r.get('engine', 'engine')}"],
                        positions=[i]), 0, 1.0)
                for i, r in enumerate(serp["results"], 1) if r.get("url")]
        candidates, _ = merge(hits, tracking_params=policy.normalise.tracking_params,
                              max_chars=400, unwrapper=rules.unwrapper)
        intent = query_intent(candidates, rules, text)
        kept, _ = filter_candidates(candidates, rules, text, intent)
        ratings: dict[str, int] = {}
        for item in judgments[text]:
            key = score_tools.norm(item["url"])
            ratings[key] = max(ratings.get(key, 0), int(item["rating"]))
        top8: list[str] = []
        for url in urls:
            if score_tools.norm(url) not in top8:
                top8.append(score_tools.norm(url))
        parsed = parse_query(text)
        q = Query(text, gather(kept, parsed), not parsed.sites, ratings, top8[:8])
        queries.append(q)
        engine += score_tools.score(urls, ratings, q.engine_top8)["ndcg5"]
    return queries, engine / len(queries)


def figures(queries: list[Query], weights: Ranking, score_tools: Any) -> dict[str, float]:
    """nDCG@5, good@3 (means) and lost2 (a sum), as relevance_eval.py counts them."""
    total = {"ndcg5": 0.0, "good3": 0.0, "lost2": 0.0}
    for q in queries:
        urls = [r.candidate.url for r in order(q.evidence, weights, q.vary)[:8]]
        scored = score_tools.score(urls, q.ratings, q.engine_top8)
        for name in total:
            total[name] += scored[name]
    return {"ndcg5": total["ndcg5"] / len(queries), "good3": total["good3"] / len(queries),
            "lost2": total["lost2"]}


def ndcg(queries: list[Query], weights: Ranking, score_tools: Any) -> float:
    return figures(queries, weights, score_tools)["ndcg5"]


def with_value(weights: Ranking, name: str, value: float) -> Ranking:
    if name.startswith("kind_places."):
        kinds = dict(weights.kind_places)
        kinds[name.split(".", 1)[1]] = value
        return weights.model_copy(update={"kind_places": kinds})
    return weights.model_copy(update={name: value})


def fit(queries: list[Query], start: Ranking, names: list[str], score_tools: Any,
        passes: int = 3) -> tuple[Ranking, float]:
    weights, best = start, ndcg(queries, start, score_tools)
    for _ in range(passes):
        improved = False
        for name in names:
            values = KIND_VALUES if name.startswith("kind_places.") else VALUES[name]
            for value in values:
                trial = with_value(weights, name, value)
                score = ndcg(queries, trial, score_tools)
                if score > best + 1e-9:
                    weights, best, improved = trial, score, True
        if not improved:
            break
    return weights, best


def cross_validated(queries: list[Query], start: Ranking, names: list[str], folds: int,
                    repeats: int, score_tools: Any) -> tuple[float, dict[str, list[float]]]:
    """The mean held-out figure, and each weight's fitted values over the folds (a weight
    whose value jumps from fold to fold is fitting noise)."""
    figures = []
    values: dict[str, list[float]] = {n: [] for n in names}
    for seed in range(1, repeats + 1):
        order = list(range(len(queries)))
        random.Random(seed).shuffle(order)
        total = 0.0
        for fold in range(folds):
            test = [queries[i] for j, i in enumerate(order) if j % folds == fold]
            train = [queries[i] for j, i in enumerate(order) if j % folds != fold]
            weights, _ = fit(train, start, names, score_tools)
            total += ndcg(test, weights, score_tools) * len(test)
            for n in names:
                values[n].append(_value(weights, n))
        figures.append(total / len(queries))
    return sum(figures) / len(figures), values


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fit", default="", help="weights to fit (default: all)")
    ap.add_argument("--no-cv", action="store_true", help="the in-sample fit only")
    ap.add_argument("--config", type=Path, default=None,
                    help="a tamis config whose policy is used (default: the built-in one)")
    ap.add_argument("--from-zero", action="store_true",
                    help="start every fit (and each fold's) from 0 places, not the built-in")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="start from this value (and keep it, unless --fit names it)")
    a = ap.parse_args()
    if not (a.data / "judgments.json").is_file():
        print(f"error: no judgments.json in {a.data} (pass --data DIR)", file=sys.stderr)
        return 2
    sys.path.insert(0, str(TOOLS))
    import relevance_eval as score_tools

    score_tools.norm = functools.lru_cache(maxsize=None)(score_tools.norm)  # asked again and
    # again for the same URLs, one call per weight set tried
    cpu0, wall0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    queries, engine = load(a.data, score_tools, a.config)
    start = load_config(a.config).config.policy.ranking
    for spec in a.set:
        name, _, value = spec.partition("=")
        start = with_value(start, name, float(value))
    kinds = [f"kind_places.{k}" for k in load_config(a.config).config.policy.page_kinds]
    names = a.fit.split(",") if a.fit else [n for n in [*VALUES, *kinds]
                                             if not any(s.startswith(n + "=") for s in a.set)]
    built_in = ndcg(queries, start, score_tools)
    if a.from_zero:
        for n in names:
            start = with_value(start, n, 5 if n == "max_places" else 0)
    fitted, in_sample = fit(queries, start, names, score_tools)
    cv, values = (None, {}) if a.no_cv else cross_validated(queries, start, names, a.folds,
                                                             a.repeats, score_tools)
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    cpu = (cpu1.ru_utime - cpu0.ru_utime) + (cpu1.ru_stime - cpu0.ru_stime)
    print(f"queries={len(queries)} ({time.perf_counter() - wall0:.0f} s wall, {cpu:.0f} s CPU)")
    print(f"engine's own order   ndcg5={engine:.4f}")
    shown = figures(queries, load_config(a.config).config.policy.ranking, score_tools)
    print(f"built-in weights     ndcg5={built_in:.4f} ({built_in - engine:+.4f})"
          f"  good3={shown['good3']:.3f} lost2={shown['lost2']:.0f}")
    fitted_figures = figures(queries, fitted, score_tools)
    print(f"fitted, in-sample    ndcg5={in_sample:.4f} ({in_sample - engine:+.4f})"
          f"  good3={fitted_figures['good3']:.3f} lost2={fitted_figures['lost2']:.0f}")
    if cv is not None:
        print(f"fitted, {a.folds}-fold CV x{a.repeats} ndcg5={cv:.4f} ({cv - engine:+.4f})")
    changed = {n: _value(fitted, n) for n in names if _value(fitted, n) != _value(start, n)}
    print("fitted values that differ from the built-in ones:", changed or "none")
    if values:
        print("each weight: built-in, fitted on all queries, the median of the fold fits (the"
              " value to keep: steadier than one fit), and every fold's")
    for n, vs in values.items():
        median = sorted(vs)[len(vs) // 2]
        print(f"  {n:<28} built-in {_value(start, n):<5g} all {_value(fitted, n):<5g}"
              f" median {median:<5g} folds {' '.join(f'{v:g}' for v in vs)}")
    return 0


def _value(weights: Ranking, name: str) -> float:
    if name.startswith("kind_places."):
        return weights.kind_places.get(name.split(".", 1)[1], 0.0)
    return getattr(weights, name)


if __name__ == "__main__":
    sys.exit(main())
