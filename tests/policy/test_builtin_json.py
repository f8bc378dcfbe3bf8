"""default.json is default.yaml parsed (so a call without a config file needs no YAML parser),
used only while it was made from the very text of default.yaml."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tamis import yamlsafe
from tamis.policy import files, loader


def test_default_json_is_default_yaml_parsed() -> None:
    assert Path(files.BUILTIN_JSON_FILE).read_text("utf-8") == files.builtin_json(), (
        "default.yaml changed: python tools/default_json.py")
    assert loader.builtin_data() == yamlsafe.load(loader.BUILTIN.read_text("utf-8"))


@pytest.mark.parametrize("saved", ["stale", "broken", "missing"])
def test_a_stale_or_missing_default_json_is_not_used(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     saved: str) -> None:
    path = tmp_path / "default.json"
    if saved == "stale":  # made from another default.yaml: its data must not be read
        path.write_text(json.dumps({"sha256": "0" * 64, "data": {"max_results": 99}}))
    elif saved == "broken":
        path.write_text("{not json")
    monkeypatch.setattr(files, "BUILTIN_JSON_FILE", str(path))
    data = loader.builtin_data()
    assert data == yamlsafe.load(loader.BUILTIN.read_text("utf-8"))
    assert data["max_results"] == 8


def test_each_call_gets_its_own_data() -> None:
    first = loader.builtin_data()
    first["policy"]["demote_domains"].append("changed.example")
    assert "changed.example" not in loader.builtin_data()["policy"]["demote_domains"]
