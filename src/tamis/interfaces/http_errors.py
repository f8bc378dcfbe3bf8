"""The one map from the error tree (``tamis.errors``) to HTTP, for ``tamis serve`` and the
web page alike: an ``HTTPRefusal`` answers its own status and headers, every other
``TamisError`` (a limit, a bad config value...) 400. Starlette only, so the page's light
app (``tamis demo --serve``) shares it without loading FastAPI.
"""

from __future__ import annotations

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
