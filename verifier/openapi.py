"""The OpenAPI 3.1 document, generated from the route table and the pydantic models.

Every route of verifier.routes appears here with its request/response schema and its error
statuses; nothing is listed by hand, so the document cannot drift from the app.
"""

from __future__ import annotations

from pydantic.json_schema import models_json_schema

from verifier import models as m
from verifier.clients import CLIENT_ID_HEADER
from verifier.routes import ROUTES

REF = "#/components/schemas/{model}"


def build_openapi(version: str = "0.1.0") -> dict:
    models = {m.ErrorBody}
    for r in ROUTES:
        models.update(x for x in (r.request, r.response) if x is not None)
    pairs = [(model, "validation") for model in sorted(models, key=lambda x: x.__name__)]
    pairs += [(model, "serialization") for model in sorted(models, key=lambda x: x.__name__)]
    _, top = models_json_schema(pairs, ref_template=REF)
    schemas = top.get("$defs", {})
    paths: dict = {}
    for r in ROUTES:
        schema = ({"$ref": REF.format(model=r.response.__name__)} if r.response is not None
                  else {"type": "object"} if r.content_type == "application/json"
                  else {"type": "string"})
        op: dict = {"operationId": r.op_id, "summary": r.summary, "responses": {
            "200": {"description": "OK", "content": {r.content_type: {"schema": schema}}}}}
        for status in r.errors:
            headers = ({"Retry-After": {"description": "Seconds to wait before retrying.",
                                        "schema": {"type": "integer"}}}
                       if status in (429, 503) else None)
            op["responses"][str(status)] = {
                "description": _ERROR_TEXT[status],
                "content": {"application/json": {"schema": {"$ref": REF.format(model="ErrorBody")}}}}
            if headers:
                op["responses"][str(status)]["headers"] = headers
        if r.request is not None:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": REF.format(model=r.request.__name__)}}}}
        params = [{"name": p, "in": "path", "required": True,
                   "schema": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"}}
                  for p in r.path_params]
        if r.auth:
            op["security"] = [{"bearer": []}, {}]
            params.append(_CLIENT_ID_PARAM)  # every /v1 route is admitted per client
        if params:
            op["parameters"] = params
        paths.setdefault(r.path, {})[r.method.lower()] = op
    return {
        "openapi": "3.1.0",
        "info": {"title": "Oubliette verifier", "version": version,
                 "description": "Sandboxed code and math verification. Verdicts: AC, WA, PE, TLE, "
                                "MLE, OLE, RE, CE, IE (ours, reward null), SKIPPED."},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
    }


# Mirrors verifier.clients: the header names the fair-admission line when no bearer token does.
_CLIENT_ID_PARAM = {
    "name": CLIENT_ID_HEADER, "in": "header", "required": False,
    "description": "Who is asking, for fair admission between clients (a line per client, "
                   "weighted round-robin, a per-client cap). Ignored when a bearer token is "
                   "sent (the token names the client); without either, the peer address does. "
                   "Malformed (not 1-64 of [A-Za-z0-9._:@/-]): 400 invalid_client_id.",
    "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._:@/-]{1,64}$"}}

_ERROR_TEXT = {
    400: "Malformed JSON or a malformed X-Client-Id header.", 401: "Missing or wrong bearer token.",
    404: "Unknown problem, blob link or transient key (the message names the field).",
    413: "Body, code or batch over the size limit.", 422: "Schema error (field paths in "
    "details), a limit over this service's ceiling, duplicate names, unsupported language or "
    "unknown test name.", 429: "Queue full; see Retry-After.",
    503: "Store unavailable or not ready (code store_unavailable / not_ready), or the work "
         "class the request needs is saturated by calls that have not returned (code "
         "saturated); retry after Retry-After seconds.",
    504: "The request's deadline passed.",
}
