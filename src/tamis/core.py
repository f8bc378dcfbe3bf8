"""The one search core every interface calls: query -> fan-out -> merge -> filter -> rank ->
extract -> response. CLI, MCP, HTTP and the Python API are thin shells over ``Tamis``.

Python API::

    import tamis
    response = tamis.search("proxmox thin pool metadata exhaustion recovery", extract=False)
    for r in response.results:
        print(r.rank, r.source_type, r.url)

``Tamis`` keeps one HTTP client and one store open across searches (servers use it);
``search``/``asearch`` open and close one for a single call.
"""

from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tamis.backends.registry import make_adapters
from tamis.errors import SearchFailed
from tamis.http_client import tamis_client
from tamis.limits import check_budget, check_query
from tamis.models import (
    Dropped,
    ExtractionSummary,
    LineAnswer,
    LineReport,
    Note,
    QueryIntentInfo,
    Result,
    SearchRequest,
    SearchResponse,
    Timing,
)
from tamis.pipeline.fanout import FanoutContext, fan_out
from tamis.pipeline.filter import all_dropped_note, filter_candidates, query_intent
from tamis.pipeline.lists import ListsStage
from tamis.pipeline.merge import merge
from tamis.pipeline.query import parse_query
from tamis.pipeline.rank import Ranked, rank
from tamis.pipeline.rules import Rules
from tamis.policy.schema import Config, Ranking
from tamis.settings import load_config
from tamis.store import answers as answer_cache
from tamis.store.base import Store, open_store

if TYPE_CHECKING:
    import httpx

    from tamis.extract.models import ReadResponse

RULES_REUSE = 256  # searches one compiled policy serves before it is compiled again


def _status(answers: list[LineAnswer], results: list[Result], config: Config
            ) -> tuple[str, Note | None]:
    """ok / no_results / failed, and the note that says why it is not ok."""
    if not answers:
        return "failed", Note(source="tamis", kind="info", message="no backends configured")
    answered = [a for a in answers if a.status in ("ok", "empty")]
    with_results = [a for a in answers if a.status == "ok"]
    if not answered:
        return "failed", Note(source="tamis", kind="info",
                              message=f"every line failed ({len(answers)} of {len(answers)})")
    for a in answers:
        if a.required and a.status != "ok":
            return "failed", Note(source=a.line, kind="info",
                                  message=f"required line {a.line!r} returned nothing")
    if with_results and len(with_results) < config.min_backends:
        return "failed", Note(
            source="tamis", kind="info",
            message=f"only {len(with_results)} of {len(answers)} lines returned results;"
                    f" min_backends is {config.min_backends}")
    if not results:
        why = "no results" if not with_results else "nothing survived filtering"
        return "no_results", Note(source="tamis", kind="info", message=why)
    return "ok", None


def to_result(position: int, item: Ranked, explain: bool, weights: Ranking) -> Result:
    c = item.candidate
    return Result(
        rank=position,
        title=c.title,
        url=c.url,
        host=c.host,
        domain=c.domain,
        source_type=item.judged.verdict.source_type,
        engines=c.engines,
        positions=c.positions,
        score=item.total,
        snippet=c.snippet,
        published=c.published,
        explain=item.parts(weights) if explain else None,
    )


