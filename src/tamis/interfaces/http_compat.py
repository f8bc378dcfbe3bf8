"""The compatibility endpoints of ``tamis serve``: SearXNG's and Tavily's APIs over ``Tamis``.

- SearXNG-compatible ``GET /search?q=...&format=json``: any SearXNG client gets tamis's
  cleaned, ranked results by pointing its ``SEARXNG_URL`` here;
- Tavily-compatible ``POST /search`` with a JSON body: the official ``tavily-python`` client
  works with ``api_base_url`` set here.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from tamis.interfaces.http_limits import HTTPError, Service
from tamis.models import SearchRequest, SearchResponse, TimeRange


class TavilyBody(BaseModel):
    """Tavily's search request; fields tamis does not use are accepted and ignored."""

    model_config = ConfigDict(extra="allow")

    query: str = Field(min_length=1)
    max_results: int = Field(default=5, ge=1)
    include_raw_content: bool | Literal["markdown", "text"] = False
    include_domains: list[str] | None = None
    exclude_domains: list[str] | None = None
    search_depth: str | None = None
    topic: str | None = None
    time_range: TimeRange | None = None


def searxng_shape(response: SearchResponse) -> dict[str, Any]:
    """tamis's answer in SearXNG's ``format=json`` shape."""
    from urllib.parse import urlsplit

    results = []
    for r in response.results:
        parts = urlsplit(r.url)
        engines = [e.split(":", 1)[-1] for e in r.engines]
        results.append({
            "url": r.url,
            "title": r.title,
            "content": r.excerpt or r.snippet,
            "engine": engines[0] if engines else "tamis",
            "engines": engines,
            "positions": [r.positions[e] for e in r.engines],
            "score": r.score,
            "category": "general",
            "parsed_url": [parts.scheme, parts.netloc, parts.path, "", parts.query,
                           parts.fragment],
            "template": "default.html",
            "publishedDate": r.published,
            "source_type": r.source_type,
        })
    unresponsive = [[n.source.split(":", 1)[-1], n.message] for n in response.notes
                    if n.kind in ("unresponsive_engine", "line_failed", "line_timeout")]
    return {
        "query": response.query,
        "number_of_results": len(results),
        "results": results,
        "answers": [],
        "corrections": [],
        "infoboxes": [],
        "suggestions": [],
        "unresponsive_engines": unresponsive,
    }


def tavily_shape(response: SearchResponse, raw: bool, request_id: str) -> dict[str, Any]:
    """tamis's answer in Tavily's shape. ``score`` is rank-based in (0, 1]."""
    n = max(len(response.results), 1)
    return {
        "query": response.query,
        "follow_up_questions": None,
        "answer": None,
        "images": [],
        "results": [{
            "title": r.title,
            "url": r.url,
            "content": r.snippet,
            "score": round(1.0 - (r.rank - 1) / n, 4),
            "raw_content": (r.excerpt or None) if raw else None,
            **({"published_date": r.published} if r.published else {}),
        } for r in response.results],
        "response_time": response.timing.total_seconds,
        "request_id": request_id,
    }


def compat_router(service: Service) -> APIRouter:
    router = APIRouter()

    @router.get("/search", summary="SearXNG-compatible search (format=json)")
    async def searxng_search(
        request: Request,
        q: str = Query(..., description="The query"),
        format: str = "json",
        categories: str | None = None,
        language: str | None = None,
        time_range: TimeRange | None = None,
        safesearch: int | None = Query(None, ge=0, le=2),
        pageno: int | None = Query(None, ge=1),
        engines: str | None = None,
    ) -> JSONResponse:
        if format != "json":
            raise HTTPError(400, f"format={format} is not served: tamis answers format=json")
        query = service.check_query(q)
        search_request = SearchRequest(query=query, categories=categories,
                                       language=language if language != "all" else None,
                                       time_range=time_range, safesearch=safesearch,
                                       pageno=pageno, engines=engines)
        response: SearchResponse = await service.limited(
            request, service.get_layer().search(search_request, extract=False))
        service.metrics.observe_search(response)
        if response.status == "failed":
            raise HTTPError(502, "; ".join(n.message for n in response.notes) or "failed")
        return JSONResponse(searxng_shape(response))

    @router.post("/search", summary="Tavily-compatible search")
    async def tavily_search(request: Request) -> JSONResponse:
        try:
            body = TavilyBody.model_validate_json(await request.body())
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ())) or "body"
            raise HTTPError(400, f"{where}: {first.get('msg')}") from None
        query = service.check_query(body.query)
        search_request = SearchRequest(query=query, max_results=service.cap(body.max_results),
                                       time_range=body.time_range,
                                       include_domains=body.include_domains or [],
                                       exclude_domains=body.exclude_domains or [])
        raw = bool(body.include_raw_content)
        response: SearchResponse = await service.limited(
            request, service.get_layer().search(search_request, extract=raw))
        service.metrics.observe_search(response)
        if response.status == "failed":
            raise HTTPError(502, "; ".join(n.message for n in response.notes) or "failed")
        return JSONResponse(tavily_shape(response, raw, str(uuid.uuid4())))

    return router
