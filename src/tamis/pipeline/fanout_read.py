"""Reading one backend answer's body under a cap on its decoded size: refused at once when its
``Content-Length`` says it is over, else counted as httpx decodes it, chunk by chunk, and
refused at the first chunk past the cap. httpx decodes one network read (at most 64 KiB) at
a time, so a gzip bomb costs at most about a thousand times that in memory, never the
gigabytes it would inflate to. Used by the fan-out (``tamis.pipeline.fanout``).
"""

from __future__ import annotations

import httpx

from tamis.backends.base import AnswerError

ERROR_BODY_BYTES = 65_536  # what an error answer may say, at most
MAX_ANSWER_BYTES = 8_000_000  # a backend answer's most bytes, after decompression


async def read_capped(response: httpx.Response, cap: int) -> bytes:
    """The answer's body, decoded, refused (``AnswerError``, kind ``too_large``) past ``cap``
    bytes. A body a response hook read already (``tamis check --record``) is counted too."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise AnswerError(_too_large(cap), kind="too_large")
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > cap:
            raise AnswerError(_too_large(cap), kind="too_large")
        chunks.append(chunk)
    return b"".join(chunks)


async def error_answer(response: httpx.Response) -> httpx.Response:
    """An error answer read whole, up to ``ERROR_BODY_BYTES`` (decoded), as a plain response
    ``check_status`` can read ``.json()`` or ``.text`` of; its words are dropped when they are
    longer or cannot be decoded."""
    try:
        body = await read_capped(response, ERROR_BODY_BYTES)
    except (AnswerError, httpx.DecodingError):
        body = b""
    headers = [(k, v) for k, v in response.headers.multi_items()
               if k.lower() not in ("content-encoding", "content-length", "transfer-encoding")]
    return httpx.Response(response.status_code, headers=headers, content=body,
                          request=response.request)


def _too_large(cap: int) -> str:
    return f"answer larger than {cap} bytes (after decompression): refused"
