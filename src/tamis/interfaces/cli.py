"""The ``tamis`` command (the console script is ``cli``): a click group whose subcommands
are imported when named (``lazy.LazyGroup``), a thin shell over ``tamis.core``.

Exit codes: 0 ok, 1 nothing survived filtering (or no results), 2 tamis could not run
(bad config, bad input, every backend failed). Errors are one line on stderr, never a
traceback (set TAMIS_DEBUG=1 to see one); usage errors too.
"""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from tamis.interfaces.cli_common import (
    closed_pipe,
    config_option,
    fail,
    friendly_errors,
    stdout_problem,
)
from tamis.interfaces.lazy import LazyGroup
from tamis.version import __version__

LAZY_SUBCOMMANDS = {
    "search": "tamis.interfaces.cli_search.search",
    "read": "tamis.interfaces.cli_read.read",
    "backends": "tamis.interfaces.cli_backends.backends",
    "dupes": "tamis.interfaces.cli_dupes.dupes",
    "serve": "tamis.interfaces.cli_serve.serve",
    "mcp": "tamis.interfaces.cli_serve.mcp",
    "check": "tamis.interfaces.cli_trust.check",
    "compare": "tamis.interfaces.cli_trust.compare",
    "lists": "tamis.interfaces.cli_lists.lists",
}


class TamisGroup(LazyGroup):
    """The root group. Every usage error (missing argument, bad option value, unknown
    command) is one ``error:`` line and exit 2, like every other error: never click's
    three-line usage block."""

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        if not standalone_mode:  # the caller handles click's exceptions itself
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        if sys.stdout is None:  # started with stdout closed (>&-): an answer would be lost
            fail(str(stdout_problem()))
        try:
            # prog_name: `python -m tamis.interfaces.cli` says "tamis" too
            code = super().main(args, prog_name or "tamis", complete_var, standalone_mode=False,
                                **extra)
        except click.exceptions.NoArgsIsHelpError as exc:  # `tamis` alone: the help, readable
            exc.show()
            sys.exit(exc.exit_code)
        except click.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx is not None else "tamis"
            fail(f"{exc.format_message()} (see '{where} --help')", exc.exit_code)
        except click.ClickException as exc:
            fail(exc.format_message(), exc.exit_code)
        except click.exceptions.Abort:
            fail("interrupted", 130)
        except BrokenPipeError:
            closed_pipe()
        except OSError as exc:  # click's own output (--help, --version) to a full disk
            fail(stdout_problem(exc) or f"internal error: {type(exc).__name__}: {exc}")
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=TamisGroup, lazy_subcommands=LAZY_SUBCOMMANDS,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="tamis")
def cli() -> None:
    """tamis: a search layer for AI agents.

    One query fanned out to every configured backend; results deduped with provenance,
    non-answers dropped with a reason, content farms demoted, a stable ranking, page text
    for the top results under a budget; stable JSON out.

    \b
    Try it offline:   tamis demo
    Search:           SEARXNG_URL=http://127.0.0.1:8888 tamis search "your query"
    """


@cli.command("explain-url", short_help="Say what the policy does with URL: KEEP, DROP (reason),"
             " DEMOTE or PREFER.")
@click.argument("url")
@click.option("--query", "-q", default="", help="The query, for navigational homepages.")
@config_option
@click.option("--json", "as_json", is_flag=True, help="JSON instead of one line of text.")
@friendly_errors
def explain_url(url: str, query: str, config_path: str | None, as_json: bool) -> None:
    """Say what the policy does with URL: KEEP, DROP (reason), DEMOTE or PREFER."""
    from tamis.pipeline.explain import explain_url as run

    verdict = run(url, query=query, config_path=config_path)
    if as_json:
        click.echo(json.dumps(verdict, indent=2))
    else:
        reason = f" ({verdict['reason']})" if verdict.get("reason") else ""
        click.echo(f"{verdict['action']}{reason}  source_type={verdict['source_type']}"
                   f"  {verdict['url']}")
        for line in verdict.get("lists") or []:
            click.echo(f"  {line}")


@cli.command(short_help="The measured queries, offline: raw engine order beside tamis order.")
@click.option("--json", "as_json", is_flag=True, help="The comparisons as JSON.")
@click.option("--serve", is_flag=True,
              help="Open the comparison page on the bundled recordings instead.")
@click.option("--host", default="127.0.0.1", show_default=True, help="With --serve.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True,
              help="With --serve.")
@friendly_errors
def demo(as_json: bool, serve: bool, host: str, port: int) -> None:
    """Run the two queries our users measured, offline, on bundled recordings, and show
    raw engine order beside tamis order (--serve: as a web page)."""
    if serve:
        from tamis.interfaces.cli_serve import check_bind, token_for
        from tamis.interfaces.web import serve_demo

        token_for(host)
        port = check_bind(host, port)
        click.echo(f"tamis demo page on http://{host}:{port}/ (Ctrl-C to stop)", err=True)
        serve_demo(host, port)
        return
    from tamis.interfaces.demo import run_demo

    run_demo(as_json=as_json)


@cli.group("config")
def config_group() -> None:
    """Check and show the config."""


@config_group.command("check")
@click.argument("file", required=False, type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="The effective config as JSON.")
@friendly_errors
def config_check(file: str | None, as_json: bool) -> None:
    """Validate FILE (or the config in effect) and print the effective config."""
    import yaml

    from tamis.settings import load_config

    loaded = load_config(file)
    data = loaded.config.model_dump(mode="json")
    from tamis.interfaces.cli_lists import list_statuses

    lists = list_statuses(loaded)  # each list's age; one never fetched is a note
    if as_json:
        click.echo(json.dumps({"source": loaded.source, "config": data,
                               "lists": [s.as_json() for s in lists]}, indent=2))
        return
    click.echo(f"# OK: {loaded.source} is valid. Effective config:")
    for status in lists:
        click.echo(f"# {status.describe()}")
    click.echo(yaml.safe_dump(data, sort_keys=False, width=100).rstrip())


@cli.command(short_help="Print the JSON Schema of the search answer (docs/schema.json).")
@friendly_errors
def schema() -> None:
    """Print the JSON Schema of the search answer (docs/schema.json is this output)."""
    from tamis.models import response_schema

    click.echo(json.dumps(response_schema(), indent=2))


if __name__ == "__main__":  # `python -m tamis.interfaces.cli`, as the console script
    cli()
