"""Bot walls: challenge and captcha pages are reported as ``blocked``, never as content.

Signals, strongest first: a ``cf-mitigated: challenge`` header; a page whose whole title is a
known challenge title ("Just a moment...", "Attention Required! | Cloudflare"); a 403, 429 or
503 whose body carries a challenge or captcha marker; a small 200 page carrying Cloudflare's
challenge script. A 403 without any such marker stays ``failed:HTTP403``.
"""

from __future__ import annotations

import html
import re

CHALLENGE_TITLES = frozenset({
    "just a moment...",
    "just a moment…",
    "attention required! | cloudflare",
    "please wait... | cloudflare",
    "one more step",
    "ddos-guard",
    "checking your browser before accessing",
    "verifying you are human",
    "human verification",
    "are you a robot?",
    "you have been blocked",
})
DENIED_TITLES = frozenset({"access denied", "403 forbidden", "request blocked"})
BODY_MARKERS = (
    "/cdn-cgi/challenge-platform/",
    "_cf_chl_opt",
    "cf-browser-verification",
    "cf_chl_",
    "challenges.cloudflare.com",
    "g-recaptcha",
    "h-captcha",
    "hcaptcha.com",
    "px-captcha",
    "captcha-delivery.com",
    "ddos-guard",
    "checking your browser before accessing",
    "enable javascript and cookies to continue",
    "verify you are human",
)
WALL_STATUSES = frozenset({403, 429, 503})

_TITLE = re.compile(r"<title[^>]*>(.*?)</title>", re.I | re.S)


def page_title(text: str) -> str:
    """The ``<title>`` of an HTML text (first 64 kB), unescaped, whitespace collapsed."""
    match = _TITLE.search(text[:65536])
    return " ".join(html.unescape(match.group(1)).split()) if match else ""


def challenge_reason(status_code: int, headers: dict[str, str] | None, text: str) -> str | None:
    """Why this answer is a bot wall, or None when it is not one."""
    headers = {k.lower(): v for k, v in (headers or {}).items()}
    if headers.get("cf-mitigated", "").strip().lower() == "challenge":
        return "bot wall: cf-mitigated: challenge"
    title = page_title(text)
    if title.lower() in CHALLENGE_TITLES:
        return f"bot wall: challenge page ({title!r})"
    head = text[:100_000].lower()
    if status_code in WALL_STATUSES:
        if title.lower() in DENIED_TITLES:
            return f"bot wall: HTTP {status_code} ({title!r})"
        for marker in BODY_MARKERS:
            if marker in head:
                return f"bot wall: HTTP {status_code} with a challenge ({marker})"
    elif len(text) < 50_000 and "_cf_chl_opt" in head and "/cdn-cgi/challenge-platform/" in head:
        return "bot wall: Cloudflare challenge script"
    return None
