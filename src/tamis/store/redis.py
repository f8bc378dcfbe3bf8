"""Redis store: for several replicas (or machines) that share cache and key rests.

``store.url: redis://host:6379/0`` (also ``rediss://`` for TLS and ``unix:///path.sock``).
Keys are ``tamis:<namespace>:<key>``; expiry is Redis's own (``PX``), so a rest or a cached
answer disappears by itself. The client is the synchronous redis-py client over a
``BlockingConnectionPool`` (it waits for a free connection instead of failing past the pool
size). Calls are sub-millisecond on a local Redis, so they are made directly, not in a thread.

A Redis that cannot be reached is a ``ConfigError`` with one clear line naming the server
(never its password), at open time and on any later call.
"""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import ExponentialBackoff
from redis.retry import Retry

from tamis.errors import ConfigError

PREFIX = "tamis:"


def redact_url(url: str) -> str:
    """The URL without its password: ``redis://user:***@host:6379/0``."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "redis://(unparsable url)"
    if parts.password is None:
        return url
    user = parts.username or ""
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return urlunsplit((parts.scheme, f"{user}:***@{host}{port}", parts.path, parts.query,
                       parts.fragment))


class RedisStore:
    """The ``Store`` protocol on Redis."""

    def __init__(self, url: str, *, pool_size: int = 50, connect_timeout: float = 2.0,
                 socket_timeout: float = 5.0, wait_timeout: float = 5.0) -> None:
        self.url = url
        self.where = redact_url(url)
        try:
            self._pool, self._redis = self._connect(
                url, pool_size=pool_size, connect_timeout=connect_timeout,
                socket_timeout=socket_timeout, wait_timeout=wait_timeout)
        except (ValueError, redis.RedisError) as exc:
            raise ConfigError(f"store {self.where}: not a usable Redis URL:"
                              f" {type(exc).__name__}") from None
        self._call(self._redis.ping)

    @staticmethod
    def _connect(url: str, *, pool_size: int = 50, connect_timeout: float = 2.0,
                 socket_timeout: float = 5.0, wait_timeout: float = 5.0,
                 ) -> tuple[redis.BlockingConnectionPool, redis.Redis]:
        """A pool and a client. One quick retry only: a Redis that is down must not add
        seconds of back-off to every search."""
        retry = Retry(ExponentialBackoff(cap=0.05, base=0.01), retries=1)
        pool = redis.BlockingConnectionPool.from_url(
            url, max_connections=pool_size, timeout=wait_timeout,
            socket_connect_timeout=connect_timeout, socket_timeout=socket_timeout, retry=retry)
        return pool, redis.Redis(connection_pool=pool)

    def _call(self, fn, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return fn(*args, **kwargs)
        except redis.AuthenticationError:
            raise ConfigError(f"store {self.where}: Redis refused the credentials") from None
        except (redis.ConnectionError, redis.TimeoutError) as exc:
            why = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
            why = why.replace(self.url, self.where)
            raise ConfigError(f"store {self.where}: cannot reach Redis: {why}") from None
        except redis.RedisError as exc:
            raise ConfigError(f"store {self.where}: Redis error: {type(exc).__name__}:"
                              f" {str(exc)[:160]}") from None

    @staticmethod
    def _key(namespace: str, key: str) -> str:
        return f"{PREFIX}{namespace}:{key}"

    def get(self, namespace: str, key: str) -> bytes | None:
        value = self._call(self._redis.get, self._key(namespace, key))
        return bytes(value) if value is not None else None

    def set(self, namespace: str, key: str, value: bytes, ttl: float | None = None) -> None:
        name = self._key(namespace, key)
        if ttl is None:
            self._call(self._redis.set, name, value)
            return
        millis = int(ttl * 1000)
        if millis <= 0:  # already expired: nothing to keep
            self._call(self._redis.delete, name)
            return
        self._call(self._redis.set, name, value, px=millis)

    def delete(self, namespace: str, key: str) -> None:
        self._call(self._redis.delete, self._key(namespace, key))

    def incr(self, namespace: str, key: str, ttl: float) -> int:
        name = self._key(namespace, key)

        def run() -> int:
            pipe = self._redis.pipeline()
            pipe.incr(name)
            pipe.pexpire(name, max(1, int(ttl * 1000)), nx=True)  # only a new counter expires
            count, _ = pipe.execute()
            return int(count)

        return int(self._call(run))

    def written(self) -> None:
        return None  # every write is on the server when its call returns

    def flush(self) -> None:
        return None

    def close(self) -> None:
        with contextlib.suppress(redis.RedisError):
            self._pool.disconnect()
