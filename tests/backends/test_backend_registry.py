"""Which adapter a line gets, zero-config lines from the environment, pasted keys refused
with the line's name, and the section/line pool strategy."""

from __future__ import annotations

from pathlib import Path

import pytest

from tamis.backends.registry import (
    adapter_type,
    lines_from_environment,
    make_adapter,
    make_adapters,
)
from tamis.errors import ConfigError
from tamis.policy.schema import Config, LineConfig
from tamis.settings import load_config

PASTED = "tvly-dev-AbCdEf0123456789XyZ"


def names(lines: list[LineConfig]) -> list[tuple[str, str | None, str | None]]:
    return [(x.name, x.base_url, x.api_key_env) for x in lines]


def test_no_environment_gives_the_keyless_ddgs_line():
    assert names(lines_from_environment({})) == [("ddgs", None, None)]


def test_every_known_variable_gives_its_line_in_order():
    env = {"SEARXNG_URL": "http://127.0.0.1:8888", "TAVILY_API_KEY": "k", "BRAVE_API_KEY": "k",
           "EXA_API_KEY": "k", "SERPER_API_KEY": "k", "FIRECRAWL_API_KEY": "k"}
    assert names(lines_from_environment(env)) == [
        ("searxng", "http://127.0.0.1:8888", None), ("tavily", None, "TAVILY_API_KEY"),
        ("brave", None, "BRAVE_API_KEY"), ("exa", None, "EXA_API_KEY"),
        ("serper", None, "SERPER_API_KEY"), ("firecrawl", None, "FIRECRAWL_API_KEY")]


def test_firecrawl_url_is_a_self_hosted_line_keyed_only_when_the_key_is_set():
    assert names(lines_from_environment({"FIRECRAWL_URL": "http://127.0.0.1:3002"})) == [
        ("firecrawl", "http://127.0.0.1:3002", None)]
    both = {"FIRECRAWL_URL": "http://127.0.0.1:3002", "FIRECRAWL_API_KEY": "k"}
    assert names(lines_from_environment(both)) == [
        ("firecrawl", "http://127.0.0.1:3002", "FIRECRAWL_API_KEY")]
    adapter = make_adapter(lines_from_environment({"FIRECRAWL_URL": "http://h:1"})[0])
    assert adapter.key_envs() == [] and not adapter.needs_key()


def test_empty_variables_count_as_unset():
    assert names(lines_from_environment({"TAVILY_API_KEY": "", "SEARXNG_URL": ""})) == [
        ("ddgs", None, None)]


def test_config_without_backends_takes_lines_from_the_environment(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("timeout: 5\n")
    loaded = load_config(path, env={"BRAVE_API_KEY": "k"})
    assert [x.name for x in loaded.config.backends] == ["brave"]
    assert [x.name for x in load_config(None, env={}).config.backends] == ["ddgs"]


def test_adapter_type_by_type_then_name_then_generic():
    assert adapter_type(LineConfig(name="tavily")) == "tavily"
    assert adapter_type(LineConfig(name="home", type="searxng")) == "searxng"
    assert adapter_type(LineConfig(name="mine", base_url="http://x")) == "generic"


def test_unknown_type_names_the_line():
    with pytest.raises(ConfigError, match=r"backend 'x': unknown type 'nope'"):
        make_adapter(LineConfig(name="x", type="nope"))


@pytest.mark.parametrize("where", ["api_key_env: {key}", "credentials: [OK_NAME, {key}]"])
def test_a_pasted_key_is_refused_naming_the_line(tmp_path: Path, where: str):
    path = tmp_path / "c.yaml"
    path.write_text("backends:\n  - name: searxng\n    base_url: http://127.0.0.1:8888\n"
                    f"  - name: my-tavily\n    type: tavily\n    {where.format(key=PASTED)}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert "backends[my-tavily]" in message
    assert "looks like an API key" in message
    assert "line 6" in message
    assert PASTED not in message and PASTED[5:15] not in message


def test_line_pool_strategy_overrides_the_section():
    config = Config(pool_strategy="round_robin", backends=[
        LineConfig(name="a", base_url="http://h", credentials=["A1", "A2"]),
        LineConfig(name="b", base_url="http://h", credentials=["B1", "B2"],
                   pool_strategy="random"),
        LineConfig(name="c", base_url="http://h", enabled=False)])
    adapters = make_adapters(config)
    assert [(a.name, a.pool_strategy) for a in adapters] == [("a", "round_robin"),
                                                             ("b", "random")]


def test_api_key_env_comes_first_in_the_pool():
    line = LineConfig(name="tavily", api_key_env="T0", credentials=["T1", "T2"])
    assert make_adapter(line).key_envs() == ["T0", "T1", "T2"]
    assert make_adapter(LineConfig(name="tavily")).key_envs() == ["TAVILY_API_KEY"]
