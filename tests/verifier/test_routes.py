"""One route table: the aiohttp app, the OpenAPI document, the HTTP client and the embedded
transport all agree with verifier.routes, so no endpoint exists in one and not the others."""

from __future__ import annotations

import inspect

import pytest

from tests.verifier.conftest import SUM_AC
from verifier.app import create_app
from verifier.client import VerifierClient
from verifier.models import CheckRequest, ExecuteRequest
from verifier.openapi import build_openapi
from verifier.routes import BY_CLIENT, ROUTES
from verifier.service import VerifierService

TABLE = {(r.method, r.path) for r in ROUTES}
# Client methods that are not API calls.
_LIFECYCLE = {"close", "embedded", "for_service"}


def test_table_has_no_duplicates():
    assert len(TABLE) == len(ROUTES)
    assert len({r.op_id for r in ROUTES}) == len(ROUTES)


def test_app_serves_exactly_the_table(service):
    app = create_app(service, manage_service=False)
    served = {(r.method, r.resource.canonical) for r in app.router.routes() if r.method != "HEAD"}
    assert served == TABLE


def test_openapi_documents_exactly_the_table():
    doc = build_openapi()
    documented = {(m.upper(), p) for p, ops in doc["paths"].items() for m in ops}
    assert documented == TABLE
    for r in ROUTES:
        op = doc["paths"][r.path][r.method.lower()]
        assert op["operationId"] == r.op_id
        assert ("requestBody" in op) == (r.request is not None)
        if r.path.startswith("/v1/"):
            assert {"401", "503"} <= set(op["responses"]) and "Retry-After" in op["responses"]["503"]["headers"]


def test_every_service_route_has_a_client_method_and_no_other():
    public = {name for name, fn in inspect.getmembers(VerifierClient, inspect.isfunction)
              if not name.startswith("_")} | {
        name for name, fn in vars(VerifierClient).items()
        if isinstance(fn, classmethod) and not name.startswith("_")}
    api = public - _LIFECYCLE
    assert api == set(BY_CLIENT), f"client-only: {api - set(BY_CLIENT)}; table-only: {set(BY_CLIENT) - api}"
    for r in ROUTES:
        assert (r.client is None) == (r.service is None), r.op_id
        if r.service:
            assert inspect.iscoroutinefunction(getattr(VerifierService, r.service)), r.service
        else:
            assert r.handler and not r.path.startswith("/v1/")


class _Recorder:
    class Sent(Exception):
        pass

    def __init__(self):
        self.calls = []

    async def call(self, route, body, params):
        self.calls.append((route.op_id, type(body).__name__ if body is not None else None, params))
        raise self.Sent()

    async def close(self):
        pass


LINK = "blob://sha256/" + "0" * 64
CLIENT_CALLS = {
    "verify": lambda c: c.verify("sum", "python", SUM_AC),
    "verify_batch": lambda c: c.verify_batch([{"problem_id": "sum", "language": "python", "code": "x"}]),
    "execute": lambda c: c.execute({"language": "python", "code": "x",
                                    "inputs": [{"name": "a", "input": LINK}]}),
    "check": lambda c: c.check({"checker": {"type": "builtin"}, "items": [
        {"name": "a", "input": LINK, "output": LINK, "answer": LINK}]}),
    "math_verify": lambda c: c.math_verify("1", "1"),
    "problems": lambda c: c.problems(),
    "problem": lambda c: c.problem("sum"),
}


@pytest.mark.parametrize("name", sorted(BY_CLIENT))
async def test_client_method_sends_its_route(name):
    rec = _Recorder()
    c = VerifierClient("http://127.0.0.1:1", _transport=rec)
    with pytest.raises(_Recorder.Sent):
        await CLIENT_CALLS[name](c)
    route = BY_CLIENT[name]
    op, body, params = rec.calls[0]
    assert op == route.op_id
    assert body == (route.request.__name__ if route.request else None)
    assert set(params) == set(route.path_params)


async def test_embedded_transport_answers_every_route(service, blobs):
    from problem_store.problems import ProblemStore

    t = ProblemStore(blobs).get("sum").tests[0]
    c = VerifierClient.for_service(service)
    c._t.started = True  # the fixture started it  # noqa: SLF001
    assert (await c.verify("sum", "python", SUM_AC)).verdict == "AC"
    assert [r.verdict for r in await c.verify_batch(
        [{"problem_id": "sum", "language": "python", "code": SUM_AC}])] == ["AC"]
    ex = await c.execute(ExecuteRequest(language="python", code=SUM_AC,
                                        inputs=[{"name": "a", "input": t.input}]))
    assert ex.runs[0].status == "OK"
    ck = await c.check(CheckRequest.model_validate({"checker": {"type": "builtin"}, "items": [
        {"name": "a", "input": t.input, "answer": t.answer, "output": ex.runs[0].output}]}))
    assert ck.results[0].verdict == "AC"
    assert (await c.math_verify("1/2", "0.5")).equivalent is True
    assert "sum" in {p.id for p in await c.problems()}
    assert (await c.problem("sum")).id == "sum"


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_openapi_documents_client_id_header_and_every_503_code():
    """The fairness header and the error codes a client must handle are in the document,
    taken from the code that enforces them (so a new 503 code or a changed header pattern
    fails here until the document says it)."""
    import verifier.executors  # noqa: F401  (registers the saturated error)
    from verifier import clients
    from verifier.errors import RequestError

    doc = build_openapi()
    for r in ROUTES:
        op = doc["paths"][r.path][r.method.lower()]
        headers = [p for p in op.get("parameters", []) if p["in"] == "header"]
        if r.auth:
            assert [h["name"] for h in headers] == [clients.CLIENT_ID_HEADER], r.op_id
            assert headers[0]["schema"]["pattern"] == clients._ID_RE.pattern
        else:
            assert headers == [], r.op_id
    codes_503 = {c.code for c in _subclasses(RequestError) if getattr(c, "status", None) == 503}
    assert "saturated" in codes_503
    text = doc["paths"]["/v1/verify"]["post"]["responses"]["503"]["description"]
    for code in codes_503:
        assert code in text, code
