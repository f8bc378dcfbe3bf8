"""A config read from its snapshot imports no pydantic (issue 13: pydantic's import and
schema building were the largest part of a CLI search's CPU). Each check runs in a fresh
interpreter, the snapshot kept in a SQLite store by an earlier process, as the CLI does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tamis.policy.loader import read_config
from tamis.store.sqlite import SQLiteStore

CONFIG = """
backends:
  - name: searxng
    base_url: http://127.0.0.1:8888
    params: {engines: "bing,brave", safesearch: 1}
policy:
  demote_domains: {add: [contentfarm.example]}
  lists: [{name: mine, source: mine.txt, action: drop}]
extraction: {top_n: 2}
dupes: {shingle_size: 4}
"""

# Records which tamis module first imported pydantic (the innermost tamis frame on the stack
# when ``import pydantic`` starts), then reads the config the way the test names.
CHILD = """
import json, sys

class Watch:
    importer = None

    def find_spec(self, name, path=None, target=None):
        if Watch.importer is None and name.split(".")[0] in ("pydantic", "pydantic_core"):
            frame = sys._getframe(1)
            while frame is not None:
                module = frame.f_globals.get("__name__", "")
                if module.startswith("tamis"):
                    break
                frame = frame.f_back
            Watch.importer = module if frame is not None else "(not tamis)"
        return None

sys.meta_path.insert(0, Watch())
from tamis.store.sqlite import SQLiteStore
from pathlib import Path
store = SQLiteStore(Path(sys.argv[2]))
if sys.argv[1] == "policy":
    import tamis.policy.defaults, tamis.policy.schema, tamis.policy.snapshot  # noqa: F401
    from tamis.policy.loader import read_config
    config = read_config(sys.argv[3], snapshots=store).config
else:
    import tamis.settings
    config = tamis.settings.load_config(sys.argv[3], snapshots=store).config
from tamis import typed
print(json.dumps({"importer": Watch.importer, "validated": typed.adapter.cache_info().currsize,
                  "weight": config.backends[0].weight, "top_n": config.extraction.top_n}))
"""


def read_in_child(how: str, store: Path, config: Path) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", CHILD, how, str(store), str(config)],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    found: dict[str, object] = json.loads(done.stdout)
    return found


@pytest.fixture()
def snapshotted(tmp_path: Path) -> tuple[Path, Path]:
    config = tmp_path / "tamis.yaml"
    config.write_text(CONFIG)
    (tmp_path / "mine.txt").write_text("spam.example\n")
    store = tmp_path / "store.sqlite3"
    kept = SQLiteStore(store)
    read_config(config, snapshots=kept)  # validated once, and kept
    kept.close()
    return store, config


def test_the_policy_layer_reads_a_snapshot_without_pydantic(
        snapshotted: tuple[Path, Path], tmp_path: Path) -> None:
    store, config = snapshotted
    found = read_in_child("policy", store, config)
    assert found == {"importer": None, "validated": 0, "weight": 1.0, "top_n": 2}
    # Without the snapshot the same read validates, with pydantic: the check can fail.
    empty = tmp_path / "empty.sqlite3"
    found = read_in_child("policy", empty, config)
    assert found["importer"] is not None and found["validated"] == 1


def test_load_config_from_a_snapshot_imports_no_pydantic(
        snapshotted: tuple[Path, Path]) -> None:
    """``tamis.settings.load_config`` (what the CLI calls) completes the config with the
    adapters, which import ``tamis.models``: plain dataclasses too, so nothing imports
    pydantic."""
    store, config = snapshotted
    found = read_in_child("settings", store, config)
    assert found["validated"] == 0 and found["weight"] == 1.0
    assert found["importer"] is None
