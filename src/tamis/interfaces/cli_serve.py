"""``tamis serve`` and ``tamis mcp``: start the HTTP service or the MCP server."""

from __future__ import annotations

import os
import socket
from typing import Any

import click

from tamis.interfaces.cli_common import config_option, fail, friendly_errors


def check_bind(host: str, port: int) -> int:
    """Fail with one line, before start-up, when the address cannot be bound; else the port
    (port 0: the free one the system picked, so the address printed is the one served)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
        return int(probe.getsockname()[1])


def token_for(host: str) -> str | None:
    from tamis.interfaces.http_auth import token_problem

    token = os.environ.get("TAMIS_TOKEN") or None
    problem = token_problem(token, host)
    if problem:
        fail(problem)
    return token


def worker_count(asked: int, store_url: str | None) -> int:
    """``--workers`` or ``serve.workers``; 0: one per core, but one with a ``memory:``
    store (workers would share nothing)."""
    if asked:
        return asked
    if store_url == "memory:":
        return 1
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def proxy_options(trusted: list[str]) -> dict[str, Any]:
    """uvicorn's forwarded-header settings: ``X-Forwarded-For`` (the client address the
    rate limit counts) and ``-Proto`` believed only from the proxies ``serve.trusted_proxies``
    names. uvicorn's own default believes any peer on 127.0.0.1 (FORWARDED_ALLOW_IPS), so
    a client on the same host could pick a new address for every request."""
    if not trusted:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": list(trusted)}


@click.command("serve", short_help="Serve over HTTP (native, SearXNG- and Tavily-compatible"
               " endpoints).")
@click.option("--host", default=None, help="Address to bind (config serve.host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="Port (config serve.port, 8080).")
@click.option("--workers", type=click.IntRange(0, 64), default=None,
              help="Processes sharing the store (config serve.workers; 0: one per core).")
@config_option
@friendly_errors
def serve(host: str | None, port: int | None, workers: int | None,
          config_path: str | None) -> None:
    """Serve tamis over HTTP: native, SearXNG- and Tavily-compatible endpoints."""
    from tamis.extras import require

    require("fastapi", "serve")
    require("prometheus_client", "serve")
    import uvicorn

    from tamis.core import Tamis
    from tamis.interfaces import http_app

    layer = Tamis(config_path)
    cfg = layer.config.serve
    host = host or cfg.host
    port = cfg.port if port is None else port
    token = token_for(host)
    port = check_bind(host, port)
    count = worker_count(cfg.workers if workers is None else workers, layer.config.store.url)
    click.echo(f"tamis serving on http://{host}:{port} (lines: "
               f"{', '.join(b.name for b in layer.config.backends) or 'none'}; "
               f"{count} worker{'s' if count > 1 else ''})", err=True)
    options: dict[str, Any] = {"host": host, "port": port, "log_level": "warning",
                               "access_log": False, "timeout_graceful_shutdown": 5,
                               **proxy_options(cfg.trusted_proxies)}
    if count == 1:
        uvicorn.run(http_app.create_app(layer, token=token, close_layer=True, bind=host),
                    **options)
        return
    import asyncio

    asyncio.run(layer.aclose())  # each worker makes its own from the same config
    layer.store.close()
    os.environ[http_app.SERVE_CONFIG_ENV] = config_path or ""
    os.environ[http_app.SERVE_BIND_ENV] = host
    from tamis.interfaces import serve_workers

    if serve_workers.available(port):  # a socket per worker: connections spread evenly
        if serve_workers.serve(count, host, port, options):
            fail("tamis serve stopped: a worker could not start (its reason is above)")
        return
    uvicorn.run(serve_workers.APP, factory=True, workers=count, **options)


@click.command("mcp", short_help="Run the MCP server (stdio or --http).")
@click.option("--http", "over_http", is_flag=True, help="Streamable HTTP instead of stdio.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --http.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="With --http.")
@click.option("--lite", is_flag=True,
              help="Query-only tool schemas, for small local models.")
@config_option
@friendly_errors
def mcp(over_http: bool, host: str, port: int, lite: bool, config_path: str | None) -> None:
    """Run the MCP server (tools web_search and read_url) over stdio, or --http."""
    from tamis.interfaces.mcp_server import build_server, serve_stdio
    from tamis.settings import load_config

    load_config(config_path)  # a config error is one line here, not a crash of the server
    server = build_server(config_path=config_path, lite=lite)
    if not over_http:
        serve_stdio(server)
        return
    import uvicorn

    from tamis.interfaces.http_auth import TokenGuard

    token = token_for(host)
    port = check_bind(host, port)
    app: Any = server.streamable_http_app(host=host)
    if token:
        app = TokenGuard(app, token)
    click.echo(f"tamis MCP on http://{host}:{port}/mcp", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
