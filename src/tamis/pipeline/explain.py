"""``tamis explain-url``: what the policy does with one URL, and why (the rule proof)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tamis.pipeline.rules import Rules
from tamis.pipeline.urls import InvalidURL, clean_url, registrable_domain, unwrap
from tamis.policy.loader import load_config
from tamis.policy.schema import Config


def explain_url(url: str, *, query: str = "", config_path: str | None = None,
                config: Config | None = None) -> dict[str, Any]:
    loaded = None if config else load_config(config_path)
    cfg = config or loaded.config  # type: ignore[union-attr]
    tracking = tuple(t.lower() for t in cfg.policy.normalise.tracking_params)
    unwrapped = unwrap(url.strip())
    try:
        clean = clean_url(url, tracking)
    except InvalidURL as exc:
        return {"url": url, "action": "DROP", "reason": f"invalid_url:{exc}",
                "source_type": None, "key": None, "unwrapped_from": None}
    parts = urlsplit(clean.url)
    verdict = Rules(cfg.policy).judge(clean.host, parts.path, parts.query, query)
    reason = verdict.drop or verdict.demoted or (
        f"prefer_domains:{verdict.preferred}" if verdict.preferred else None)
    action = verdict.action
    from tamis.pipeline.lists import apply_to_verdict, explain_lists

    matches, notes = explain_lists(cfg, loaded.source if loaded else None, clean.host,
                                   clean.url, parts.path, parts.query)
    action, reason = apply_to_verdict(action, reason, matches)
    kind = "content-farm" if action == "DEMOTE" else verdict.source_type
    return {
        "url": clean.url,
        "action": action,
        "reason": reason,
        "source_type": kind,
        "key": clean.key,
        "domain": registrable_domain(clean.host),
        "unwrapped_from": url if unwrapped != url.strip() else None,
        "lists": [f"{m.reason} {m.action}: {m.text}" for m in matches]
        + [f"list:{n.source.removeprefix('list:')}: {n.message}" for n in notes],
    }
