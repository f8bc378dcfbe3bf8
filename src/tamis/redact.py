"""The one redaction mechanism: remove secrets from any text before it is shown or stored.

A key can reach a message in many shapes: as it is, stripped of the whitespace around it,
as Python's ``repr`` of the str or of its bytes (a line break becomes ``\\n``; httpx quotes a
refused header as ``b'Bearer ...\\n'``), JSON-quoted, percent-encoded (either case of hex),
split around a line break, or base64-encoded inside a ``user:password`` Basic credential at
any byte offset. ``secret_forms`` lists every such form of one secret; ``scrub`` replaces
each of them with ``***`` and also cuts URL query strings and ``user:password@`` parts.

Every place that turns an error, a note, a log line or a store value into text goes through
``scrub`` (the fan-out, extraction, recordings, the web page).
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Iterable, Mapping
from urllib.parse import quote, quote_plus

from tamis.text import printable

MASK = "***"
MIN_PIECE = 6  # shorter fragments (pieces around a line break, base64 slices) are not masked

_URL_QUERY = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s?#'\"<>]*)\?[^\s'\"<>]*")
_USERINFO = re.compile(r"(\b[a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@'\"<>]+@")
_PERCENT = re.compile(r"%[0-9A-F]{2}")
_URLSAFE = str.maketrans("+/", "-_")


def _base64_slices(raw: bytes) -> set[str]:
    """The base64 characters fixed by ``raw`` alone, at each of the three byte offsets it
    may sit at inside a longer encoded string (e.g. ``user:<key>`` in Basic auth)."""
    out: set[str] = set()
    for offset in range(3):
        encoded = base64.b64encode(b"\0" * offset + raw).decode("ascii")
        start = -(-8 * offset // 6)             # first char holding only ``raw``'s bits
        end = (8 * (offset + len(raw))) // 6    # last char not shared with what follows
        piece = encoded[start:end]
        if len(piece) >= MIN_PIECE:
            out.add(piece)
            out.add(piece.translate(_URLSAFE))
    return out


@functools.lru_cache(maxsize=256)
def secret_forms(secret: str) -> tuple[str, ...]:
    """Every representation of ``secret`` to mask, longest first."""
    if not secret:
        return ()
    cores = {secret, secret.strip()} - {""}
    forms: set[str] = set()
    for core in cores:
        forms.add(core)
        forms.add(repr(core)[1:-1])
        forms.add(repr(core.encode("utf-8", "surrogatepass"))[2:-1])
        forms.add(json.dumps(core)[1:-1])
        forms.add(json.dumps(core, ensure_ascii=False)[1:-1])
        for encoded in (quote(core, safe=""), quote_plus(core), quote(core)):
            forms.add(encoded)
            forms.add(_PERCENT.sub(lambda m: m.group(0).lower(), encoded))
        forms |= _base64_slices(core.encode("utf-8", "surrogatepass"))
    for piece in re.split(r"[\s\x00-\x1f\x7f]+", secret):
        if len(piece) >= MIN_PIECE:
            forms.add(piece)
    return tuple(sorted((f for f in forms if f), key=len, reverse=True))


def scrub(text: str, secrets: Iterable[str]) -> str:
    """Remove every secret, in every form, from a message before it is shown anywhere.

    Also cuts the query string and the user:password part off any URL in the text, where
    keys hide when a library quotes the request it failed on.
    """
    forms = sorted({f for s in secrets if s for f in secret_forms(s)}, key=len, reverse=True)
    for form in forms:
        if form in text:
            text = text.replace(form, MASK)
    text = _URL_QUERY.sub(r"\1?…", text)
    return printable(_USERINFO.sub(r"\1***@", text))  # shown on a terminal: no sequences


SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)(_\d+)?$|^KEY_", re.I)


def environment_secrets(env: Mapping[str, str], names: Iterable[str] = ()) -> list[str]:
    """Values of the variables named (key variables of a config) and of every variable
    whose name says it holds a secret (``*_API_KEY``, ``*_TOKEN``...), for scrubbing text
    whose origin is unknown (an unexpected error). Values under 8 characters are only
    taken when named."""
    named = {n for n in names if env.get(n)}
    out = [env[n] for n in named]
    out += [v for n, v in env.items()
            if n not in named and v and len(v.strip()) >= 8 and SECRET_NAME.search(n)]
    return out


def value_problem(value: str) -> str | None:
    """What makes a key value unusable in a header, or None. Never quotes the value."""
    if any(c in value for c in "\r\n"):
        return "its value holds a line break (CR or LF)"
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        return "its value holds a control character"
    if not value.isascii():
        return "its value holds a non-ASCII character"
    if value != value.strip():
        return "its value starts or ends with whitespace"
    return None
