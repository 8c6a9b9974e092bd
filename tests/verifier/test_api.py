"""The HTTP API on a real loopback socket: status codes, error bodies, headers, documents."""

import asyncio
import json

import pytest
from aiohttp.test_utils import TestClient, TestServer

from tests.verifier.conftest import SUM_AC, SUM_WA, make_config
from verifier.app import create_app
from verifier.routes import ROUTES
from verifier.service import VerifierService


async def _client_for(service):
    return TestClient(TestServer(create_app(service, manage_service=False), host="127.0.0.1"))


async def test_verify_roundtrip_and_request_id(client):
    r = await client.post("/v1/verify", json={"problem_id": "sum", "language": "python",
                                              "code": SUM_AC}, headers={"X-Request-Id": "abc-123"})
    assert r.status == 200 and r.headers["X-Request-Id"] == "abc-123"
    body = await r.json()
    assert body["verdict"] == "AC" and body["reward"] == 1.0
    assert {t["name"] for t in body["tests"]} == {"01", "02", "03", "04"}
    assert all("time_s" in t and "memory_kb" in t for t in body["tests"])
    r = await client.get("/healthz")
    assert len(r.headers["X-Request-Id"]) == 32  # generated when absent


async def test_batch_judged_together(client):
    subs = [{"problem_id": "sum", "language": "python", "code": c} for c in (SUM_AC, SUM_WA)]
    subs.append({"problem_id": "add-fn", "language": "python", "code": "def add(a,b): return a+b"})
    r = await client.post("/v1/verify/batch", json={"submissions": subs})
    assert r.status == 200
    assert [x["verdict"] for x in (await r.json())["results"]] == ["AC", "WA", "AC"]


@pytest.mark.parametrize("body,status,needle", [
    (b"{not json", 400, "not valid JSON"),
    (b'{"problem_id": "sum", "language": "python"}', 422, "code"),
    (b'{"problem_id": "sum", "language": "python", "code": "x", "options": {"reward": "max"}}',
     422, "options.reward"),
    (b'{"problem_id": "sum", "language": "python", "code": "x", "extra": 1}', 422, "extra"),
    (b'{"problem_id": "no-such", "language": "python", "code": "x"}', 404, "no-such"),
    (b'{"problem_id": "sum", "language": "brainfuck", "code": "x"}', 422, "brainfuck"),
    (b'{"problem_id": "sum", "language": "python", "code": "x", "options": {"tests": ["zz"]}}',
     422, "zz"),
    (b'[1, 2]', 422, "(body)"),
    (b'{"problem_id": "sum", "language": "python", "code": "\\ud800"}', 400, "JSON"),
    (b'{"problem_id": "sum", "language": "python", "code": "\xff"}', 400, "JSON"),
])
async def test_client_mistakes_are_4xx_naming_the_problem(client, body, status, needle):
    r = await client.post("/v1/verify", data=body, headers={"Content-Type": "application/json"})
    assert r.status == status
    err = await r.json()
    assert needle in err["message"] and err["request_id"]


async def test_schema_error_details_carry_field_paths(client):
    r = await client.post("/v1/verify/batch", json={"submissions": [
        {"problem_id": "sum", "language": ""}]})
    assert r.status == 422
    fields = {d["field"] for d in (await r.json())["details"]}
    # language is optional (math and function problems), but not empty when given
    assert "submissions[0].language" in fields and "submissions[0].code" in fields


async def test_code_over_limit_is_413(blobs, backend):
    svc = VerifierService(make_config(max_code_bytes=100, self_test=False), backend, blobs)
    async with await _client_for(svc) as c:
        r = await c.post("/v1/verify", json={"problem_id": "sum", "language": "python",
                                             "code": "#" * 101})
        assert r.status == 413 and "100" in (await r.json())["message"]


async def test_body_over_limit_is_413(blobs, backend):
    svc = VerifierService(make_config(max_body_bytes=2048, self_test=False), backend, blobs)
    async with await _client_for(svc) as c:
        r = await c.post("/v1/verify", data=b"x" * 5000)
        assert r.status == 413


async def test_unknown_route_and_method_are_json(client):
    r = await client.get("/v1/nothing")
    assert r.status == 404 and (await r.json())["error"]
    r = await client.get("/v1/verify")
    assert r.status == 405


async def test_problem_listing_and_detail_have_no_test_data(client):
    ids = {p["id"] for p in (await (await client.get("/v1/problems")).json())["problems"]}
    assert {"sum", "add-fn", "half-plus-third"} <= ids
    d = await (await client.get("/v1/problems/sum")).json()
    assert d["tests"] == ["01", "02", "03", "04"] and d["checker"] == "builtin:integers"
    assert "blob://" not in json.dumps(d)
    assert (await client.get("/v1/problems/..%2Fetc")).status == 404
    assert (await client.get("/v1/problems/missing")).status == 404


