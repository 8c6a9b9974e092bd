"""The aiohttp application: routes, middlewares (request id, logs, metrics, auth, errors).

Handlers only parse, call ``VerifierService`` and serialise; every rule lives in the service,
so the embedded client behaves the same. Client mistakes become 4xx JSON naming the problem;
an unexpected exception becomes a 500 with the request id (and is logged), never a verdict.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import time
import uuid

from aiohttp import web
from pydantic import BaseModel, ValidationError

from verifier import models as m
from verifier.clients import identify_middleware
from verifier.docs_page import DOCS_HTML
from verifier.errors import NotReady, RequestError, Unauthorized, UnknownProblem
from verifier.http_errors import error_response, from_request_error, from_validation_error
from verifier.logs import request_id_var
from verifier.openapi import build_openapi
from verifier.service import VerifierService

log = logging.getLogger("verifier.http")
SERVICE_KEY = web.AppKey("service", VerifierService)
OPENAPI_KEY = web.AppKey("openapi", dict)
HANDLERS_KEY = web.AppKey("handlers", object)
_RID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_PUBLIC = ("/healthz", "/readyz", "/metrics", "/openapi.json", "/docs")


def _json(model: BaseModel, status: int = 200) -> web.Response:
    return web.Response(status=status, body=model.model_dump_json().encode(),
                        content_type="application/json")


async def _parse(request: web.Request, model: type[BaseModel]):
    body = await request.read()
    try:
        return model.model_validate_json(body)
    except ValidationError as exc:
        raise from_validation_error(exc) from None


def _route_name(request: web.Request) -> str:
    info = request.match_info
    route = getattr(info, "route", None)
    resource = getattr(route, "resource", None)
    return resource.canonical if resource is not None else "unmatched"


@web.middleware
async def observe(request: web.Request, handler):
    """Request id, JSON access log, request counts and latency; errors to JSON bodies."""
    rid = request.headers.get("X-Request-Id", "")
    if not _RID_RE.match(rid):
        rid = uuid.uuid4().hex
    token = request_id_var.set(rid)
    service: VerifierService = request.app[SERVICE_KEY]
    t0 = time.perf_counter()
    status = 500
    try:
        try:
            resp = await handler(request)
        except RequestError as exc:
            resp = from_request_error(exc, rid)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            msg = {404: f"no route {request.method} {request.path}",
                   405: f"method {request.method} not allowed on {request.path}",
                   413: f"request body too large (limit {service.config.max_body_bytes} bytes)",
                   }.get(exc.status, exc.reason)
            resp = error_response(exc.status, exc.reason.lower().replace(" ", "_"), msg, rid)
        except Exception:  # noqa: BLE001 - our bug: log it, answer 500, keep serving
            log.exception("unhandled error on %s %s", request.method, request.path)
            resp = error_response(500, "internal_error",
                                  "internal error (ours, not the request's); see the logs", rid)
        status = resp.status
        resp.headers["X-Request-Id"] = rid
        return resp
    finally:
        dt = time.perf_counter() - t0
        route = _route_name(request)
        service.metrics.requests.labels_inc(route, str(status))
        service.metrics.latency.observe(dt, route)
        log.info("request", extra={"request_id": rid, "fields": {
            "method": request.method, "path": request.path, "status": status,
            "duration_ms": round(dt * 1000, 2)}})
        request_id_var.reset(token)


def _auth_middleware(token: str | None):
    @web.middleware
    async def auth(request: web.Request, handler):
        if token and request.path.startswith("/v1/"):
            given = request.headers.get("Authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                raise Unauthorized("missing or wrong bearer token (Authorization: Bearer <token>)")
        return await handler(request)
    return auth


class Handlers:
    def __init__(self, service: VerifierService):
        self.s = service
        self.draining = False

    async def verify(self, request):
        return _json(await self.s.verify(await _parse(request, m.VerifyRequest)))

    async def verify_batch(self, request):
        return _json(await self.s.verify_batch(await _parse(request, m.BatchVerifyRequest)))

    async def execute(self, request):
        return _json(await self.s.execute(await _parse(request, m.ExecuteRequest)))

    async def check(self, request):
        return _json(await self.s.check(await _parse(request, m.CheckRequest)))

    async def math_verify(self, request):
        return _json(await self.s.math_verify(await _parse(request, m.MathVerifyRequest)))

    async def problems(self, request):
        return _json(await self.s.list_problems())

    async def problem(self, request):
        pid = request.match_info["problem_id"]
        if not re.match(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", pid):
            raise UnknownProblem(f"unknown problem: {pid!r} (not a valid problem id)")
        return _json(await self.s.get_problem(pid))

    async def healthz(self, request):
        return _json(m.Health(status="ok"))

    async def readyz(self, request):
        ok, detail = await self.s.readiness()
        if self.draining:
            ok, detail["draining"] = False, True
        if not ok:
            raise NotReady("not ready: " + json.dumps(detail))
        return _json(m.Health(status="ready", detail=detail))

    async def metrics(self, request):
        return web.Response(text=self.s.metrics.render(), content_type="text/plain",
                            charset="utf-8", headers={"X-Content-Type-Options": "nosniff"})

    async def openapi(self, request):
        return web.json_response(request.app[OPENAPI_KEY])

    async def docs(self, request):
        return web.Response(text=DOCS_HTML, content_type="text/html")


def create_app(service: VerifierService, *, manage_service: bool = True) -> web.Application:
    """Build the app; with ``manage_service`` the app starts/closes the service with itself."""
    cfg = service.config
    app = web.Application(client_max_size=cfg.max_body_bytes,
                          middlewares=[observe, _auth_middleware(cfg.auth_token),
                                       identify_middleware()])
    app[SERVICE_KEY] = service
    app[OPENAPI_KEY] = build_openapi()
    h = Handlers(service)
    app[HANDLERS_KEY] = h
    app.router.add_post("/v1/verify", h.verify)
    app.router.add_post("/v1/verify/batch", h.verify_batch)
    app.router.add_post("/v1/execute", h.execute)
    app.router.add_post("/v1/check", h.check)
    app.router.add_post("/v1/math/verify", h.math_verify)
    app.router.add_get("/v1/problems", h.problems)
    app.router.add_get("/v1/problems/{problem_id}", h.problem)
    app.router.add_get("/healthz", h.healthz)
    app.router.add_get("/readyz", h.readyz)
    app.router.add_get("/metrics", h.metrics)
    app.router.add_get("/openapi.json", h.openapi)
    app.router.add_get("/docs", h.docs)
    if manage_service:
        async def lifecycle(app):
            await service.start()
            yield
            await service.close()
        app.cleanup_ctx.append(lifecycle)
    return app
