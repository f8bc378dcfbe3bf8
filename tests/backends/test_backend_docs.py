"""The full example of docs/configuration.md loads, and every line in it builds."""

from __future__ import annotations

import re
from pathlib import Path

from tamis.backends.listing import describe_lines
from tamis.backends.registry import ADAPTERS, adapter_type, make_adapters
from tamis.settings import load_config

DOC = Path(__file__).parents[2] / "docs" / "configuration.md"


def test_the_documented_example_config_is_valid(tmp_path: Path):
    text = DOC.read_text("utf-8")
    example = re.search(r"## A full example\s+```yaml\n(.*?)```", text, re.S)
    assert example is not None
    path = tmp_path / "config.yaml"
    path.write_text(example.group(1))
    config = load_config(path).config
    adapters = make_adapters(config)
    kinds = {adapter_type(line) for line in config.backends}
    web = {"searxng", "tavily", "brave", "exa", "serper", "firecrawl", "ddgs", "generic"}
    assert web <= set(ADAPTERS)
    assert kinds == web  # every line type that asks the web is shown
    assert len(adapters) == len(config.backends)
    listing = describe_lines(config, None, {"TAVILY_KEY_1": "x"})
    tavily = next(x for x in listing if x["name"] == "tavily")
    assert tavily["pool_strategy"] == "round_robin"
    assert [k["env"] for k in tavily["keys"]] == ["TAVILY_KEY_1", "TAVILY_KEY_2"]
