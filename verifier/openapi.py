"""The OpenAPI 3.1 document, generated from the pydantic models (one source of truth).

Routes are listed here once (method, path, request model, response model, errors); the
app registers handlers separately and a test checks both lists agree.
"""

from __future__ import annotations

from pydantic.json_schema import models_json_schema

from verifier import models as m

REF = "#/components/schemas/{model}"

# (method, path, operationId, summary, request model, response model, error statuses, auth)
ROUTES = [
    ("post", "/v1/verify", "verify", "Judge one submission against a stored problem.",
     m.VerifyRequest, m.VerifyResponse, (400, 401, 404, 413, 422, 429, 504), True),
    ("post", "/v1/verify/batch", "verifyBatch", "Judge many submissions concurrently.",
     m.BatchVerifyRequest, m.BatchVerifyResponse, (400, 401, 404, 413, 422, 429, 504), True),
    ("post", "/v1/execute", "execute", "Run code on inputs by link; outputs go to the transient store.",
     m.ExecuteRequest, m.ExecuteResponse, (400, 401, 413, 422, 429, 504), True),
    ("post", "/v1/check", "check", "Check outputs against answers with a built-in or custom checker.",
     m.CheckRequest, m.CheckResponse, (400, 401, 404, 413, 422, 429, 504), True),
    ("post", "/v1/math/verify", "mathVerify", "Judge a math answer against a gold answer.",
     m.MathVerifyRequest, m.MathVerifyResponse, (400, 401, 413, 422, 429, 504), True),
    ("get", "/v1/problems", "listProblems", "List problems (metadata only).",
     None, m.ProblemList, (401,), True),
    ("get", "/v1/problems/{problem_id}", "getProblem", "One problem's metadata (no test data).",
     None, m.ProblemDetail, (401, 404), True),
    ("get", "/healthz", "healthz", "Liveness: the process answers.", None, m.Health, (), False),
    ("get", "/readyz", "readyz", "Readiness: store reachable, backend started and self-tested.",
     None, m.Health, (503,), False),
]


def build_openapi(version: str = "0.1.0") -> dict:
    models = {m.ErrorBody}
    for r in ROUTES:
        models.update(x for x in (r[4], r[5]) if x is not None)
    pairs = [(model, "validation") for model in sorted(models, key=lambda x: x.__name__)]
    pairs += [(model, "serialization") for model in sorted(models, key=lambda x: x.__name__)]
    _, top = models_json_schema(pairs, ref_template=REF)
    schemas = top.get("$defs", {})
    paths: dict = {}
    for method, path, op_id, summary, req, resp, errors, auth in ROUTES:
        op: dict = {"operationId": op_id, "summary": summary, "responses": {
            "200": {"description": "OK", "content": {"application/json": {
                "schema": {"$ref": REF.format(model=resp.__name__)}}}}}}
        for status in errors:
            op["responses"][str(status)] = {
                "description": _ERROR_TEXT[status],
                "content": {"application/json": {"schema": {"$ref": REF.format(model="ErrorBody")}}}}
        if req is not None:
            op["requestBody"] = {"required": True, "content": {"application/json": {
                "schema": {"$ref": REF.format(model=req.__name__)}}}}
        if "{problem_id}" in path:
            op["parameters"] = [{"name": "problem_id", "in": "path", "required": True,
                                 "schema": {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"}}]
        if auth:
            op["security"] = [{"bearer": []}, {}]
        paths.setdefault(path, {})[method] = op
    paths["/metrics"] = {"get": {"operationId": "metrics", "summary": "Prometheus metrics (text).",
                                 "responses": {"200": {"description": "OK", "content": {
                                     "text/plain": {"schema": {"type": "string"}}}}}}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Oubliette verifier", "version": version,
                 "description": "Sandboxed code and math verification. Verdicts: AC, WA, PE, TLE, "
                                "MLE, OLE, RE, CE, IE (ours, reward null), SKIPPED."},
        "paths": paths,
        "components": {"schemas": schemas, "securitySchemes": {
            "bearer": {"type": "http", "scheme": "bearer"}}},
    }


_ERROR_TEXT = {
    400: "Malformed JSON.", 401: "Missing or wrong bearer token.", 404: "Unknown problem or object.",
    413: "Body or code over the size limit.", 422: "Schema error (field paths in details), "
    "unsupported language or unknown test name.", 429: "Queue full; see Retry-After.",
    503: "Not ready.", 504: "The request's deadline passed.",
}