async def test_auth(blobs, backend):
    svc = VerifierService(make_config(auth_token="s3cret", self_test=False), backend, blobs)
    await svc.start()
    async with await _client_for(svc) as c:
        assert (await c.get("/v1/problems")).status == 401
        bad = await c.get("/v1/problems", headers={"Authorization": "Bearer nope"})
        assert bad.status == 401
        ok = await c.get("/v1/problems", headers={"Authorization": "Bearer s3cret"})
        assert ok.status == 200
        assert (await c.get("/healthz")).status == 200  # probes stay open
    await svc.close()


async def test_health_ready_metrics(client):
    assert (await client.get("/healthz")).status == 200
    r = await client.get("/readyz")
    assert r.status == 200 and (await r.json())["detail"]["store"] == "ok"
    await client.post("/v1/verify", json={"problem_id": "sum", "language": "python", "code": SUM_WA})
    text = await (await client.get("/metrics")).text()
    assert 'verifier_verdicts_total{verdict="WA",kind="stdio"} 1' in text
    assert 'verifier_http_requests_total{route="/v1/verify",status="200"}' in text
    assert "verifier_queue_depth 0" in text
    assert "verifier_http_request_duration_seconds_bucket" in text
    assert "verifier_sandbox_seconds_total" in text


async def test_readyz_fails_when_self_test_fails(blobs, backend):
    svc = VerifierService(make_config(), backend, blobs)
    backend.fail = RuntimeError("no sandbox")
    await svc.start()
    async with await _client_for(svc) as c:
        r = await c.get("/readyz")
        assert r.status == 503 and "self_test" in (await r.json())["message"]


async def test_openapi_lists_every_route_and_docs_page(client):
    doc = await (await client.get("/openapi.json")).json()
    assert doc["openapi"].startswith("3.")
    for r in ROUTES:
        assert r.method.lower() in doc["paths"][r.path]
    assert "VerifyRequest" in doc["components"]["schemas"]
    html = await (await client.get("/docs")).text()
    assert "/openapi.json" in html and "<script>" in html and "http" not in html.split("<script>")[1].split("fetch")[0]


async def test_execute_then_check_phases(client, blobs):
    from problem_store.manifest import StdioProblem
    from problem_store.problems import ProblemStore

    p = ProblemStore(blobs).get("sum")
    assert isinstance(p, StdioProblem)
    inputs = [{"name": t.name, "input": t.input} for t in p.tests]
    r = await client.post("/v1/execute", json={"language": "python", "code": SUM_WA, "inputs": inputs})
    assert r.status == 200
    ex = await r.json()
    assert ex["compile"]["status"] in ("OK", "CACHED")
    assert all(run["status"] == "OK" and run["output"].startswith("transient://") for run in ex["runs"])
    items = [{"name": t.name, "input": t.input, "answer": t.answer, "output": run["output"]}
             for t, run in zip(p.tests, ex["runs"])]
    r = await client.post("/v1/check", json={"checker": {"type": "builtin", "name": "integers"},
                                             "items": items})
    assert [x["verdict"] for x in (await r.json())["results"]] == ["WA", "WA", "WA", "AC"]
    # custom checker binary by link, run in the sandbox
    custom = p2 = ProblemStore(blobs).get("sum-custom")
    r = await client.post("/v1/check", json={"checker": {"type": "custom", "binary": p2.checker.binary},
                                             "items": items})
    assert [x["verdict"] for x in (await r.json())["results"]] == ["WA", "WA", "WA", "AC"]
    assert custom.id == "sum-custom"
    bad = dict(items[0], output="transient://1/" + "0" * 32)
    r = await client.post("/v1/check", json={"checker": {"type": "builtin"}, "items": [bad]})
    assert r.status == 404


async def test_queue_full_gives_429_with_retry_after(blobs, backend):
    svc = VerifierService(make_config(max_inflight=1, queue_size=0, self_test=False,
                                      retry_after_s=3), backend, blobs)
    await svc.start()
    async with await _client_for(svc) as c:
        slow = asyncio.create_task(c.post("/v1/verify", json={
            "problem_id": "sum", "language": "python", "options": {"tests": ["01"]},
            "code": "import time\ntime.sleep(2)\nprint(3)"}))
        for _ in range(500):
            if svc.admission.admitted:
                break
            await asyncio.sleep(0.01)
        r = await c.post("/v1/verify", json={"problem_id": "sum", "language": "python", "code": "1"})
        assert r.status == 429 and r.headers["Retry-After"] == "3"
        assert (await (await slow).json())["verdict"] == "AC"
        assert svc.admission.admitted == 0
    await svc.close()


