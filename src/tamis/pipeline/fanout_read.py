"""Reading one backend answer's body: streamed, decompressed chunk by chunk, and refused
past a cap after decompression (a huge answer or a gzip bomb costs a few chunks of memory,
not gigabytes). Used by the fan-out (``tamis.pipeline.fanout``) for every HTTP line.
"""

from __future__ import annotations

import zlib
from typing import Any

from tamis.backends.base import AnswerError
from tamis.http_exchange import Answer, ReadAnswer, read_answer

ERROR_BODY_BYTES = 65_536  # what an error answer may say, at most
MAX_ANSWER_BYTES = 8_000_000  # a backend answer's most bytes, after decompression


async def read_capped(response: Answer, cap: int) -> bytes:
    """The answer's body after decompression, refused past ``cap`` bytes.

    gzip and deflate (what httpx asks for) are inflated here with zlib's ``max_length``, so
    no single chunk can inflate past the cap (a gzip bomb costs about ``cap`` of memory);
    another encoding goes through httpx's own decoder, chunk by chunk."""
    if response.content is not None:  # a response hook read it already (check --record)
        if len(response.content) > cap:
            raise AnswerError(_too_large(cap), kind="too_large")
        return response.content
    encoding = response.headers.get("content-encoding", "").strip().lower()
    chunks: list[bytes] = []
    size = 0
    if encoding not in ("", "identity", "gzip", "x-gzip", "deflate"):
        async for chunk in response.aiter_decoded():
            size += len(chunk)
            if size > cap:
                raise AnswerError(_too_large(cap), kind="too_large")
            chunks.append(chunk)
        return b"".join(chunks)
    inflater: Any = None
    try:
        async for raw in response.aiter_raw():
            if encoding in ("", "identity"):
                data = raw
            else:
                if inflater is None:
                    zlib_header = len(raw) >= 2 and (raw[0] & 0x0F) == 8 and (
                        (raw[0] << 8) | raw[1]) % 31 == 0
                    inflater = zlib.decompressobj(
                        31 if encoding != "deflate" else 15 if zlib_header else -15)
                data = inflater.decompress(raw, cap - size + 1)
            size += len(data)
            if size > cap:
                raise AnswerError(_too_large(cap), kind="too_large")
            chunks.append(data)
    except zlib.error as exc:
        raise AnswerError(f"unreadable answer: bad {encoding} body ({exc})",
                          kind="unreadable") from None
    return b"".join(chunks)


async def error_answer(response: Answer) -> ReadAnswer:
    """An error answer read whole, up to ``ERROR_BODY_BYTES`` (decompressed), as a plain
    answer ``check_status`` can read ``.json()`` or ``.text`` of."""
    try:
        body = await read_capped(response, ERROR_BODY_BYTES)
    except AnswerError:
        body = b""
    return read_answer(response, body)


def _too_large(cap: int) -> str:
    return f"answer larger than {cap} bytes (after decompression): refused"
