"""Policy is config: discovery, layering over the built-in policy, and errors that name the
file, the key and the line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tamis.errors import ConfigError
from tamis.interfaces.cli import cli
from tamis.settings import load_config


def write(tmp_path: Path, text: str, name: str = "tamis.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_builtin_policy_is_the_measured_one() -> None:
    config = load_config(None).config
    policy = config.policy
    # their shopping and dictionary hosts are page kinds now: moved down, never dropped
    assert "bestbuy.com" in policy.page_kinds["shop"].hosts
    assert "merriam-webster.com" in policy.page_kinds["dictionary"].hosts
    assert "/search?" in policy.non_answer.path_patterns
    assert "medium.com" in policy.demote_domains and "github.com" in policy.prefer_domains
    ex = config.extraction
    assert (ex.top_n, ex.total_chars, ex.per_item_chars, ex.timeout_seconds) == (5, 12000,
                                                                              4000, 45)
    assert ex.on_failure == "keep_with_empty_excerpt"


def test_lists_can_be_edited_without_copying_them(tmp_path: Path) -> None:
    path = write(tmp_path, """
policy:
  demote_domains: {add: [contentfarm.example], remove: [dev.to]}
  prefer_domains: [only.example]
""")
    policy = load_config(path).config.policy
    assert "contentfarm.example" in policy.demote_domains
    assert "dev.to" not in policy.demote_domains
    assert "medium.com" in policy.demote_domains  # the rest of the default list is kept
    assert policy.prefer_domains == ["only.example"]  # a plain list replaces


def test_discovery_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    xdg = tmp_path / "config" / "tamis"
    xdg.mkdir(parents=True)
    (xdg / "config.yaml").write_text("max_results: 3\n")
    assert load_config(None).config.max_results == 3
    env_file = write(tmp_path, "max_results: 4\n", "env.yaml")
    monkeypatch.setenv("TAMIS_CONFIG", str(env_file))
    assert load_config(None).config.max_results == 4
    explicit = write(tmp_path, "max_results: 5\n", "explicit.yaml")
    assert load_config(explicit).config.max_results == 5


@pytest.mark.parametrize(("text", "expected"), [
    ("policy:\n  ranking:\n    prefer_bonuss: 3\n",
     "line 3: unknown key 'policy.ranking.prefer_bonuss'"),
    ("max_results: many\n", "line 1: key 'max_results': Input should be a valid integer"),
    ("\n\nextraction:\n  top_n: -1\n",
     "line 4: key 'extraction.top_n': Input should be greater than or equal to 0"),
    ("policy:\n  page_kinds:\n    shop: {front_page: sometimes}\n",
     "line 3: key 'policy.page_kinds.shop.front_page': Input should be a valid boolean"),
    ("policy:\n  non_answer:\n    path_patterns: [shop]\n",
     "key 'policy.non_answer.path_patterns': path pattern 'shop' must start with '/'"),
    ("backends:\n  - name: tavily\n    api_key_env: tvly-AbCdEf1234567890\n",
     "line 3: key 'backends[tavily].api_key_env': looks like an API key"),
    ("max_results: [1\n", "line 2: not valid YAML"),
    ("- just\n- a list\n", "the top level must be a mapping"),
])
def test_config_errors_name_file_key_and_line(tmp_path: Path, text: str,
                                               expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert message.startswith(str(path))
    assert expected in message
    assert "\n" not in message
    assert "tvly-AbCdEf1234567890" not in message  # a pasted key is never echoed


@pytest.mark.parametrize(("section", "variable"), [
    ("backends:\n  - name: brave\n    api_key_env: {key}\n", "BRAVE_API_KEY"),
    ("backends:\n  - name: tavily\n    credentials: [{key}]\n", "TAVILY_API_KEY"),
    ("backends:\n  - name: web\n    type: serper\n    api_key_env: {key}\n", "SERPER_API_KEY"),
    ("extraction:\n  firecrawl:\n    api_key_env: {key}\n", "FIRECRAWL_API_KEY"),
])
def test_a_pasted_key_is_refused_with_the_lines_own_variable_as_the_hint(
        tmp_path: Path, section: str, variable: str) -> None:
    key = "BSAk3yF0rBr4veSe4rch0nly"
    with pytest.raises(ConfigError) as err:
        load_config(write(tmp_path, section.format(key=key)))
    message = str(err.value)
    assert "looks like an API key" in message and f"(e.g. {variable})" in message
    assert key not in message


def test_missing_config_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="config file not found"):
        load_config(tmp_path / "nope.yaml")


def test_config_check_prints_the_effective_policy(tmp_path: Path) -> None:
    path = write(tmp_path, "policy:\n  demote_domains: {add: [farm.example]}\n")
    result = CliRunner().invoke(cli, ["config", "check", str(path)])
    assert result.exit_code == 0
    assert result.stdout.startswith(f"# OK: {path} is valid.")
    assert "farm.example" in result.stdout and "bestbuy.com" in result.stdout


def test_bad_config_through_the_cli_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = write(tmp_path, "policy:\n  ranking:\n    prefer_places: lots\n")
    proc = subprocess.run([sys.executable, "-m", "tamis.interfaces.cli", "search", "x",
                           "--config", str(path)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert f"{path}, line 3: key 'policy.ranking.prefer_places'" in proc.stderr


PASTED = "tvly-AbCdEf1234567890"


@pytest.mark.parametrize(("line", "key"), [
    (f"    base_url: https://api.tavily.com/?api_key={PASTED}\n", "base_url"),
    ("    base_url: https://api.example.com/?token=s3cr3t\n", "base_url"),
    ("    base_url: https://user:s3cr3t@api.example.com/\n", "base_url"),
    (f"    base_url: https://api.example.com/{PASTED}/search\n", "base_url"),
    (f"    params: {{api_key: {PASTED}}}\n", "params"),
    ("    params: {key: 0123456789abcdef0123456789abcdef01234567}\n", "params"),
    ("    params: {auth: x}\n", "params"),
    ("    params: {engines: 123e4567-e89b-12d3-a456-426614174000}\n", "params"),
    (f"    search_path: /search/{PASTED}\n", "search_path"),
])
def test_a_key_pasted_anywhere_in_a_line_is_refused(tmp_path: Path, line: str,
                                                   key: str) -> None:
    path = write(tmp_path, "backends:\n  - name: tavily\n" + line)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    message = str(err.value)
    assert f"line 3: key 'backends[tavily].{key}': holds what looks like an API key" in message
    for secret in (PASTED, "s3cr3t", "0123456789abcdef", "426614174000"):
        assert secret not in message


def test_ordinary_params_and_urls_are_not_mistaken_for_keys(tmp_path: Path) -> None:
    path = write(tmp_path, "backends:\n  - name: searxng\n    base_url: http://127.0.0.1:8888\n"
                 "    params: {engines: 'bing,brave,duckduckgo', language: en-US, region: us-en,"
                 " categories: 'general,it', keywords: exact-match-values}\n"
                 "  - name: mine\n    base_url: https://search.example.net/v1/api?lang=en\n"
                 "    search_path: /api/search\n")
    assert [b.name for b in load_config(path).config.backends] == ["searxng", "mine"]


@pytest.mark.parametrize(("text", "key"), [
    ("extraction:\n  max_bytes: 9223372036854775808\n", "extraction.max_bytes"),
    ("extraction:\n  total_chars: 100000000000000000000\n", "extraction.total_chars"),
    ("timeout: .inf\n", "timeout"),
    ("serve:\n  max_body_bytes: 1e30\n", "serve.max_body_bytes"),
    ("policy:\n  ranking:\n    engine_weight: 1.0e+300\n", "policy.ranking.engine_weight"),
    ("policy:\n  ranking:\n    kind_places: {shop: 1.0e+300}\n",
     "policy.ranking.kind_places.shop"),
    ("cache:\n  ttl_seconds: 1.0e+20\n", "cache.ttl_seconds"),
    ("backends:\n  - name: ddgs\n    params: {timeout: 99999999999999}\n",
     "backends[ddgs].params"),
    ("backends:\n  - name: ddgs\n    weight: .nan\n", "backends[ddgs].weight"),
])
def test_every_number_is_bounded(tmp_path: Path, text: str, key: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load_config(path)
    assert f"key '{key}': " in str(err.value)
