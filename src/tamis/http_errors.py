"""How a backend request fails (``tamis.http_exchange``), by httpx's names, without httpx: one
error class (``tamis.errors.HTTPFailure``) whose ``name`` is the httpx exception's, so that a
note made of that name and its words (the fan-out's) reads word for word the same whichever
client carried the request. httpx's tree of those names, as data:

    HTTPError
    +-- RequestError
    |   +-- TransportError
    |   |   +-- TimeoutException: ConnectTimeout, ReadTimeout, WriteTimeout, PoolTimeout
    |   |   +-- NetworkError: ConnectError, ReadError, WriteError, CloseError
    |   |   +-- ProtocolError: LocalProtocolError, RemoteProtocolError
    |   |   +-- ProxyError, UnsupportedProtocol
    |   +-- DecodingError, TooManyRedirects
    +-- HTTPStatusError

``kinds`` stands where the carriers name an error (``kinds.ReadTimeout("")``, as they would
``httpx.ReadTimeout("")``); ``from_httpx`` gives the failure an httpx error stands for.
"""

from __future__ import annotations

from collections.abc import Callable

from tamis.errors import HTTPFailure

PARENT = {
    "RequestError": "HTTPError", "HTTPStatusError": "HTTPError",
    "TransportError": "RequestError", "DecodingError": "RequestError",
    "TooManyRedirects": "RequestError",
    "TimeoutException": "TransportError", "NetworkError": "TransportError",
    "ProtocolError": "TransportError", "ProxyError": "TransportError",
    "UnsupportedProtocol": "TransportError",
    "ConnectTimeout": "TimeoutException", "ReadTimeout": "TimeoutException",
    "WriteTimeout": "TimeoutException", "PoolTimeout": "TimeoutException",
    "ConnectError": "NetworkError", "ReadError": "NetworkError",
    "WriteError": "NetworkError", "CloseError": "NetworkError",
    "LocalProtocolError": "ProtocolError", "RemoteProtocolError": "ProtocolError",
}
NAMES = frozenset(PARENT) | {"HTTPError"}


def is_a(failure: HTTPFailure, family: str) -> bool:
    """Whether httpx's exception of that name is a ``family`` (its class or a subclass)."""
    name: str | None = failure.name
    while name is not None:
        if name == family:
            return True
        name = PARENT.get(name)
    return False


class _Kinds:
    """``kinds.ConnectError("words")``: the failure httpx would raise as ``ConnectError``."""

    def __getattr__(self, name: str) -> Callable[..., HTTPFailure]:
        if name not in NAMES:
            raise AttributeError(name)
        return lambda message="": HTTPFailure(name, message)


kinds = _Kinds()


def from_httpx(exc: BaseException) -> BaseException:
    """The failure an httpx ``HTTPError`` stands for (its class's name, or its nearest named
    base's, and its text); any other exception as it is."""
    if not type(exc).__module__.startswith("httpx"):
        return exc
    for kind in type(exc).__mro__:
        if kind.__name__ in NAMES and kind.__module__.startswith("httpx"):
            return HTTPFailure(kind.__name__, str(exc))
    return exc