class Tamis:
    """A configured search layer. Use as an async context manager, or call ``aclose``.
    ``client``: the process's HTTP client (``tamis.http_client.tamis_client``), else the
    layer makes its own, used by every search and read it serves and closed with it.
    ``config_source``: the file a given ``Config`` was read from (list paths in it are
    relative to that file)."""

    def __init__(self, config: Config | str | os.PathLike[str] | None = None, *,
                 store: Store | None = None, client: httpx.AsyncClient | None = None,
                 env: Mapping[str, str] | None = None, config_source: str | None = None,
                 ) -> None:
        self.env = os.environ if env is None else env
        if isinstance(config, Config):
            self.config = config
            self.config_source = config_source or "(a Config object)"
        else:
            loaded = load_config(config, env=self.env)
            self.config, self.config_source = loaded.config, loaded.source
        self.store = store if store is not None else open_store(self.config.store.url)
        self._compiled: tuple[Rules, int] | None = None  # the policy's Rules, searches since
        self._own_client = client is None
        self.client = client or tamis_client(self.config.timeout)

    async def __aenter__(self) -> Tamis:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._own_client:
            await self.client.aclose()

    def adapters(self) -> list[Any]:
        return make_adapters(self.config, env=self.env)

    async def search(self, request: SearchRequest | str, *, extract: bool = True,
                     explain: bool = False, max_results: int | None = None,
                     budget: int | None = None) -> SearchResponse:
        """Run the whole pipeline for one query. Never raises for backend trouble: that is
        in the response's status and notes. Raises TamisError for bad input.

        ``budget`` overrides ``extraction.total_chars`` for this search. A repeat within
        ``cache.ttl_seconds`` is the stored answer, every line ``cached: true``."""
        if isinstance(request, str):
            request = SearchRequest(query=request)
        request = request.model_copy(update={"query": check_query(request.query)})  # its key
        key = self.answer_key(request, extract=extract, explain=explain,
                              max_results=max_results, budget=budget)
        if key is not None:
            raw = answer_cache.get_raw(self.store, key)
            cached = self.read_stored(raw) if raw is not None else None
            if cached is not None:
                return cached
        response, _ = await self.search_fresh(request, key, extract=extract, explain=explain,
                                                 max_results=max_results, budget=budget)
        return response

    async def search_fresh(self, request: SearchRequest | str, key: str | None, *,
                           extract: bool = True, explain: bool = False,
                           max_results: int | None = None, budget: int | None = None,
                           ) -> tuple[SearchResponse, dict[str, Any] | None]:
        """``search`` past its answer-cache lookup (``key``: its ``answer_key``, None when
        the cache is off): the answer, stored under ``key`` when a repeat would reproduce
        it, and its JSON data when ``key`` is given (dumped once: a server renders it)."""
        response, line_answers = await self.search_detailed(
            request, extract=extract, explain=explain, max_results=max_results, budget=budget)
        if key is None:
            return response, None
        answer = response.model_dump(mode="json")
        if answer_cache.storable(
                answer, [a.status for a in line_answers],
                all(adapter.cacheable for adapter in self.adapters()),
                [{"kind": n.kind} for a in line_answers for n in a.notes]):
            answer_cache.put(self.store, key, answer, self.config.cache.ttl_seconds)
        return response, answer

    @staticmethod
    def read_stored(raw: bytes) -> SearchResponse | None:
        """A stored answer's bytes (``answer_cache.get_raw``) as the repeat's response, every
        line ``cached: true``; None when this version cannot read them (search again)."""
        stored = answer_cache.parse(raw)
        if stored is None:
            return None
        try:  # strict: what tamis wrote, each value of its own type
            return SearchResponse.model_validate(stored, strict=True)
        except ValueError:
            return None

    def _rules(self) -> Rules:
        """The policy compiled (about 0.4 ms), reused for ``RULES_REUSE`` searches (its
        per-host memo stays small), then compiled again."""
        policy = self.config.policy
        if self._compiled is None or self._compiled[1] >= RULES_REUSE \
                or self._compiled[0].policy is not policy:  # a config replaced on the layer
            self._compiled = (Rules(policy), 0)
        rules, uses = self._compiled
        self._compiled = (rules, uses + 1)
        return rules

    @functools.cached_property
    def config_hash(self) -> str:
        """A hash of the effective config: any change to it is a new answer-cache key."""
        return answer_cache.digest(self.config.model_dump(mode="json"))

    def answer_key(self, request: SearchRequest | str, *, extract: bool, explain: bool,
                   max_results: int | None = None, budget: int | None = None) -> str | None:
        """The ranked-answer cache key of a search, or None when the cache is off."""
        cache = self.config.cache
        if not cache.enabled or cache.ttl_seconds <= 0:
            return None
        if isinstance(request, str):
            request = SearchRequest(query=request)
        asked = request.model_dump(mode="json", exclude_defaults=True)
        asked["query"] = request.query.strip()
        return answer_cache.answer_key(self.config_hash, asked, {
            "extract": extract, "explain": explain, "max_results": max_results,
            "budget": budget})

    async def search_detailed(
        self, request: SearchRequest | str, *, extract: bool = True, explain: bool = False,
        max_results: int | None = None, budget: int | None = None,
    ) -> tuple[SearchResponse, list[LineAnswer]]:
        """``search``, also returning every line's raw answer (for compare and record)."""
        if isinstance(request, str):
            request = SearchRequest(query=request)
        query = check_query(request.query)
        check_budget(budget)
        request = request.model_copy(update={"query": query})
        language = parse_query(query).language  # lang:fr asks the backends for French results
        if language and request.language is None:
            request = request.model_copy(update={"language": language})
        limit = max_results or request.max_results or self.config.max_results
        cfg = self.config
        start = time.perf_counter()
        adapters = self.adapters()
        ctx = FanoutContext(
            client=self.client, store=self.store, env=self.env, timeout=cfg.timeout,
            cache_ttl=cfg.cache.ttl_seconds if cfg.cache.enabled else 0.0,
        )
        answers = await fan_out(request, adapters, ctx)
        fanned = time.perf_counter()

        hits = [(hit, a.order, a.weight) for a in answers for hit in a.hits]
        lists = ListsStage.for_config(cfg, self.config_source)  # community lists, no network
        hits = lists.rewrite(hits)
        rules = self._rules()
        candidates, invalid = merge(hits, tracking_params=cfg.policy.normalise.tracking_params,
                                    max_chars=cfg.max_chars, unwrapper=rules.unwrapper)
        intent = query_intent(candidates, rules, query)
        kept, dropped = filter_candidates(candidates, rules, query, intent)
        kept, dropped = lists.judge(kept, dropped)
        empty_note = all_dropped_note(kept, invalid + dropped)
        if request.include_domains or request.exclude_domains:
            kept, scoped = _scope(kept, request)
            dropped.extend(scoped)
        ranked = lists.order(rank(kept, query, cfg.policy.ranking))
        results = [to_result(i, item, explain, cfg.policy.ranking)
                   for i, item in enumerate(ranked[:limit], 1)]
        results = lists.annotate(results) if explain else results
        all_dropped = sorted(invalid + dropped, key=lambda d: (d.position, d.url))
        status, status_note = _status(answers, results, cfg)
        if status == "failed":
            results = []
        ranked_at = time.perf_counter()

        extraction = cfg.extraction
        if budget is not None:
            extraction = extraction.model_copy(update={
                "total_chars": budget, "per_item_chars": min(extraction.per_item_chars, budget)})
        summary = ExtractionSummary(budget=extraction.total_chars)
        if extract and results and extraction.top_n > 0 and extraction.total_chars > 0:
            from tamis.extract import extract_results

            results, summary = await extract_results(
                results, query, extraction, client=self.client, store=self.store,
                cache_ttl=cfg.cache.extraction_ttl_seconds if cfg.cache.enabled else 0.0,
                env=self.env,
            )
            # on_failure: drop may have removed results: ranks stay 1..n without gaps.
            results = [r if r.rank == i else r.model_copy(update={"rank": i})
                       for i, r in enumerate(results, 1)]
        done = time.perf_counter()

        notes = [n for a in answers for n in a.notes] + lists.notes()
        notes += [Note(source=a.line, kind="cached", message="answer from cache")
                  for a in answers if a.cached]
        if empty_note:
            notes.append(Note(source="tamis", kind="info", message=empty_note))
        if status_note:
            notes.append(status_note)
        response = SearchResponse(
            query=query,
            query_intent=QueryIntentInfo(kind=intent.kind, reason=intent.reason),
            status=status,  # type: ignore[arg-type]
            raw_result_count=len(hits),
            returned_count=len(results),
            dropped_count=len(all_dropped),
            engines=sorted({label for hit, _, _ in hits for label in hit.engines}),
            lines=[LineReport(line=a.line, status=a.status, results=len(a.hits),
                              seconds=round(a.seconds, 3), cached=a.cached) for a in answers],
            results=results,
            extraction=summary,
            dropped=all_dropped if explain else None,
            notes=notes,
            timing=Timing(
                fanout_seconds=round(fanned - start, 3),
                pipeline_seconds=round(ranked_at - fanned, 3),
                extract_seconds=round(done - ranked_at, 3),
                total_seconds=round(done - start, 3),
            ),
        )
        return response, answers

    async def read(self, url: str, *, max_chars: int | None = None, start: int = 0,
                   query: str | None = None) -> ReadResponse:
        """One page's text under a budget (for an agent that follows a link)."""
        from tamis.extract import read_url

        cfg = self.config
        return await read_url(
            url, config=cfg.extraction, client=self.client, store=self.store,
            max_chars=max_chars or cfg.extraction.total_chars, start=start, query=query,
            cache_ttl=cfg.cache.extraction_ttl_seconds if cfg.cache.enabled else 0.0,
            env=self.env,
        )


