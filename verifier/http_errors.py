"""Error bodies: every failure the HTTP layer returns is JSON naming what went wrong."""

from __future__ import annotations

import json

from aiohttp import web
from pydantic import ValidationError

from verifier.errors import MalformedJSON, InvalidRequest, RequestError


def error_response(status: int, code: str, message: str, request_id: str | None = None,
                   details: list[dict] | None = None, headers: dict | None = None) -> web.Response:
    body = {"error": code, "message": message, "request_id": request_id}
    if details is not None:
        body["details"] = details
    return web.Response(status=status, text=json.dumps(body), content_type="application/json",
                        headers=headers)


def from_request_error(exc: RequestError, request_id: str | None) -> web.Response:
    retry = getattr(exc, "retry_after_s", None)  # 429 and every 503: when to try again
    headers = {"Retry-After": str(max(1, round(retry)))} if retry is not None else None
    return error_response(exc.status, exc.code, exc.message, request_id, exc.details, headers)


def _path(loc: tuple) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(body)"


def from_validation_error(exc: ValidationError) -> RequestError:
    """Malformed JSON is 400; a well-formed body that breaks the schema is 422 with field paths."""
    errors = exc.errors(include_url=False, include_input=False)
    if any(e.get("type") == "json_invalid" for e in errors):
        msg = next(e.get("msg", "") for e in errors if e.get("type") == "json_invalid")
        return MalformedJSON(f"request body is not valid JSON: {msg}")
    details = [{"field": _path(tuple(e.get("loc", ()))), "message": e.get("msg", ""),
                "type": e.get("type", "")} for e in errors]
    summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5])
    return InvalidRequest(f"invalid request: {summary}", details=details)
