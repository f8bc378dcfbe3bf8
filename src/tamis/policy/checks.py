"""The checks the config schema applies to values: a key pasted where a name or a URL
belongs, URLs that cannot work, host lists holding URLs, numbers out of range.

Each raises (or returns) a message that never quotes a value that may be a secret.
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

from pydantic import ValidationInfo

ENV_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*$")
# How the keys of services tamis asks nothing of start (LLM providers, code hosts, chat apps):
# a user may paste one all the same. Each backend declares its own provider's prefixes
# (``Adapter.key_prefixes``), passed in as ``KeyShapes``.
SECRET_PREFIXES = ("sk-", "pk-", "ghp_", "gho_", "xoxb-", "AIza")
EXAMPLE_VARIABLE = "MY_SEARCH_API_KEY"  # the hint of a line whose adapter names no variable


class KeyShapes(NamedTuple):
    """What the backends declare of their keys (``tamis.backends.registry.key_shapes``), given
    to the config's validation as pydantic's context (``{"key_shapes": ...}``): the prefixes
    their keys start with, and the variable each line type reads its key from (the hint)."""

    prefixes: tuple[str, ...] = ()
    variables: Mapping[str, str] = MappingProxyType({})  # read-only: one shared default


def key_shapes(info: ValidationInfo) -> KeyShapes:
    """The ``KeyShapes`` a validation was given (none: only ``SECRET_PREFIXES`` known)."""
    found = (info.context or {}).get("key_shapes")
    return found if isinstance(found, KeyShapes) else KeyShapes()


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


def looks_like_secret(value: str, prefixes: tuple[str, ...] = ()) -> bool:
    """Tell a pasted key from an environment variable name by its shape.

    Names are UPPER_SNAKE; keys are long, mixed-case, or carry a known provider prefix.
    """
    if value.startswith(SECRET_PREFIXES + prefixes):
        return True
    if not ENV_NAME.match(value) or len(value) > 64:
        return True
    # UPPER_SNAKE, but a long run of letters and digits with no underscore is a key (hex, base32).
    return "_" not in value and len(value) >= 20 and any(c.isdigit() for c in value)


# In free text (a URL, a parameter), a key is a token with a provider prefix (then at least 8
# key characters, a digit among them), a long run of letters and digits (hex, base62), or a
# UUID; or any value under a key-like name.
_OTHER_KEY_TOKENS = (
    r"(?:sk|pk|xoxb)-(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{8,}|gh[pousr]_[A-Za-z0-9]{16,}"
    r"|AIza[A-Za-z0-9_-]{16,}|(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{20,}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _key_token(prefixes: tuple[str, ...]) -> str:
    """The pattern of a key in free text, the declared ``prefixes`` among its shapes."""
    declared = "|".join(re.escape(prefix) for prefix in prefixes)
    led = f"(?:{declared})(?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{{8,}}|" if prefixes else ""
    return f"(?<![A-Za-z0-9])(?:{led}{_OTHER_KEY_TOKENS})(?![A-Za-z0-9])"
KEY_NAMES = frozenset({"key", "apikey", "api_key", "api-key", "x-api-key", "token",
                       "access_token", "auth", "authorization", "secret", "client_secret",
                       "password", "passwd", "subscription-token", "x-subscription-token"})


def key_in_text(value: str, prefixes: tuple[str, ...] = ()) -> bool:
    """True when free text (a URL, a parameter value) holds something shaped like a key."""
    return re.search(_key_token(prefixes), value) is not None  # (re keeps it compiled)


def key_in_url(url: str, prefixes: tuple[str, ...] = ()) -> str | None:
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
    if key_in_text(url, prefixes):
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
    if not url.isprintable():  # httpx refuses to send it: every search would fail
        return "holds a control character"
    if any(label.startswith("xn--") for label in parts.hostname.split(".")):
        return _punycode_problem(parts.hostname)
    return None


def _punycode_problem(hostname: str) -> str | None:
    """A host label in the ``xn--`` form that does not decode (httpx would refuse it)."""
    import idna  # only for such hosts: most configs name none

    for label in hostname.split("."):
        if label.startswith("xn--"):
            try:
                idna.decode(label)
            except idna.IDNAError:
                return f"has a host label {label[:40]!r} that is not valid punycode (xn--)"
    return None


def check_url(value: str | None, schemes: tuple[str, ...] = ("http", "https")) -> str | None:
    problem = url_problem(value, schemes) if value is not None else None
    if problem:
        raise ValueError(problem)
    return value


def check_patterns(patterns: list[str]) -> list[str]:
    """Path patterns start at the root ('/shop/') or at any depth ('**/login')."""
    for p in patterns:
        if not (p.startswith("/") or p.startswith("**/")):
            raise ValueError(f"path pattern {p!r} must start with '/' or '**/'")
    return patterns


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
    for value in values:
        try:
            ipaddress.ip_network(value.strip(), strict=False)
        except ValueError:
            raise ValueError(f"{value[:80]!r} is not an IP address or a CIDR range (e.g."
                             " 10.0.0.5 or 10.0.0.0/8)") from None
    return [value.strip() for value in values]


def check_env_name(value: str, shapes: KeyShapes, variable: str | None = None) -> str:
    """``value`` when it is a variable's name; a pasted key is refused, the hint naming
    ``variable`` (the one its line reads by default)."""
    if looks_like_secret(value, shapes.prefixes):
        # Never echo the value: it may be a real key.
        raise ValueError(
            "looks like an API key, not an environment variable name; put the key in an"
            " environment variable and name the variable here"
            f" (e.g. {variable or EXAMPLE_VARIABLE})")
    return value


# ``policy.non_answer.placeholder_titles``: '{domain}' in a pattern stands for a site name.
DOMAIN_SLOT = "{domain}"
DOMAIN_GROUP = r"(?P<domain>[a-z0-9][a-z0-9.-]*\.[a-z]{2,})"


def placeholder_regex(pattern: str) -> re.Pattern[str]:
    """The regex of one ``placeholder_titles`` entry (``re.error`` when it is not one), the
    same one the schema checks and the filter uses: ``re``'s cache keeps it."""
    return re.compile(pattern.replace(DOMAIN_SLOT, DOMAIN_GROUP, 1), re.IGNORECASE)