def _scope(kept: list[Any], request: SearchRequest) -> tuple[list[Any], list[Dropped]]:
    """Apply a request's include_domains / exclude_domains (a caller's choice, not policy)."""
    from tamis.pipeline.urls import host_matches

    include = frozenset(d.lower() for d in request.include_domains)
    exclude = frozenset(d.lower() for d in request.exclude_domains)
    out, dropped = [], []
    for j in kept:
        c = j.candidate
        if (include and not host_matches(c.host, include)) or host_matches(c.host, exclude):
            dropped.append(Dropped(url=c.url, reason="excluded_by_request",
                                   position=c.first_seen, title=c.title, engines=c.engines))
        else:
            out.append(j)
    return out, dropped


async def asearch(query: str, *, config: Config | str | Path | None = None,
                  extract: bool = True, explain: bool = False,
                  max_results: int | None = None, **params: Any) -> SearchResponse:
    """Search once: ``await tamis.asearch("query", time_range="year")``; parameters out of
    bounds raise pydantic's ValidationError."""
    request = SearchRequest.model_validate({"query": query, "max_results": max_results,
                                            **params})
    async with Tamis(config) as layer:
        return await layer.search(request, extract=extract, explain=explain)


def _outside_a_loop(name: str, work: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """Run ``work()`` to its end, for the synchronous ``tamis.<name>``; inside a running
    event loop that cannot be done: the caller is told to await ``tamis.a<name>``."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(work())
    raise SearchFailed(f"tamis.{name}() was called inside a running event loop; use "
                       f"`await tamis.a{name}(...)` there")


def search(query: str, **options: Any) -> SearchResponse:
    """Search once, synchronously. Inside a running event loop, use ``asearch``."""
    return _outside_a_loop("search", lambda: asearch(query, **options))


async def aread(url: str, *, config: Config | str | Path | None = None,
                **options: Any) -> ReadResponse:
    async with Tamis(config) as layer:
        return await layer.read(url, **options)


def read(url: str, **options: Any) -> ReadResponse:
    """Read one page under a budget: ``tamis.read(url, max_chars=4000, query="...")``."""
    return _outside_a_loop("read", lambda: aread(url, **options))
