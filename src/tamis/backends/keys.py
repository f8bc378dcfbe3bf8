"""Key pools: which key a line uses next, and keys that rest after failing.

A line names the ENVIRONMENT VARIABLES its keys are read from (``api_key_env`` or
``credentials``), never the keys. The pool orders the variables that are set and not resting:

- ``fill_first``: always the first usable key, the others only when it rests;
- ``round_robin``: rotate the starting key at every request (the counter lives in the store,
  so processes that share a store share the rotation);
- ``random``: a random order at every request.

A line's ``pool_strategy`` wins over the section-level one.

A key that fails rests before it is used again: one hour after HTTP 429, five minutes after
401, 403, 5xx or a connection error, and one minute whatever the cause when it is the line's
only key (so a line with one key is not shut out for an hour). The request fails over to the
next key inside the same request. Rests live in the store (namespace ``rest``, key
``<line>/<ENV_NAME>``, value ``{"until": <unix time>, "reason": ...}``, TTL = the rest), so they
outlive the process and are shared by every process using the same store.

Nothing here ever returns, logs or formats a key value: only variable names.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import NamedTuple

from tamis.redact import value_problem
from tamis.store.base import Store

REST_NAMESPACE = "rest"
ROTATION_NAMESPACE = "rotation"

REST_AFTER_429 = 3600.0
REST_AFTER_FAILURE = 300.0
REST_SOLE_KEY = 60.0


@dataclass(frozen=True, repr=False)
class Key:
    """A key from the pool: the variable it came from and its value (never shown)."""

    env: str
    value: str

    def __repr__(self) -> str:  # never let a value reach a log or traceback by repr()
        return f"Key(env={self.env!r})"


class Rest(NamedTuple):
    """A key put to rest: until when (epoch seconds) and why."""

    env: str
    until: float
    reason: str


def rest_seconds(status: int | None, sole_key: bool) -> float:
    """How long a key rests after a failure (status None: connection error)."""
    if sole_key:
        return REST_SOLE_KEY
    if status == 429:
        return REST_AFTER_429
    return REST_AFTER_FAILURE


def rest_store_key(line: str, env: str) -> str:
    return f"{line}/{env}"


def format_until(until: float) -> str:
    """A rest's end as UTC, to the second: '2026-11-30 14:05:09Z'."""
    return datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def read_rest(store: Store, line: str, env: str, now: float) -> Rest | None:
    raw = store.get(REST_NAMESPACE, rest_store_key(line, env))
    if raw is None:
        return None
    try:
        data = json.loads(raw)
        until = float(data["until"]) if isinstance(data, dict) else float(data)
        reason = str(data.get("reason", "")) if isinstance(data, dict) else ""
    except (ValueError, KeyError, TypeError):
        return None
    if until <= now:
        return None
    return Rest(env=env, until=until, reason=reason)


class KeyPool:
    """The keys of one line, for one request."""

    def __init__(self, line: str, envs: list[str], strategy: str | None, *, store: Store,
                 env: Mapping[str, str], now: Callable[[], float] = time.time,
                 rng: random.Random | None = None) -> None:
        self.line = line
        self.envs = list(dict.fromkeys(envs))
        self.strategy = strategy or "fill_first"
        self.store = store
        self.env = env
        self.now = now
        self.rng = rng or random.Random()

    @property
    def sole_key(self) -> bool:
        return len(self.envs) == 1

    def malformed(self) -> dict[str, str]:
        """Variables whose value cannot go in a header (line break...): name -> why."""
        out = {}
        for name in self.envs:
            problem = value_problem(self.env[name]) if self.env.get(name) else None
            if problem:
                out[name] = problem
        return out

    def resting(self) -> list[Rest]:
        now = self.now()
        rests = []
        for name in self.envs:
            rest = read_rest(self.store, self.line, name, now)
            if rest is not None:
                rests.append(rest)
        return rests

    def _ordered_envs(self) -> list[str]:
        names = list(self.envs)
        if len(names) < 2:
            return names
        if self.strategy == "round_robin":
            raw = self.store.get(ROTATION_NAMESPACE, self.line)
            try:
                turn = int(raw) if raw is not None else 0
            except ValueError:
                turn = 0
            self.store.set(ROTATION_NAMESPACE, self.line, str(turn + 1).encode())
            start = turn % len(names)
            return names[start:] + names[:start]
        if self.strategy == "random":
            self.rng.shuffle(names)
            return names
        return names

    def candidates(self) -> list[Key]:
        """Usable keys in the order to try them: set, not resting, ordered by strategy."""
        unusable = {rest.env for rest in self.resting()} | set(self.malformed())
        return [Key(name, self.env[name]) for name in self._ordered_envs()
                if self.env.get(name) and name not in unusable]

    def rest(self, key: Key, *, status: int | None, reason: str) -> Rest:
        """Put a key to rest in the store; return the rest (for the note)."""
        seconds = rest_seconds(status, self.sole_key)
        until = self.now() + seconds
        value = json.dumps({"until": until, "reason": reason}).encode()
        self.store.set(REST_NAMESPACE, rest_store_key(self.line, key.env), value, ttl=seconds)
        return Rest(env=key.env, until=until, reason=reason)

    def explain_unusable(self) -> str:
        """Why no key can be used: variable names and rest ends, never values."""
        if not self.envs:
            return "no key configured: name the key variable in api_key_env or credentials"
        parts = []
        rests = {rest.env: rest for rest in self.resting()}
        malformed = self.malformed()
        for name in self.envs:
            if not self.env.get(name):
                parts.append(f"{name} is not set")
            elif name in malformed:
                parts.append(f"{name} is not usable: {malformed[name]}")
            elif name in rests:
                rest = rests[name]
                why = f" after {rest.reason}" if rest.reason else ""
                parts.append(f"{name} rests until {format_until(rest.until)}{why}")
        return "no usable key: " + "; ".join(parts)
