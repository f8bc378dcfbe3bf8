"""The errors of tamis's backend requests (``tamis.http_exchange``): httpx's tree, with httpx's
class names, so that a message made of ``type(exc).__name__`` and ``str(exc)`` (the fan-out's
notes) reads word for word the same whichever client carried the request, without importing
httpx to name them.

    HTTPError
    +-- RequestError
    |   +-- TransportError
    |   |   +-- TimeoutException: ConnectTimeout, ReadTimeout, WriteTimeout, PoolTimeout
    |   |   +-- NetworkError: ConnectError, ReadError, WriteError, CloseError
    |   |   +-- ProtocolError: LocalProtocolError, RemoteProtocolError
    |   |   +-- ProxyError, UnsupportedProtocol
    |   +-- DecodingError, TooManyRedirects
    +-- HTTPStatusError
    InvalidURL (not an HTTPError, as in httpx)

``from_httpx`` gives the error of this tree an httpx error stands for (the same name and text).
"""

from __future__ import annotations

import sys


class HTTPError(Exception):
    """A backend request failed (httpx.HTTPError)."""


class RequestError(HTTPError):
    pass


class TransportError(RequestError):
    pass


class TimeoutException(TransportError):
    pass


class ConnectTimeout(TimeoutException):
    pass


class ReadTimeout(TimeoutException):
    pass


class WriteTimeout(TimeoutException):
    pass


class PoolTimeout(TimeoutException):
    pass


class NetworkError(TransportError):
    pass


class ConnectError(NetworkError):
    pass


class ReadError(NetworkError):
    pass


class WriteError(NetworkError):
    pass


class CloseError(NetworkError):
    pass


class ProtocolError(TransportError):
    pass


class LocalProtocolError(ProtocolError):
    pass


class RemoteProtocolError(ProtocolError):
    pass


class ProxyError(TransportError):
    pass


class UnsupportedProtocol(TransportError):
    pass


class DecodingError(RequestError):
    pass


class TooManyRedirects(RequestError):
    pass


class HTTPStatusError(HTTPError):
    pass


class InvalidURL(Exception):
    """A URL that cannot be parsed (httpx.InvalidURL)."""


def from_httpx(exc: BaseException) -> BaseException:
    """The error of this tree named as ``exc``'s class (or its nearest base) is, with its
    text; ``exc`` itself when it is not one of httpx's."""
    if not type(exc).__module__.startswith("httpx"):
        return exc
    here = sys.modules[__name__]
    for kind in type(exc).__mro__:
        ours = getattr(here, kind.__name__, None)
        if isinstance(ours, type) and issubclass(ours, Exception) \
                and ours.__module__ == __name__:
            return ours(*exc.args[:1]) if exc.args else ours()
    return exc
