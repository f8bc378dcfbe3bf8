"""A keyless line retries once after a server error (5xx) or a connection error, never after
a refusal (401, 403) or a rate limit (429), as docs/configuration.md says."""

from __future__ import annotations

import pytest
from loopback import Reply

from tamis.backends.registry import make_adapter
from tamis.policy.schema import LineConfig


@pytest.mark.parametrize(("status", "asked"), [(401, 1), (403, 1), (429, 1), (404, 1),
                                               (500, 2), (502, 2), (503, 2)])
def test_keyless_retry_only_after_server_errors(server, run, status: int, asked: int) -> None:
    server.route("/api", Reply(status=status, json={"error": "no"}))
    adapter = make_adapter(LineConfig(name="mine", base_url=server.url, search_path="/api"))
    [answer] = run([adapter], "q", timeout=5)
    assert answer.status == "failed"
    assert len(server.requests_to("/api")) == asked
    assert ("after one retry" in answer.notes[-1].message) == (asked == 2)
