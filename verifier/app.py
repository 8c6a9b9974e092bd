"""The aiohttp application: routes, middlewares (request id, logs, metrics, auth, errors).

Routes come from the one table in verifier.routes. Handlers only parse, call
``VerifierService`` and serialise; every rule lives in the service, so the embedded client
behaves the same. Client mistakes become 4xx JSON naming the problem; a store that does not
answer is 503 with Retry-After; an unexpected exception becomes a 500 with the request id (and
is logged), never a verdict. aiohttp's own 404/405/413 get the same JSON error body.

X-Request-Id: a value that is not 1-128 characters of ``[A-Za-z0-9._:-]`` is ignored and
replaced by a fresh id (returned in the response header), never an error; headers up to
``_MAX_HEADER_BYTES`` reach this code (beyond that aiohttp's parser answers a plain 400).
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
from problem_store.blobs.base import CorruptBlob
from verifier.errors import NotReady, RequestError, Unauthorized
from verifier.http_errors import error_response, from_request_error, from_validation_error
from verifier.logs import request_id_var
from verifier.openapi import build_openapi
from verifier.redact import full_feedback_var
from verifier.routes import ROUTES, Route
from verifier.service import VerifierService

log = logging.getLogger("verifier.http")
SERVICE_KEY = web.AppKey("service", VerifierService)
OPENAPI_KEY = web.AppKey("openapi", dict)
HANDLERS_KEY = web.AppKey("handlers", object)
_RID_RE = re.compile(r"^[A-Za-z0-9._:-]{1,128}$")
_MAX_HEADER_BYTES = 64 * 1024  # aiohttp's default (8 KiB) answers a 10 KB header in plain text


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
    if not _RID_RE.fullmatch(rid):
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
        except CorruptBlob as exc:  # our data is damaged: retrying will not help, fsck will
            log.error("corrupt blob: %s", exc)
            resp = error_response(500, "store_corrupt", f"internal error: {exc}; the operator "
                                  "must repair the store (pstore fsck)", rid)
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


def _auth_middleware(token: str | None, trusted: list[str], clients: list[str] | None = None):
    """The bearer token must match ``token`` (when set), a trusted token or a client token
    (when any of those is configured); a trusted token also unlocks full verdict messages on
    hidden tests (verifier.redact)."""
    clients = list(clients or [])
    def matches(given: str, want: str) -> bool:
        return hmac.compare_digest(given.encode(), f"Bearer {want}".encode())

    @web.middleware
    async def auth(request: web.Request, handler):
        if not request.path.startswith("/v1/"):
            return await handler(request)
        given = request.headers.get("Authorization", "")
        is_trusted = any(matches(given, t) for t in trusted)  # every one compared: no timing hint
        is_client = any([matches(given, t) for t in clients])
        if (token or clients) and not ((token and matches(given, token)) or is_trusted or is_client):
            raise Unauthorized("missing or wrong bearer token (Authorization: Bearer <token>)")
        reset = full_feedback_var.set(is_trusted)
        try:
            return await handler(request)
        finally:
            full_feedback_var.reset(reset)
    return auth


def _service_handler(service: VerifierService, route: Route):
    """A handler for a route the service answers: parse the body, call, serialise."""
    method = getattr(service, route.service)

    async def handle(request: web.Request) -> web.Response:
        args = [await _parse(request, route.request)] if route.request is not None else []
        args += [request.match_info[p] for p in route.path_params]
        return _json(await method(*args))
    handle.__name__ = route.service
    return handle


class Handlers:
    """The routes the service does not answer itself (health, metrics, documents)."""

    def __init__(self, service: VerifierService):
        self.s = service
        self.draining = False

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
                          middlewares=[observe, _auth_middleware(cfg.auth_token, cfg.trusted_tokens,
                                                                    list(cfg.client_tokens.values())),
                                       identify_middleware(cfg.client_tokens),
                                       service.work.foreground.middleware()],
                          handler_args={"max_field_size": _MAX_HEADER_BYTES,
                                        "max_line_size": _MAX_HEADER_BYTES})
    app[SERVICE_KEY] = service
    app[OPENAPI_KEY] = build_openapi()
    h = Handlers(service)
    app[HANDLERS_KEY] = h
    for route in ROUTES:
        handler = (_service_handler(service, route) if route.service is not None
                   else getattr(h, route.handler))
        app.router.add_route(route.method, route.path, handler, name=route.op_id)
    if manage_service:
        async def lifecycle(app):
            await service.start()
            yield
            await service.close()
        app.cleanup_ctx.append(lifecycle)
    return app
