"""The CLI's warm path: with ``TAMIS_URL`` set (a running ``tamis serve``), ``tamis search``
asks that service (``POST /v1/search``) instead of searching itself, and prints the answer
as it prints its own: the same JSON, the same exit code. The service's config applies.

A CLI call that searches itself imports pydantic, httpx and the pipeline (most of its CPU);
this one needs only the standard library's HTTP client. ``TAMIS_TOKEN``, when set, is sent
as ``Authorization: Bearer``, and is never printed: every error here names TAMIS_URL by its
scheme, host and port only (never its path, user or password) and says what went wrong.
Redirects are not followed, so the token only ever goes to the host TAMIS_URL names.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any
from urllib.parse import urlsplit

from tamis.errors import SearchFailed

URL_ENV = "TAMIS_URL"
TOKEN_ENV = "TAMIS_TOKEN"
TIMEOUT_SECONDS = 300.0  # the service bounds its own searches; this only stops a hung one
MAX_ANSWER_BYTES = 64 * 1024 * 1024


def service_url() -> str | None:
    """TAMIS_URL, when set to something (surrounding spaces ignored)."""
    value = os.environ.get(URL_ENV, "").strip()
    return value or None


def _where(scheme: str, host: str, port: int | None) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"{URL_ENV} {scheme}://{shown}" + (f":{port}" if port else "")


def _target(url: str) -> tuple[str, str, int | None, str, str]:
    """(scheme, host, port, path of the search endpoint, how errors name the service)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise SearchFailed(f"{URL_ENV} is not a URL (expected http://host:port of a"
                          " running 'tamis serve')") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SearchFailed(f"{URL_ENV} must be an http:// or https:// URL of a running"
                          " 'tamis serve' (e.g. http://127.0.0.1:8080)")
    where = _where(parts.scheme, parts.hostname, port)
    if parts.query or parts.fragment:
        raise SearchFailed(f"{where}: the URL must not carry a query or fragment")
    return parts.scheme, parts.hostname, port, parts.path.rstrip("/") + "/v1/search", where


def search(url: str, body: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The service's answer to ``body`` (``SearchBody``'s fields) as JSON data, and how
    errors name the service. Raises SearchFailed with one line saying what went wrong."""
    import http.client

    scheme, host, port, path, where = _target(url)
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    token = os.environ.get(TOKEN_ENV) or ""
    if token:
        from tamis.redact import value_problem  # a line break would fail in http.client

        if problem := value_problem(token):
            raise SearchFailed(f"environment variable {TOKEN_ENV}: {problem}; set it to the"
                               " token alone, with no line break or space around it")
        headers["Authorization"] = f"Bearer {token}"
    connection_class = http.client.HTTPSConnection if scheme == "https" \
        else http.client.HTTPConnection
    connection = connection_class(host, port, timeout=TIMEOUT_SECONDS)
    try:
        connection.request("POST", path, body=json.dumps(body).encode("utf-8"),
                           headers=headers)
        reply = connection.getresponse()
        raw, until = bytearray(), time.monotonic() + TIMEOUT_SECONDS  # a trickle: bounded too
        while len(raw) <= MAX_ANSWER_BYTES and (chunk := reply.read1(1 << 16)):
            if time.monotonic() > until:
                raise TimeoutError
            raw += chunk
        status = reply.status
    except TimeoutError:
        raise SearchFailed(f"{where} did not answer within {TIMEOUT_SECONDS:g} s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise SearchFailed(f"{where} could not be reached ({_reason(exc)}); is 'tamis serve'"
                          f" running there? (unset {URL_ENV} to search without it)") from None
    finally:
        connection.close()
    if len(raw) > MAX_ANSWER_BYTES:
        raise SearchFailed(f"{where} answered more than {MAX_ANSWER_BYTES} bytes")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than json can read
        data = None
    if status in (200, 502) and _is_answer(data):
        return data, where  # 502: a search that failed, its answer says why
    message = data.get("error") if isinstance(data, dict) else None
    if isinstance(message, str) and message:
        raise SearchFailed(f"{where} refused the search (HTTP {status}): {message}")
    raise SearchFailed(f"{where} did not answer as a tamis service (HTTP {status}); is it"
                      " a running 'tamis serve'?")


def _is_answer(data: Any) -> bool:
    return (isinstance(data, dict) and isinstance(data.get("status"), str)
            and isinstance(data.get("results"), list) and "schema_version" in data)


def _reason(exc: BaseException) -> str:
    """Why a connection failed, in a few words (never the request or its headers)."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused"
    strerror = getattr(exc, "strerror", None)
    if isinstance(strerror, str) and strerror:
        return strerror
    return type(exc).__name__


def exit_code(answer: dict[str, Any]) -> int:
    """``SearchResponse.exit_code`` of an answer's data."""
    return {"ok": 0, "no_results": 1}.get(answer.get("status"), 2)  # type: ignore[arg-type]


def failure_line(answer: dict[str, Any]) -> str | None:
    """Why a failed answer failed (``tamis.failure``, as the CLI says it); None when the
    answer did not fail."""
    if answer.get("status") != "failed":
        return None
    from types import SimpleNamespace

    from tamis.failure import failure_reason

    view = SimpleNamespace(lines=[SimpleNamespace(**x) for x in answer.get("lines", [])],
                           notes=[SimpleNamespace(**n) for n in answer.get("notes", [])])
    return failure_reason(view)
