"""The page to look at: raw order beside tamis order, in a browser.

``web_routes(get_layer)`` gives the routes ``tamis serve`` mounts (``get_layer()`` returns
the app's ``Tamis``):

- ``GET /``: one small page (``static/index.html``, ``page.css``, ``page.js``: plain HTML,
  CSS and vanilla JavaScript, no build step, nothing fetched from outside; a strict
  Content-Security-Policy says so to the browser);
- ``GET /ui/static/<name>``: its two assets;
- ``GET /ui/compare?q=...[&extract=1]``: JSON: the comparison (``tamis compare --json``:
  ``query``, ``config``, ``returned``, ``comparison``, ``response`` with ``explain`` on,
  so every score's components and every drop's reason) and ``policy`` (below);
- ``GET /ui/policy``: the policy in effect: ``source`` (the config file, or "built-in
  policy"), ``text`` (that file; the built-in default.yaml when there is none), and
  ``effective`` (the policy and quality sections after layering, as YAML); the values
  under a line's ``params`` are hidden, as are passwords in URLs.

``standalone_app`` and ``serve_demo`` run the page without the rest of the service
(``tamis demo --serve``: the bundled recordings, offline).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import BaseRoute, Route

from tamis.core import Tamis
from tamis.errors import TamisError
from tamis.interfaces.http_errors import error_for

ASSETS = {
    "page.css": "text/css; charset=utf-8",
    "page.js": "text/javascript; charset=utf-8",
}
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
        " connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}
MAX_POLICY_TEXT = 200_000
BUILTIN = "built-in policy"


def static_text(name: str) -> str:
    return resources.files("tamis.interfaces").joinpath("static", name).read_text("utf-8")


PARAMS_KEY = re.compile(r"^(\s*(?:-\s+)?)params:\s*(.*)$")
INLINE_PARAMS = re.compile(r"(\bparams:\s*)(\{[^}]*\}|\[[^\]]*\]|[^,}\s][^,}]*)")


def hide_params(text: str) -> str:
    """A config's text with every value under a line's ``params`` hidden (keys kept):
    params may hold anything a backend takes, keys included."""
    out: list[str] = []
    block: int | None = None  # the indentation of the params key whose block we are in
    for line in text.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if block is not None and stripped and not stripped.startswith("#"):
            if indent > block:
                key, colon, _value = stripped.partition(": ")
                if stripped.startswith("- "):
                    out.append(" " * indent + "- <hidden>")
                elif colon:
                    out.append(" " * indent + key + ": <hidden>")
                else:
                    out.append(" " * indent + "<hidden>")
                continue
            block = None
        match = PARAMS_KEY.match(line)
        if match and not match.group(2).startswith("#"):
            if match.group(2):
                out.append(f"{match.group(1)}params: <hidden>")
            else:
                out.append(line)
                block = len(match.group(1))  # the key's column
            continue
        out.append(INLINE_PARAMS.sub(r"\1<hidden>", line) if "params:" in line else line)
    return "\n".join(out)


def page_response() -> Response:
    return HTMLResponse(static_text("index.html"), headers=SECURITY_HEADERS)


def policy_info(layer: Tamis, config_source: str | None = None) -> dict[str, Any]:
    """The policy in effect: where it comes from, that file's text, the effective policy."""
    import yaml

    from tamis.pipeline.fanout import scrub
    from tamis.policy.loader import discover

    source = config_source or getattr(layer, "config_source", None)
    if source is None:
        found = discover(None)
        source = str(found) if found is not None else BUILTIN
    path = Path(source) if source != BUILTIN and not source.startswith(BUILTIN) else None
    text = ""
    if path is not None and path.is_file():
        try:
            text = path.read_text("utf-8")[:MAX_POLICY_TEXT]
        except (OSError, UnicodeDecodeError) as exc:
            text = f"# cannot read {source}: {type(exc).__name__}"
    if not text:
        text = resources.files("tamis.policy").joinpath("default.yaml").read_text("utf-8")
    effective = yaml.safe_dump(
        {"policy": layer.config.policy.model_dump(mode="json"),
         "quality": layer.config.quality.model_dump(mode="json")},
        sort_keys=False, width=100)
    # Line-by-line: a user:password in a URL never leaves the machine.
    clean = hide_params("\n".join(scrub(line, []) for line in text.splitlines()))
    effective = "\n".join(scrub(line, []) for line in effective.splitlines())  # list URLs
    from tamis.policy.lists import load_lists

    base = path.parent if path is not None and path.is_file() else None
    lists = [s.describe() for s in load_lists(layer.config.policy.lists, base)[1]]
    return {"source": source, "text": clean, "effective": effective, "lists": lists}


