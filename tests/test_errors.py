"""The one error tree and the one map each interface keeps from it to its own shape."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tamis.errors import (
    ConfigError,
    DupesError,
    HTTPRefusal,
    RequestRejected,
    SearchFailed,
    StageError,
    TamisError,
)


def test_what_a_user_sees_is_a_tamis_error_and_a_stage_error_is_not() -> None:
    for cls in (ConfigError, DupesError, HTTPRefusal, RequestRejected, SearchFailed):
        assert issubclass(cls, TamisError) and not issubclass(cls, StageError)
    from tamis.backends.base import AnswerError
    from tamis.yamlsafe import AliasRefused

    assert issubclass(AnswerError, StageError) and issubclass(AliasRefused, ValueError)


def test_http_maps_the_tree_in_one_place() -> None:
    from tamis.interfaces.http_errors import error_for

    limited = error_for(HTTPRefusal(429, "rate limit", {"Retry-After": "7"}))
    assert limited.status_code == 429 and limited.headers["retry-after"] == "7"
    assert json.loads(limited.body)["error"] == "rate limit"
    rejected = error_for(RequestRejected("the query is empty"))
    assert rejected.status_code == 400
    assert json.loads(rejected.body) == {"error": "the query is empty",
                                         "detail": {"error": "the query is empty"}}


def test_mcp_maps_the_tree_in_one_place() -> None:
    from mcp.server.mcpserver.exceptions import ToolError

    from tamis.interfaces.mcp_server import tool_errors

    with pytest.raises(ToolError, match=r"^store x: cannot reach Redis$"), tool_errors():
        raise ConfigError("store x: cannot reach Redis")


def test_tamis_dupes_speaks_through_the_cli_map(tmp_path) -> None:
    from tamis.interfaces.cli_dupes import dupes

    bad = tmp_path / "nodes.jsonl"
    bad.write_text("{not json\n")
    outcome = CliRunner().invoke(dupes, ["--jsonl", str(bad)])
    assert outcome.exit_code == 2 and outcome.stdout == ""
    [line] = outcome.stderr.strip().splitlines()
    assert line.startswith("error: ") and "nodes.jsonl" in line


@pytest.mark.anyio
async def test_the_sync_api_inside_a_running_loop_says_what_to_await() -> None:
    import tamis

    with pytest.raises(SearchFailed, match=r"tamis.search\(\) .* `await tamis.asearch"):
        tamis.search("x")
    with pytest.raises(SearchFailed, match=r"tamis.read\(\) .* `await tamis.aread"):
        tamis.read("http://127.0.0.1:9/")
