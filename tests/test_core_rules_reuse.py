"""The compiled policy is reused across a layer's searches (issue 13), never past a change:
a config replaced on the layer is the policy of its next search."""

from __future__ import annotations

import asyncio
from pathlib import Path

from fake_searxng import FakeSearXNG
from loopback import LoopbackServer

from tamis.core import RULES_REUSE, Tamis

PROXMOX = "proxmox thin pool metadata exhaustion recovery"


def test_a_replaced_policy_is_used_by_the_next_search(tmp_path: Path) -> None:
    with LoopbackServer(FakeSearXNG()) as searxng:
        path = tmp_path / "tamis.yaml"
        path.write_text(f"backends:\n  - name: searxng\n    base_url: {searxng.url}\n"
                        "cache: {enabled: false}\nstore: {url: 'memory:'}\n")

        async def run() -> tuple[list[str], list[str], list[str]]:
            async with Tamis(str(path)) as layer:
                before = [r.host for r in (await layer.search(PROXMOX, extract=False)).results]
                policy = layer.config.policy
                refused = policy.non_answer.model_copy(update={
                    "hosts": [*policy.non_answer.hosts, before[0]]})
                layer.config = layer.config.model_copy(update={
                    "policy": policy.model_copy(update={"non_answer": refused})})
                after = [r.host for r in (await layer.search(PROXMOX, extract=False)).results]
                for _ in range(RULES_REUSE + 1):  # compiled again after RULES_REUSE searches
                    layer._rules()
                again = [r.host for r in (await layer.search(PROXMOX, extract=False)).results]
                return before, after, again

        before, after, again = asyncio.run(run())
    assert before[0] not in after
    assert after == again
