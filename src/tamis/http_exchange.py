"""The client the fan-out asks backends with: one request in, an ``Answer`` out (its status,
headers and raw body, read by ``tamis.pipeline.fanout_read`` under its caps), and the errors
of ``tamis.http_errors`` (httpx's names and words).

Three carriers, one contract:

- ``HttpxExchange``: any ``httpx.AsyncClient`` (a client given by the caller, one with event
  hooks such as ``tamis check --record``, a proxy from the environment, tests' mock
  transports): the request as httpx builds and sends it, its errors renamed
  (``http_errors.from_httpx``);
- the service's (``tamis.http_transport.AiohttpExchange``) and the CLI's
  (``tamis.http_h11.H11Exchange``): the same bytes on the wire (``tamis.http_compose``),
  carried directly, without an httpx ``Request`` and ``Response`` a call. What they cannot
  compose they hand to httpx.

``exchange_for(client)`` is the one place the fan-out gets its carrier from a client: a client
that has its own (``client.exchange()``), else httpx's.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from tamis import http_errors

_CONTENT_HEADERS = ("content-encoding", "content-length", "transfer-encoding")


class Headers:
    """An answer's headers: case-insensitive ``get`` (several values joined with ", ", as
    httpx joins them) over the raw ``(name, value)`` bytes, decoded as httpx decodes them
    (ASCII, else UTF-8, else ISO-8859-1, for all of them)."""

    __slots__ = ("_items", "raw")

    def __init__(self, raw: Any) -> None:
        self.raw: list[tuple[bytes, bytes]] = list(raw)
        self._items: list[tuple[str, str]] | None = None

    def multi_items(self) -> list[tuple[str, str]]:
        if self._items is None:
            for encoding in ("ascii", "utf-8", "iso-8859-1"):
                try:
                    self._items = [(k.decode(encoding), v.decode(encoding))
                                   for k, v in self.raw]
                    break
                except UnicodeDecodeError:
                    continue
        return self._items or []

    def get(self, name: str, default: Any = None) -> Any:
        wanted = name.lower()
        found = [v for k, v in self.multi_items() if k.lower() == wanted]
        return ", ".join(found) if found else default

    def __getitem__(self, name: str) -> str:
        value = self.get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get(name) is not None


class Answer:
    """A backend's answer, its body not read yet. ``content``: the body when something read
    it already (an httpx response hook), else None. ``aiter_raw``: the body as it came
    (compressed); ``aiter_decoded``: inflated by httpx's decoders (an encoding other than
    gzip and deflate, which ``fanout_read`` inflates itself)."""

    status_code: int
    headers: Any
    consumed = False  # its body was read once already

    @property
    def content(self) -> bytes | None:
        if self.consumed:  # read again after its words were read: httpx's refusal, as before
            import httpx

            raise httpx.ResponseNotRead()
        return None

    def aiter_raw(self) -> AsyncIterator[bytes]:
        raise NotImplementedError

    def aiter_decoded(self) -> AsyncIterator[bytes]:
        return _decoded(self)

    async def aclose(self) -> None:
        raise NotImplementedError


class ReadAnswer:
    """An answer read whole (an error answer's words, for ``Adapter.check_status``): what an
    httpx ``Response`` made with ``content=`` says of it."""

    def __init__(self, status_code: int, headers: list[tuple[str, str]],
                 content: bytes) -> None:
        self.status_code = status_code
        self.headers = Headers([])
        self.headers._items = headers
        self.content = content

    def json(self, **options: Any) -> Any:
        import json

        return json.loads(self.content, **options)

    @property
    def text(self) -> str:
        if not self.content:
            return ""
        import codecs

        charset = _charset(self.headers.get("content-type"))
        try:
            codecs.lookup(charset or "utf-8")
        except LookupError:
            charset = None
        return self.content.decode(charset or "utf-8", errors="replace")


def read_answer(answer: Answer, body: bytes) -> ReadAnswer:
    """``answer`` with ``body`` (inflated): its framing headers dropped."""
    headers = [(k, v) for k, v in answer.headers.multi_items()
               if k.lower() not in _CONTENT_HEADERS]
    return ReadAnswer(answer.status_code, headers, body)


def _charset(content_type: str | None) -> str | None:
    """The ``charset`` of a Content-Type, as httpx reads it (``email.message``'s rules)."""
    if content_type is None:
        return None
    import email.message

    message = email.message.Message()
    message["content-type"] = content_type
    return message.get_content_charset(failobj=None)


class Exchange(Protocol):
    async def send(self, method: str, url: str, *, params: dict[str, Any] | None,
                   json: Any, headers: dict[str, str], timeout: float | None) -> Answer:
        """``timeout``: for connecting, waiting for a connection, and each read; None: the
        client's own."""
        ...


class HttpxAnswer(Answer):
    def __init__(self, response: Any) -> None:
        self.response = response
        self.status_code = response.status_code
        self.headers = response.headers

    @property  # type: ignore[override]
    def content(self) -> bytes | None:
        return self.response.content if self.response.is_stream_consumed else None

    async def aiter_raw(self) -> AsyncIterator[bytes]:  # type: ignore[override]
        try:
            async for chunk in self.response.aiter_raw():
                yield chunk
        except Exception as exc:
            raise http_errors.from_httpx(exc) from None

    async def aiter_decoded(self) -> AsyncIterator[bytes]:  # type: ignore[override]
        try:
            async for chunk in self.response.aiter_bytes():
                yield chunk
        except Exception as exc:
            raise http_errors.from_httpx(exc) from None

    async def aclose(self) -> None:
        await self.response.aclose()


class HttpxExchange:
    """A request through an ``httpx.AsyncClient``, as the fan-out made it before."""

    def __init__(self, client: Any) -> None:
        self.client = client

    async def send(self, method: str, url: str, *, params: dict[str, Any] | None,
                   json: Any, headers: dict[str, str], timeout: float | None) -> Answer:
        import httpx

        try:
            request = self.client.build_request(
                method, url, params=params, json=json, headers=headers,
                timeout=httpx.Timeout(timeout) if timeout is not None
                else httpx.USE_CLIENT_DEFAULT)
            response = await self.client.send(request, stream=True)
        except Exception as exc:
            raise http_errors.from_httpx(exc) from None
        return HttpxAnswer(response)


def exchange_for(client: Any) -> Exchange:
    """The carrier of ``client``'s backend requests: its own, else httpx's."""
    own = getattr(client, "exchange", None)
    if own is not None:
        return own()  # type: ignore[no-any-return]
    return HttpxExchange(client)


async def _decoded(answer: Answer) -> AsyncIterator[bytes]:
    """The body through httpx's decoders (br, zstd, several encodings): rare, so httpx is
    imported only here."""
    import httpx

    class Raw(httpx.AsyncByteStream):
        async def __aiter__(self) -> AsyncIterator[bytes]:
            async for chunk in answer.aiter_raw():
                yield chunk

    response = httpx.Response(answer.status_code, headers=answer.headers.raw, stream=Raw())
    try:
        async for chunk in response.aiter_bytes():
            yield chunk
    except httpx.HTTPError as exc:
        raise http_errors.from_httpx(exc) from None
