"""``tamis serve`` and ``tamis mcp``: start the HTTP service or the MCP server."""

from __future__ import annotations

import ipaddress
import os
import socket
from typing import Any

import click

from tamis.interfaces.cli import config_option, fail, friendly_errors


def is_loopback(host: str) -> bool:
    if host in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, port: int) -> None:
    """Fail with one line, before start-up, when the address cannot be bound."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host.strip("[]"), port))
        except OSError as exc:
            fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")


def token_for(host: str) -> str | None:
    token = os.environ.get("TAMIS_TOKEN") or None
    if not is_loopback(host) and not token:
        fail(f"binding {host} exposes tamis beyond this machine: set TAMIS_TOKEN to a secret"
             " that clients send as 'Authorization: Bearer <token>', or bind 127.0.0.1")
    return token


@click.command("serve")
@click.option("--host", default=None, help="Address to bind (config serve.host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="Port (config serve.port, 8080).")
@config_option
@friendly_errors
def serve(host: str | None, port: int | None, config_path: str | None) -> None:
    """Serve tamis over HTTP: native, SearXNG- and Tavily-compatible endpoints."""
    import uvicorn

    from tamis.core import Tamis
    from tamis.interfaces.http_app import create_app

    layer = Tamis(config_path)
    cfg = layer.config.serve
    host = host or cfg.host
    port = cfg.port if port is None else port
    token = token_for(host)
    check_bind(host, port)
    app = create_app(layer, token=token, close_layer=True)
    click.echo(f"tamis serving on http://{host}:{port} (lines: "
               f"{', '.join(b.name for b in layer.config.backends) or 'none'})", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False,
                timeout_graceful_shutdown=5)


@click.command("mcp")
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
    from tamis.interfaces.mcp_server import build_server
    from tamis.policy.loader import load_config

    load_config(config_path)  # a config error is one line here, not a crash of the server
    server = build_server(config_path=config_path, lite=lite)
    if not over_http:
        server.run("stdio")
        return
    import uvicorn

    from tamis.interfaces.http_limits import BearerAuth

    token = token_for(host)
    check_bind(host, port)
    app: Any = server.streamable_http_app(host=host)
    if token:
        app = BearerAuth(app, token)
    click.echo(f"tamis MCP on http://{host}:{port}/mcp", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