async def test_deadline_is_504_and_frees_the_slot(blobs, backend):
    svc = VerifierService(make_config(request_deadline_s=0.5, self_test=False), backend, blobs)
    await svc.start()
    async with await _client_for(svc) as c:
        r = await c.post("/v1/verify", json={"problem_id": "sum", "language": "python",
                                             "code": "while True: pass"})
        assert r.status == 504 and "deadline" in (await r.json())["message"]
        assert svc.admission.admitted == 0 and svc.admission.running == 0
    await svc.close()


async def test_batch_items_fail_alone_and_late_ones_are_ie(blobs, backend):
    """One submission that trips a bug of ours, or is still judging at the deadline, is IE
    (reward null) by itself; the rest of the batch keeps its verdicts (an RL client drops
    only what was not judged, not the whole group)."""
    svc = VerifierService(make_config(request_deadline_s=3, self_test=False), backend, blobs)
    await svc.start()
    real = svc.judge.judge
    never = asyncio.Event()

    async def judge(problem, language, code, tests, options):
        if code == "BOOM":
            raise RuntimeError("checker bug")
        if code == "HANG":
            await never.wait()
        return await real(problem, language, code, tests, options)

    svc.judge.judge = judge
    async with await _client_for(svc) as c:
        subs = [{"problem_id": "sum", "language": "python", "code": c}
                for c in (SUM_AC, "BOOM", SUM_WA, "HANG")]
        r = await c.post("/v1/verify/batch", json={"submissions": subs})
        assert r.status == 200
        res = (await r.json())["results"]
        assert [x["verdict"] for x in res] == ["AC", "IE", "WA", "IE"]
        assert [x["reward"] for x in res] == [1.0, None, 0.0, None]
        assert "internal error: RuntimeError" in res[1]["message"]
        assert "checker bug" not in res[1]["message"]  # internals stay in the log
        assert "deadline" in res[3]["message"]
        assert svc.admission.admitted == 0 and svc.admission.running == 0
        # a client mistake in one item is still the request's error
        bad = subs[:1] + [{"problem_id": "no-such", "language": "python", "code": "x"}]
        r = await c.post("/v1/verify/batch", json={"submissions": bad})
        assert r.status == 404 and "submissions[1]" not in "" and "no-such" in (await r.json())["message"]
    await svc.close()


async def test_batch_item_over_the_code_limit_is_judged_alone(client):
    """A completion over max_code_bytes is the policy's own failure: CE (math: WA too_large),
    reward 0, in a batch; the others are judged (one such item was 413 for the whole batch,
    and an RL client stops on a 4xx). A single /v1/verify of it stays 413."""
    big = "#" * (300 * 1024)
    subs = [{"problem_id": "sum", "language": "python", "code": SUM_AC},
            {"problem_id": "sum", "language": "python", "code": big},
            {"problem_id": "half-plus-third", "code": "\\boxed{1} " * 40000},
            {"problem_id": "sum", "language": "python", "code": SUM_WA}]
    r = await client.post("/v1/verify/batch", json={"submissions": subs})
    assert r.status == 200
    res = (await r.json())["results"]
    assert [(x["verdict"], x["reward"]) for x in res] == [("AC", 1.0), ("CE", 0.0), ("WA", 0.0), ("WA", 0.0)]
    assert "bytes, over the limit" in res[1]["compile"]["log"] and res[2]["message"].startswith("too_large")
    r = await client.post("/v1/verify/batch", json={"submissions": subs[1:2]})
    assert r.status == 200 and (await r.json())["results"][0]["verdict"] == "CE"
    r = await client.post("/v1/verify", json=subs[1])
    assert r.status == 413


async def test_math_prediction_past_the_judges_limit_is_too_large_not_422(client):
    r = await client.post("/v1/math/verify", json={"gold": "1", "prediction": "1+" * 125_000 + "1"})
    assert r.status == 200
    body = await r.json()
    assert body["equivalent"] is False and body["reason"] == "too_large"


async def test_client_disconnect_cancels_work(blobs, backend):
    svc = VerifierService(make_config(self_test=False), backend, blobs)
    await svc.start()
    async with await _client_for(svc) as c:
        req = asyncio.create_task(c.post("/v1/verify", json={
            "problem_id": "sum", "language": "python", "code": "while True: pass"}))
        for _ in range(500):
            if svc.admission.running:
                break
            await asyncio.sleep(0.01)
        assert svc.admission.running == 1
        req.cancel()  # closes the connection
        for _ in range(500):
            if svc.admission.admitted == 0:
                break
            await asyncio.sleep(0.01)
        assert svc.admission.admitted == 0, "work for a gone client was not cancelled"
    await svc.close()
