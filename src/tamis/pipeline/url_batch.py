"""``clean_url`` of a whole answer's URLs in one pass (what the merge needs).

The common URL (ASCII, ``http(s)://plain.host/path?query``, on a host no wrapper rule takes)
is cleaned here without the per-URL calls of ``clean_url``: the host is normalised, and
asked whether a wrapper may take it, once per distinct host name of the answer; the tracking
globs are compiled once. Every other URL goes through ``clean_url`` itself, so each answer
is exactly ``clean_url``'s (``tests/pipeline/test_url_batch.py`` compares the two).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from tamis.pipeline.urls import (
    _SIMPLE_URL,
    MAX_URL_LENGTH,
    InvalidURL,
    Unwrapper,
    _key_piece,
    _normalised_path,
    _param_name,
    _simple_host,
    _tracking,
    clean_url,
    default_unwrapper,
)

# (shown URL, dedupe key, host without www., key path, key query, ad click)
Cleaned = tuple[str, str, str, str, str, bool]
_HTTP = ("http", "https")
# What _SIMPLE_URL never takes in a path or a query (a fragment: the first 33 and DEL), as
# a bytes.translate table: 1 for each of them, 0 for every other byte
_UNSAFE = bytes(range(33)) + b'\x7f"<>\\^`{|}'
_UNSAFE_TABLE = bytes(map(_UNSAFE.__contains__, range(256)))  # (a C loop: at import)
_HOST_NAME = re.compile(r"[A-Za-z0-9.\-]+").fullmatch  # _SIMPLE_URL's host


def simple_groups(raw: str) -> tuple[str, str, str | None, str | None] | None:
    """``_SIMPLE_URL.match(raw).groups()`` of an ASCII URL that starts ``http://`` or
    ``https://`` and holds none of ``_UNSAFE``, split by str methods (fewer instructions than
    the regex); None for any other URL (ask the regex). The host name's characters are not
    checked here: the caller checks each distinct host name once (``_HOST_NAME``)."""
    if raw.startswith("https://"):
        scheme, rest = "https", raw[8:]
    elif raw.startswith("http://"):
        scheme, rest = "http", raw[7:]
    else:
        return None
    if 1 in raw.encode("ascii").translate(_UNSAFE_TABLE):
        return None
    if "#" in rest:
        rest = rest.partition("#")[0]  # the path ends at the first '?' or '#'
    query = None
    if "?" in rest:
        rest, _, query = rest.partition("?")
    if "/" in rest:
        host, _, path = rest.partition("/")
        return scheme, host, "/" + path, query
    return scheme, rest, None, query


def plain_key_path(path: str) -> bool:
    """``_PLAIN_KEY_PATH.fullmatch(path)`` of a path _SIMPLE_URL took (it holds none of
    ``_UNSAFE``, no '?' and no '#', and starts with '/'): what is left for the regex to refuse
    is '%', '[' and ']', an empty segment and a segment that starts with a dot. (``clean_urls``
    has it inline.)"""
    return ("%" not in path and "//" not in path and "/." not in path and "[" not in path
            and "]" not in path)


def clean_urls(raws: list[str], tracking: tuple[str, ...],
               unwrapper: Unwrapper | None = None) -> list[Cleaned | InvalidURL]:
    """For each raw URL, ``clean_url``'s answer as a tuple (``Cleaned``), or the InvalidURL
    it raises."""
    unwrapper = unwrapper or default_unwrapper()
    exact, globs = _tracking(tracking)
    match = _SIMPLE_URL.match
    plain, no_percent, no_bracket, no_dot = _answer_facts(raws)
    short = plain and max(map(len, raws), default=0) <= MAX_URL_LENGTH  # (a C loop)
    # host name as written: (host, host without www., lower-cased name when a wrapper rule
    # may take it else None), or None when clean_url must answer (an invalid host)
    hosts: dict[str, tuple[str, str, str | None] | None] = {}
    # query piece: its key piece (_key_piece), or None for a tracking parameter or an empty
    # piece (asked once a piece)
    kept: dict[str, str | None] = {}
    out: list[Cleaned | InvalidURL] = []
    for raw in raws:
        # an ASCII URL _SIMPLE_URL takes has no space or control character: _checked keeps it
        split = False  # (scheme, hostname, path, query) found below
        if (plain or (type(raw) is str and raw.isascii())) and (
                short or len(raw) <= MAX_URL_LENGTH):
            # simple_groups(raw), inline (a call a URL costs)
            scheme, sep, rest = raw.partition("://")
            if sep and (scheme == "https" or scheme == "http") and (
                    plain or 1 not in raw.encode("ascii").translate(_UNSAFE_TABLE)):
                if "#" in rest:
                    rest = rest.partition("#")[0]  # the path ends at the first '?' or '#'
                query = None
                if "?" in rest:
                    rest, _, query = rest.partition("?")
                hostname, slash, path = rest.partition("/")
                path = "/" + path if slash else None
                split = True
            else:
                found = match(raw)
                if found is not None:
                    scheme, hostname, path, query = found.groups()
                    split = True
        if split:
            facts = hosts.get(hostname, False)
            if facts is False:
                facts = hosts[hostname] = _host_facts(hostname, unwrapper)
            if facts is not None and (facts[2] is None
                                      or not unwrapper.may_wrap_at(facts[2], path or "")):
                host, bare = facts[0], facts[1]
                if scheme not in _HTTP:
                    scheme = scheme.lower()
                shown = path or "/"
                sorted_query = key_query = ""
                url = f"{scheme}://{host}{shown}"
                if query and "&" not in query:  # one piece (most query strings)
                    key_piece = kept.get(query, False)
                    if key_piece is False:
                        key_piece = kept[query] = _kept_key(query, exact, globs)
                    if key_piece is not None:
                        url, key_query = f"{url}?{query}", key_piece
                        sorted_query = key_piece
                elif query:
                    pieces, keys = [], []
                    for piece in query.split("&"):
                        key_piece = kept.get(piece, False)
                        if key_piece is False:
                            key_piece = kept[piece] = _kept_key(piece, exact, globs)
                        if key_piece is not None:
                            pieces.append(piece)
                            keys.append(key_piece)
                    if len(keys) == 1:  # (no key piece holds a '&': _key_piece escapes it)
                        url, key_query = f"{url}?{pieces[0]}", keys[0]
                        sorted_query = key_query
                    elif keys:  # (as _clean_simple: shown pieces as given, the key's sorted)
                        url, key_query = f"{url}?{'&'.join(pieces)}", "&".join(keys)
                        sorted_query = "&".join(sorted(keys))
                key_path = (path if path and "//" not in path  # plain_key_path(path)
                            and (no_percent or "%" not in path) and (no_dot or "/." not in path)
                            and (no_bracket or ("[" not in path and "]" not in path))
                            else _normalised_path(path or ""))
                key = f"{bare}{key_path.rstrip('/') or '/'}"
                out.append((url, f"{key}?{sorted_query}" if sorted_query else key, bare,
                            key_path, key_query, False))
                continue
        try:
            clean = clean_url(raw, tracking, unwrapper)
        except InvalidURL as exc:
            out.append(exc)
            continue
        out.append((clean.url, clean.key, clean.host, clean.path, clean.query, clean.ad))
    return out


def _kept_key(piece: str, exact: frozenset[str], globs: Callable[[str], object] | None
              ) -> str | None:
    """The key piece of a query piece (``_key_piece``), or None for a tracking parameter
    (``_content_pieces``'s test) or an empty piece."""
    if piece and (name := _param_name(piece)) not in exact and (
            globs is None or globs(name) is None):
        return _key_piece(piece)
    return None


def _answer_facts(raws: list[str]) -> tuple[bool, bool, bool, bool]:
    """What holds for every URL of the answer, each found by one C-level scan of them all
    joined ('~' is none of the characters looked for and makes no "/." with them): (each is
    an ASCII str free of _UNSAFE, none holds a '%', none a '[' or ']', none a "/."). Most
    answers' URLs are all plain, so none of them needs its own look for these."""
    try:
        joined = "~".join(raws)
    except TypeError:  # not a str among them: each URL is asked about itself
        return False, False, False, False
    plain = joined.isascii() and 1 not in joined.encode("ascii").translate(_UNSAFE_TABLE)
    return (plain, "%" not in joined, "[" not in joined and "]" not in joined,
            "/." not in joined)


def _host_facts(hostname: str, unwrapper: Unwrapper) -> tuple[str, str, str | None] | None:
    if not _HOST_NAME(hostname):
        return None  # (simple_groups leaves the host name's characters to this)
    try:
        host, bare = _simple_host(hostname)
    except InvalidURL:
        return None
    lower = hostname.lower()
    return host, bare, lower if unwrapper.may_wrap(lower) else None
