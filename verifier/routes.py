"""The route table: each endpoint declared once.

The aiohttp app (verifier.app) registers its handlers from it, the HTTP and embedded
transports of the client (verifier.client) send and dispatch by it, and the OpenAPI document
(verifier.openapi) is generated from it, so an endpoint cannot exist in one and not the
others (tests/verifier/test_routes.py checks all four agree).

``service`` names the ``VerifierService`` coroutine that answers the route (called with the
parsed request body, then the path parameters in order); routes without one are served by a
method of the same name on the app's ``Handlers`` (health, metrics, documents). ``client``
names the ``VerifierClient`` method that calls it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import BaseModel

from verifier import models as m

_PARAM_RE = re.compile(r"\{([a-z_]+)\}")
# Errors every /v1 route can return besides its own: a malformed X-Client-Id header, bad
# token, store down or a saturated work class.
_V1 = (400, 401, 503)


@dataclass(frozen=True)
class Route:
    op_id: str
    method: str
    path: str
    summary: str
    request: type[BaseModel] | None
    response: type[BaseModel] | None  # None: not a JSON model (text, HTML, raw document)
    errors: tuple[int, ...] = ()
    service: str | None = None
    client: str | None = None
    handler: str | None = None
    auth: bool = True
    content_type: str = "application/json"

    @property
    def path_params(self) -> list[str]:
        return _PARAM_RE.findall(self.path)


ROUTES: tuple[Route, ...] = (
    Route("verify", "POST", "/v1/verify", "Judge one submission against a stored problem.",
          m.VerifyRequest, m.VerifyResponse, (404, 413, 422, 429, 504) + _V1,
          service="verify", client="verify"),
    Route("verifyBatch", "POST", "/v1/verify/batch", "Judge many submissions concurrently.",
          m.BatchVerifyRequest, m.BatchVerifyResponse, (404, 413, 422, 429, 504) + _V1,
          service="verify_batch", client="verify_batch"),
    Route("execute", "POST", "/v1/execute",
          "Run code on inputs by link; outputs go to the transient store.",
          m.ExecuteRequest, m.ExecuteResponse, (404, 413, 422, 429, 504) + _V1,
          service="execute", client="execute"),
    Route("check", "POST", "/v1/check",
          "Check outputs against answers with a built-in or custom checker.",
          m.CheckRequest, m.CheckResponse, (404, 413, 422, 429, 504) + _V1,
          service="check", client="check"),
    Route("mathVerify", "POST", "/v1/math/verify", "Judge a math answer against a gold answer.",
          m.MathVerifyRequest, m.MathVerifyResponse, (413, 422, 429, 504) + _V1,
          service="math_verify", client="math_verify"),
    Route("listProblems", "GET", "/v1/problems", "List problems (metadata only).",
          None, m.ProblemList, _V1, service="list_problems", client="problems"),
    Route("getProblem", "GET", "/v1/problems/{problem_id}", "One problem's metadata (no test data).",
          None, m.ProblemDetail, (404,) + _V1, service="get_problem", client="problem"),
    Route("healthz", "GET", "/healthz", "Liveness: the process answers.", None, m.Health,
          handler="healthz", auth=False),
    Route("readyz", "GET", "/readyz", "Readiness: store reachable, backend started and self-tested.",
          None, m.Health, (503,), handler="readyz", auth=False),
    Route("metrics", "GET", "/metrics", "Prometheus metrics (text).", None, None,
          handler="metrics", auth=False, content_type="text/plain"),
    Route("openapi", "GET", "/openapi.json", "This OpenAPI document.", None, None,
          handler="openapi", auth=False),
    Route("docs", "GET", "/docs", "Human-readable API reference (renders /openapi.json).",
          None, None, handler="docs", auth=False, content_type="text/html"),
)

BY_OP: dict[str, Route] = {r.op_id: r for r in ROUTES}
BY_CLIENT: dict[str, Route] = {r.client: r for r in ROUTES if r.client}
PUBLIC_PATHS = tuple(r.path for r in ROUTES if not r.auth)


def path_of(route: Route, params: dict[str, str]) -> str:
    """The route's path with its parameters filled in (URL-quoted)."""
    from urllib.parse import quote

    return _PARAM_RE.sub(lambda mt: quote(params[mt.group(1)], safe=""), route.path)
