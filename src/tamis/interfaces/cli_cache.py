"""The CLI's fast path for a repeat search: print the stored answer without importing the
search core (pydantic, httpx, the pipeline), which is most of a CLI call's CPU.

A CLI call cannot know the effective config's hash without validating the config, so the first
call leaves a note in the store: the *fingerprint* of everything the effective config is made
of (the config file's path and bytes, the built-in policy's bytes, tamis's version and the
environment variables lines are made from: ``*_URL`` values, ``*_KEY`` / ``*_TOKEN`` set or
not, never their values) -> the effective config's hash. A repeat with the same fingerprint
finds the hash, then the answer under the same key ``Tamis.search`` uses. Anything unusual
(a config that does not parse, a store that does not open, no note) falls back to the normal
path, which reports errors as always: the fast path never fails and never prints an error.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, NamedTuple

from tamis.store import answers

# A repeat imports neither dataclasses nor pathlib (``tamis.policy.files``): with them, a
# third more CPU. A test holds it.
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping


class Lookup(NamedTuple):
    """What the store holds for this call (see ``lookup``)."""

    fingerprint: str | None  # None: no fast path for this config
    answer: dict[str, Any] | None = None  # the stored answer, marked cached
    store: Any = None  # on a miss: the store, still open, for the search to use
    store_url: str | None = None
    config_hash: str | None = None  # on a miss: the effective config's hash, when noted


def environment_material(env: Mapping[str, str]) -> list[list[str]]:
    """The environment a config is made from; secrets only as set / not set."""
    out = []
    for name in sorted(env):
        if name.endswith("_URL"):
            out.append([name, env[name]])
        elif name.endswith(("_KEY", "_TOKEN")):
            out.append([name, "set" if env[name] else ""])
    return out


def _settings(config_path: str | None) -> tuple[str, Any, float] | None:
    """(fingerprint, store url, answer TTL) from the raw config files, or None."""
    from tamis.policy.files import builtin_data, builtin_text, config_file, merge, read_text
    from tamis.version import __version__

    builtin = builtin_text()
    data = builtin_data(builtin)
    path = config_file(config_path)
    user_text = None
    if path is not None:
        from tamis import yamlsafe

        user_text = read_text(path)
        user = yamlsafe.load(user_text)
        if user is not None:
            if not isinstance(user, dict):
                return None
            data = merge(data, user)
    cache, store = data.get("cache"), data.get("store")
    if not isinstance(cache, dict) or not isinstance(store, dict):
        return None
    enabled, ttl, url = cache.get("enabled"), cache.get("ttl_seconds"), store.get("url")
    if enabled is not True or type(ttl) not in (int, float) or ttl <= 0:
        return None
    if url is not None and not isinstance(url, str):
        return None
    fingerprint = answers.digest([
        __version__, path, user_text, builtin,
        environment_material(os.environ)])
    return fingerprint, url, float(ttl)


def lookup(config_path: str | None, request: dict[str, Any], options: dict[str, Any]) -> Lookup:
    """The stored answer for this CLI search, if there is one (see the module docstring).

    ``request``: the query and every parameter given (``Tamis.answer_key``'s ``asked``)."""
    try:
        settings = _settings(config_path)
        if settings is None:
            return Lookup(None)
        fingerprint, url, _ttl = settings
        from tamis.store.base import open_store

        store = open_store(url)
        answer = None
        config_hash = answers.config_hash_for(store, fingerprint)
        if config_hash is not None:
            answer = answers.get(store, answers.answer_key(config_hash, request, options))
        if answer is not None:
            store.close()
            return Lookup(fingerprint, answer)
        return Lookup(fingerprint, None, store, url, config_hash)
    except Exception:  # the normal path reads the config again and says what is wrong
        return Lookup(None)


def store_for(found: Lookup, config: Any) -> Any:
    """The store the lookup opened, when it is the one the validated config names (it always
    is, unless the file changed in between); else None, and the search opens its own."""
    if found.store is None:
        return None
    if config.store.url == found.store_url:
        return found.store
    found.store.close()
    return None


def snapshot_store(found: Lookup) -> Any:
    """The store to keep the validated config in (``tamis.policy.snapshot``): only a local
    one (SQLite file, memory). A shared Redis is not trusted with the config: whoever can
    write there could otherwise point a line, and its key, at another host."""
    url = found.store_url
    if found.store is None or (url is not None and "://" in url):
        return None
    return found.store


def known_hash(layer: Any, found: Lookup) -> None:
    """Give the layer the effective config's hash the fingerprint note holds, so that it is
    not computed again (that dumps the whole config, building every config model's schema)."""
    if found.config_hash is not None and found.store is not None \
            and layer.store is found.store:
        layer.config_hash = found.config_hash  # Tamis.config_hash is a cached_property


def remember(layer: Any, fingerprint: str | None) -> None:
    """After a normal search: note fingerprint -> the effective config's hash in the store."""
    cache = layer.config.cache
    if fingerprint is None or not cache.enabled or cache.ttl_seconds <= 0:
        return
    from tamis.policy.snapshot import TTL_SECONDS as NOTE_TTL_SECONDS

    # The note maps the config's inputs to its hash, so it never goes stale: it is kept as
    # long as a config snapshot, and the first call after an idle spell still finds the hash.
    answers.remember_config(layer.store, fingerprint, layer.config_hash,
                            max(cache.ttl_seconds, NOTE_TTL_SECONDS))
