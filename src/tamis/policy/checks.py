"""The checks the config schema applies to values: a key pasted where a name or a URL
belongs, URLs that cannot work, host lists holding URLs, numbers out of range.

Each raises (or returns) a message that never quotes a value that may be a secret.
"""

from __future__ import annotations

import math
import re
from typing import Any

ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# Known key prefixes of search/LLM providers: a value with one of these is a secret, not a name.
SECRET_PREFIXES = ("tvly-", "fc-", "sk-", "pk-", "exa-", "ghp_", "gho_", "xoxb-", "AIza")


# No number in the config may exceed this (nor be inf or nan): a value past what tamis can
# use (``max_bytes: 1e20``) is a mistake to report at load, not an OverflowError at search.
NUMBER_LIMIT = 1_000_000_000


def bounded_number(value: Any) -> Any:
    """Check every number of a field (inside lists and mappings too)."""
    items = (value.values() if isinstance(value, dict) else value
             if isinstance(value, list) else (value,))
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int | float):
            continue
        if isinstance(item, float) and not math.isfinite(item):
            raise ValueError("must be a finite number")
        if abs(item) > NUMBER_LIMIT:
            raise ValueError(f"must be between -{NUMBER_LIMIT} and {NUMBER_LIMIT}")
    return value


def looks_like_secret(value: str) -> bool:
    """Tell a pasted key from an environment variable name by its shape.

    Names are UPPER_SNAKE; keys are long, mixed-case, or carry a known provider prefix.
    """
    if value.startswith(SECRET_PREFIXES):
        return True
    if not ENV_NAME.match(value) or len(value) > 64:
        return True
    # UPPER_SNAKE, but a long run of letters and digits with no underscore is a key (hex, base32).
    return "_" not in value and len(value) >= 20 and any(c.isdigit() for c in value)


# In free text (a URL, a parameter), a key is a token with a provider prefix, a long run of
# letters and digits (hex, base62), or a UUID; or any value under a key-like name.
_KEY_TOKEN = (
    r"(?<![A-Za-z0-9])(?:(?:tvly|fc|sk|pk|exa|xoxb)-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{8,}"
    r"|BSA[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{16,}"
    r"|AIza[A-Za-z0-9_-]{16,}|(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{20,}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})"
    r"(?![A-Za-z0-9])")
KEY_NAMES = frozenset({"key", "apikey", "api_key", "api-key", "x-api-key", "token",
                       "access_token", "auth", "authorization", "secret", "client_secret",
                       "password", "passwd", "subscription-token", "x-subscription-token"})


def key_in_text(value: str) -> bool:
    """True when free text (a URL, a parameter value) holds something shaped like a key."""
    return bool(re.search(_KEY_TOKEN, value))  # compiled when first asked (re keeps it)


def key_in_url(url: str) -> str | None:
    """Where a URL carries a key (its password, a key-named parameter, a key-shaped part),
    or None. Never quotes the key."""
    from urllib.parse import parse_qsl, urlsplit

    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return None
    if password:
        return "a password in the URL"
    for name, value in parse_qsl(parts.query, keep_blank_values=True):
        if value and name.lower() in KEY_NAMES:
            return f"a value for the parameter {name!r}"
    if key_in_text(url):
        return "a key-shaped part"
    return None


def key_refusal(where: str) -> ValueError:
    return ValueError(
        f"holds what looks like an API key ({where}); put the key in an environment variable"
        " and name the variable in api_key_env or credentials (keys travel only in headers)")


def url_problem(url: str, schemes: tuple[str, ...] = ("http", "https")) -> str | None:
    """What makes a URL unusable, checked without a network call, or None. Never quotes
    the URL (it may carry a key)."""
    from urllib.parse import urlsplit

    wanted = " or ".join(f"{s}://" for s in schemes)
    if not url.strip() or any(c.isspace() for c in url):
        return "must be a URL without spaces"
    if "://" not in url:
        return f"needs a scheme: start it with {wanted} (e.g. http://127.0.0.1:8888)"
    try:
        parts = urlsplit(url)
    except ValueError:
        return "is not a valid URL (check the brackets around an IPv6 address)"
    try:
        port = parts.port
    except ValueError:
        return "has a bad port: it must be a number from 1 to 65535"
    if parts.scheme.lower() not in schemes:
        return f"scheme {parts.scheme[:20]!r} is not supported: use {wanted}"
    if not parts.hostname:
        return "has no host"
    if port == 0:
        return "has a bad port: it must be a number from 1 to 65535"
    return None


def check_url(value: str | None, schemes: tuple[str, ...] = ("http", "https")) -> str | None:
    problem = url_problem(value, schemes) if value is not None else None
    if problem:
        raise ValueError(problem)
    return value


def check_hosts(hosts: list[str]) -> list[str]:
    """Host lists hold bare host names (``medium.com``): a URL or a path there would never
    match anything, silently."""
    for host in hosts:
        if not host.strip() or "://" in host or "/" in host or any(c.isspace() for c in host):
            bare = host.split("://", 1)[-1].split("/", 1)[0].strip() or "example.com"
            raise ValueError(f"{host[:80]!r} is not a bare host name: write {bare[:80]!r}")
    return hosts


def check_networks(values: list[str]) -> list[str]:
    """IP addresses or CIDR ranges (``10.0.0.5``, ``10.0.0.0/8``, ``::1``): anything else
    would be compared as text with a peer's address and silently never match."""
    import ipaddress

    for value in values:
        try:
            ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{value[:80]!r} is not an IP address or a CIDR range (e.g."
                             " 10.0.0.5 or 10.0.0.0/8)") from None
    return [value.strip() for value in values]


def check_env_name(value: str) -> str:
    if looks_like_secret(value):
        # Never echo the value: it may be a real key.
        raise ValueError(
            "looks like an API key, not an environment variable name; put the key in an"
            " environment variable and name the variable here (e.g. TAVILY_API_KEY)"
        )
    return value


# ``policy.non_answer.placeholder_titles``: '{domain}' in a pattern stands for a site name.
DOMAIN_SLOT = "{domain}"
DOMAIN_GROUP = r"(?P<domain>[a-z0-9][a-z0-9.-]*\.[a-z]{2,})"


def placeholder_regex(pattern: str) -> re.Pattern[str]:
    """The regex of one ``placeholder_titles`` entry (``re.error`` when it is not one), the
    same one the schema checks and the filter uses: ``re``'s cache keeps it."""
    return re.compile(pattern.replace(DOMAIN_SLOT, DOMAIN_GROUP, 1), re.IGNORECASE)