def web_routes(get_layer: Callable[[], Tamis], *, config_source: str | None = None
               ) -> list[BaseRoute]:
    """The page's routes; ``config_source``: the config file the layer was made from."""

    async def page(request: Request) -> Response:
        return page_response()

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in ASSETS:
            return JSONResponse({"error": "not found"}, status_code=404)
        return Response(static_text(name), media_type=ASSETS[name], headers=SECURITY_HEADERS)

    async def compare_view(request: Request) -> Response:
        from tamis.trust.view import compare_query, view_payload

        query = request.query_params.get("q", "").strip()
        if not query:
            return JSONResponse({"error": "give a query: /ui/compare?q=..."}, status_code=400)
        extract = request.query_params.get("extract", "").lower() in ("1", "true", "yes", "on")
        layer = get_layer()
        try:
            comparison, response = await compare_query(layer, query, extract=extract)
        except TamisError as exc:
            return error_for(exc)
        policy = policy_info(layer, config_source)
        payload: dict[str, Any] = view_payload(comparison, response,
                                               returned=layer.config.max_results,
                                               config=policy["source"])
        payload["policy"] = policy
        return JSONResponse(payload, headers={"Cache-Control": "no-store"})

    async def policy(request: Request) -> Response:
        return JSONResponse(policy_info(get_layer(), config_source))

    return [
        Route("/", page, methods=["GET"], name="tamis_page"),
        Route("/ui/static/{name}", asset, methods=["GET"], name="tamis_page_asset"),
        Route("/ui/compare", compare_view, methods=["GET"], name="tamis_compare"),
        Route("/ui/policy", policy, methods=["GET"], name="tamis_policy"),
    ]


def standalone_app(config: Any = None, *, config_source: str | None = None,
                   layer: Tamis | None = None, close_layer: bool = False) -> Starlette:
    """The page alone, on a ``Tamis`` made from ``config`` at start-up (or ``layer``,
    closed at shut-down when ``close_layer``)."""
    state: dict[str, Tamis | None] = {"layer": layer}

    @asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        own = state["layer"] is None or close_layer
        if state["layer"] is None:
            state["layer"] = Tamis(config, config_source=config_source)
        try:
            yield
        finally:
            current = state["layer"]
            if own and current is not None:
                await current.aclose()

    def get_layer() -> Tamis:
        current = state["layer"]
        assert current is not None, "the app has not started"
        return current

    return Starlette(routes=web_routes(get_layer, config_source=config_source),
                     lifespan=lifespan)


DEMO_SOURCE = "built-in policy (tamis demo: the bundled recordings, offline)"


def demo_app() -> Starlette:
    """The page on the bundled recordings of the two measured queries (no network)."""
    from tamis.interfaces.demo import recordings_dir
    from tamis.policy.schema import LineConfig
    from tamis.settings import load_config
    from tamis.store.base import MemoryStore

    config = load_config(None).config
    config = config.model_copy(update={"backends": [
        LineConfig(name="searxng", type="replay", path=recordings_dir())]})
    return standalone_app(layer=Tamis(config, store=MemoryStore()), config_source=DEMO_SOURCE,
                          close_layer=True)


def serve_demo(host: str = "127.0.0.1", port: int = 8080) -> None:
    """``tamis demo --serve``: open http://host:port/ and try the two measured queries."""
    import uvicorn

    uvicorn.run(demo_app(), host=host, port=port, log_level="warning")
