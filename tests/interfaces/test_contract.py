"""The JSON contract: docs/schema.json is current, and real output validates against it."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from click.testing import CliRunner

from tamis.interfaces.cli import cli
from tamis.models import response_schema

DOCS = Path(__file__).parents[2] / "docs"


def test_schema_file_is_generated_from_the_models() -> None:
    on_disk = json.loads((DOCS / "schema.json").read_text())
    assert on_disk == response_schema(), "run: tamis schema > docs/schema.json"


def test_real_output_validates_against_the_schema(tmp_path: Path) -> None:
    from tamis.interfaces.demo import recordings_dir

    config = tmp_path / "c.yaml"
    config.write_text("backends:\n"
                      f"  - {{name: searxng, type: replay, path: '{recordings_dir()}'}}\n"
                      "store: {url: 'memory:'}\n")
    schema = response_schema()
    for args in ([], ["--explain"]):
        result = CliRunner().invoke(cli, ["search", "proxmox thin pool metadata exhaustion "
                                          "recovery", "--config", str(config), "--no-extract",
                                          *args])
        assert result.exit_code == 0, result.output
        jsonschema.validate(json.loads(result.stdout), schema)
