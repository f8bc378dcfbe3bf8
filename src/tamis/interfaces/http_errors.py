"""The one map from the error tree (``tamis.errors``) to HTTP, for ``tamis serve`` and the
web page alike: an ``HTTPRefusal`` answers its own status and headers, every other
``TamisError`` (a limit, a bad config value...) 400. Starlette only, so the page's light
app (``tamis demo --serve``) shares it without loading FastAPI.
"""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse

from tamis.errors import HTTPRefusal, TamisError


def error_for(exc: TamisError) -> JSONResponse:
    """The HTTP answer of an error of the tree."""
    if isinstance(exc, HTTPRefusal):
        return error_response(exc.status, exc.message, exc.headers)
    return error_response(400, str(exc))


def error_response(status: int, message: str, headers: dict[str, str] | None = None
                   ) -> JSONResponse:
    # Both shapes: {"error": ...} for people and tools, {"detail": {"error": ...}} for the
    # tavily-python client, which reads detail.error.
    return JSONResponse({"error": message, "detail": {"error": message}}, status_code=status,
                        headers=headers)


def not_json(body: Any, error: dict[str, Any]) -> str:
    """Where a JSON body broke (a ``json_invalid`` validation error, with the body when it
    is known), as ``json`` says it: "the body is not valid JSON: Expecting ',' delimiter at
    line 1, column 22"."""
    why = (error.get("ctx") or {}).get("error") or "it cannot be read"
    place = tuple(error.get("loc", ()))[-1:]
    if isinstance(body, str) and place and isinstance(place[0], int):
        offset = place[0]  # FastAPI gives json's character offset
        line = body.count("\n", 0, offset) + 1
        column = offset - body.rfind("\n", 0, offset)
        return f"the body is not valid JSON: {why} at line {line}, column {column}"
    return f"the body is not valid JSON: {why}"


def unreadable_body(exc: HTTPException) -> str | None:
    """What FastAPI's "There was an error parsing the body" was, when it was a JSON body
    that is not UTF-8 (the cause it raises from); None for anything else."""
    cause = exc.__cause__
    if exc.status_code == 400 and isinstance(cause, UnicodeDecodeError):
        return (f"the body is not valid JSON: it is not {cause.encoding} text ({cause.reason}"
                f" at byte {cause.start})")
    return None
