"""Who may talk to ``tamis serve`` (and ``tamis mcp --http``): the Host header and the token.

- **Host**: a browser page on another site can reach a loopback service by DNS rebinding;
  it cannot make its request carry a Host that names this machine. So a request whose Host
  is not the bind address (or, for a loopback bind, ``localhost``/``127.0.0.1``/``[::1]``),
  nor in ``serve.allowed_hosts``, is refused. A wildcard bind (``0.0.0.0``, ``::``) needs a
  token, so it accepts any Host unless ``allowed_hosts`` names some; ``"*"`` accepts any.
- **Token** (``TAMIS_TOKEN``): ``Authorization: Bearer <token>``, or HTTP Basic with the
  token as the password and any user name (SearXNG clients such as mcp-searxng can only send
  Basic). Compared in constant time. A non-loopback bind needs one of at least
  ``MIN_TOKEN_CHARS`` characters.
"""

from __future__ import annotations

import base64
import binascii
import hmac
import ipaddress
from collections.abc import Iterable

from starlette.types import ASGIApp, Receive, Scope, Send

from tamis.interfaces.http_errors import error_response
from tamis.redact import value_problem

MIN_TOKEN_CHARS = 16
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "ip6-localhost"})
WILDCARDS = frozenset({"0.0.0.0", "::", ""})
# Bearer only: a Basic challenge would make browsers pop up their own login over the page's
# token prompt. Clients that send Basic (mcp-searxng) send it without being asked.
CHALLENGE = 'Bearer realm="tamis"'
# No data in these: the page and its assets load without a token (the page then asks for it).
PUBLIC_PATHS = frozenset({"/healthz", "/", "/ui/static/index.html", "/ui/static/page.css",
                          "/ui/static/page.js"})


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(header: str) -> str:
    """The name in a Host header, without port or IPv6 brackets, lower-cased."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:header.find("]")] if "]" in header else header[1:]
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


def allowed_hosts(bind: str, extra: Iterable[str]) -> frozenset[str] | None:
    """The Host names accepted for a service bound to ``bind``; None accepts any."""
    names = {host_name(name) if name != "*" else "*" for name in extra}
    if "*" in names:
        return None
    bind = bind.strip("[]").lower()
    if bind in WILDCARDS and not names:
        return None
    if bind not in WILDCARDS:
        names.add(bind)
    if is_loopback(bind) or bind in WILDCARDS:
        names |= LOOPBACK_NAMES
    return frozenset(names)


class TokenCheck:
    """Does an ``Authorization`` header carry the token? Bearer or Basic, constant time."""

    def __init__(self, token: str) -> None:
        self.token = token.encode()

    def allowed(self, header: bytes) -> bool:
        scheme, _, value = header.strip().partition(b" ")
        scheme = scheme.lower()
        if scheme == b"bearer":
            return hmac.compare_digest(value.strip(), self.token)
        if scheme == b"basic":
            try:
                decoded = base64.b64decode(value.strip(), validate=True)
            except (binascii.Error, ValueError):
                return False
            _user, colon, password = decoded.partition(b":")
            return bool(colon) and hmac.compare_digest(password, self.token)
        return False


def token_problem(token: str | None, host: str) -> str | None:
    """Why this token cannot guard a service bound to ``host`` (None: it can)."""
    if token and (problem := value_problem(token)):  # no client could send it in a header
        return f"TAMIS_TOKEN: {problem}; set it to the token alone"
    if is_loopback(host):
        return None
    if not token:
        return (f"binding {host} exposes tamis beyond this machine: set TAMIS_TOKEN to a"
                " secret that clients send as 'Authorization: Bearer <token>', or bind"
                " 127.0.0.1")
    if len(token) < MIN_TOKEN_CHARS:
        return (f"binding {host} needs a TAMIS_TOKEN of at least {MIN_TOKEN_CHARS} characters"
                f" (it has {len(token)}): make a long random one, e.g. with"
                " 'python -c \"import secrets; print(secrets.token_urlsafe(32))\"'")
    return None


class TokenGuard:
    """The token alone, for an app without the rest (``tamis mcp --http``: no fastapi)."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.check = TokenCheck(token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("path") not in PUBLIC_PATHS \
                and not self.check.allowed(dict(scope["headers"]).get(b"authorization", b"")):
            await error_response(401, "missing or wrong token (TAMIS_TOKEN: Bearer, or Basic"
                                      " password)", {"WWW-Authenticate": CHALLENGE})(
                scope, receive, send)
            return
        await self.app(scope, receive, send)
