"""The web page's policy view lists every subscribed list and its state."""

from __future__ import annotations

from pathlib import Path

from starlette.testclient import TestClient

from tamis.interfaces.web import standalone_app
from tamis.policy.lists.load import forget
from tamis.settings import load_config

DATA = Path(__file__).parent / "data"


def test_the_policy_view_shows_the_lists(tmp_path: Path) -> None:
    path = tmp_path / "tamis.yaml"
    path.write_text(
        "backends:\n  - {name: searxng, base_url: 'http://127.0.0.1:9'}\nstore: {url: 'memory:'}\n"
        "policy:\n  lists:\n"
        f"    - {{name: copies, source: '{DATA / 'copycats.ublock.txt'}', action: demote}}\n"
        "    - {name: remote, source: 'https://lists.example/farms.txt', action: drop}\n")
    forget()
    app = standalone_app(load_config(path).config, config_source=str(path))
    with TestClient(app) as client:
        policy = client.get("/ui/policy").json()
        script = client.get("/ui/static/page.js").text
    first, second = policy["lists"]
    assert first.startswith("list copies (demote): 11 rules (ublock), 4 cosmetic rules"
                            " skipped,")
    assert "3 bad lines skipped; file " in first
    assert second == "list remote: never fetched; run `tamis lists update` to fetch it"
    assert "policy-lists" in script  # the page renders them
