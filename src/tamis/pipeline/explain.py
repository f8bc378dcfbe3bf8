"""``tamis explain-url``: what the policy does with one URL, and why (the rule proof)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from tamis.pipeline.rules import Rules
from tamis.pipeline.urls import InvalidURL, Unwrapper, clean_url, registrable_domain
from tamis.policy.schema import Config
from tamis.settings import load_config


def explain_url(url: str, *, query: str = "", config_path: str | None = None,
                config: Config | None = None) -> dict[str, Any]:
    loaded = None if config else load_config(config_path)
    cfg = config or loaded.config  # type: ignore[union-attr]
    tracking = tuple(t.lower() for t in cfg.policy.normalise.tracking_params)
    rules = Rules(cfg.policy)
    try:
        clean = clean_url(url, tracking, rules.unwrapper)
    except InvalidURL as exc:
        return {"url": url, "action": "DROP", "reason": f"invalid_url:{exc}",
                "source_type": None, "key": None, "unwrapped_from": None}
    if clean.ad:
        return {"url": clean.url, "action": "DROP", "reason": "ad_click", "source_type": None,
                "key": clean.key, "unwrapped_from": None}
    parts = urlsplit(clean.url)
    intent = rules.intent(query, [clean.host])
    verdict = rules.judge(clean.host, parts.path, parts.query, query, intent)
    action, reason = verdict.action(cfg.policy.ranking.kind_places)
    from tamis.pipeline.lists import apply_to_verdict, explain_lists

    matches, notes = explain_lists(cfg, loaded.source if loaded else None, clean.host,
                                   clean.url, parts.path, parts.query)
    action, reason = apply_to_verdict(action, reason, matches)
    kind = "content-farm" if action == "DEMOTE" else verdict.source_type
    unwrapped = clean.url != _plain(url, tracking)
    out: dict[str, Any] = {
        "url": clean.url,
        "action": action,
        "reason": reason,
        "source_type": kind,
        "key": clean.key,
        "domain": registrable_domain(clean.host),
        "page_kind": verdict.kind,
        "unwrapped_from": url if unwrapped else None,
        "lists": [f"{m.reason} {m.action}: {m.text}" for m in matches]
        + [f"list:{n.source.removeprefix('list:')}: {n.message}" for n in notes],
    }
    if query:
        out["query_intent"] = {"kind": intent.kind, "reason": intent.reason}
        out["kept_by"] = verdict.kept_by
    return out


def _plain(url: str, tracking: tuple[str, ...]) -> str:
    """The URL cleaned without unwrapping, to tell whether a wrapper was unwrapped."""
    try:
        return clean_url(url, tracking, _NO_WRAPPERS).url
    except InvalidURL:
        return url


_NO_WRAPPERS = Unwrapper([])  # no wrapper rule: every URL is itself
