"""Errors that tell the client what to do: every client mistake is a 4xx JSON body naming the
field; a store outage is 503 with Retry-After; ceilings are 422 naming field and ceiling."""

from __future__ import annotations

import asyncio
import json

import pytest
from aiohttp.test_utils import TestClient, TestServer

from problem_store.manifest import StdioProblem
from problem_store.problems import ProblemStore
from tests.verifier.conftest import SUM_AC, SUM_WA, make_config
from verifier.app import create_app
from verifier.service import VerifierService

MISSING = "blob://sha256/" + "ab" * 32


async def _client(blobs, backend, **cfg):
    svc = VerifierService(make_config(self_test=False, **cfg), backend, blobs)
    await svc.start()
    return svc, TestClient(TestServer(create_app(svc, manage_service=False), host="127.0.0.1"))


def _sum(blobs) -> StdioProblem:
    p = ProblemStore(blobs).get("sum")
    assert isinstance(p, StdioProblem)
    return p


async def _err(r, status: int, *needles: str) -> dict:
    body = await r.json()  # JSON whatever the status
    assert r.status == status, body
    assert set(body) >= {"error", "message", "request_id"}
    for n in needles:
        assert n in body["message"], body
    return body


# -- two-phase API mistakes: 4xx naming the field, never 200 + IE ------------------------------

async def test_execute_unknown_or_malformed_input_link(client, blobs):
    t = _sum(blobs).tests[0]
    base = {"language": "python", "code": SUM_AC}
    r = await client.post("/v1/execute", json={**base, "inputs": [
        {"name": "a", "input": t.input}, {"name": "b", "input": MISSING}]})
    await _err(r, 404, "inputs[1].input", MISSING)
    r = await client.post("/v1/execute", json={**base, "inputs": [{"name": "a", "input": t.input + "\n"}]})
    await _err(r, 422, "inputs[0].input", "not a blob link")
    r = await client.post("/v1/execute", json={**base, "inputs": [
        {"name": "a", "input": t.input}, {"name": "a", "input": t.input}]})
    await _err(r, 422, "inputs[].name", "unique")


async def test_check_mistakes(client, blobs):
    p = _sum(blobs)
    t = p.tests[0]
    ex = await (await client.post("/v1/execute", json={"language": "python", "code": SUM_AC,
                                                       "inputs": [{"name": "a", "input": t.input}]})).json()
    out = ex["runs"][0]["output"]
    item = {"name": "a", "input": t.input, "answer": t.answer, "output": out}
    builtin = {"type": "builtin", "name": "integers"}
    cases = [
        ({"checker": {"type": "custom", "binary": MISSING}, "items": [item]}, 404, "checker.binary"),
        ({"checker": {"type": "custom", "binary": MISSING + "\n"}, "items": [item]}, 422, "checker.binary"),
        ({"checker": builtin, "items": [dict(item, answer=MISSING)]}, 404, "items[0].answer"),
        ({"checker": builtin, "items": [dict(item, input=MISSING)]}, 404, "items[0].input"),
        ({"checker": builtin, "items": [dict(item, answer=t.answer + "\n")]}, 422, "items[0].answer"),
        ({"checker": builtin, "items": [dict(item, output="transient://1/" + "0" * 32)]}, 404,
         "items[0].output"),
        ({"checker": builtin, "items": [dict(item, output="file:///etc/passwd")]}, 422, "items[0].output"),
        ({"checker": builtin, "items": [dict(item, answer=None)]}, 422, "items[0].answer"),
    ]
    for body, status, needle in cases:
        await _err(await client.post("/v1/check", json=body), status, needle)


async def test_check_duplicate_item_names_are_422_not_the_last_verdict_twice(client, blobs):
    p = _sum(blobs)
    t0, t1 = p.tests[0], p.tests[1]
    outs = {}
    for name, code in (("ac", SUM_AC), ("wa", SUM_WA)):
        ex = await (await client.post("/v1/execute", json={
            "language": "python", "code": code, "inputs": [{"name": "x", "input": t1.input}]})).json()
        outs[name] = ex["runs"][0]["output"]
    items = [{"name": "same", "input": t1.input, "answer": t1.answer, "output": outs["wa"]},
             {"name": "same", "input": t1.input, "answer": t1.answer, "output": outs["ac"]}]
    r = await client.post("/v1/check", json={"checker": {"type": "builtin", "name": "integers"},
                                             "items": items})
    await _err(r, 422, "items[].name", "same")
    items[0]["name"] = "first"  # distinct names: each its own verdict, in order
    r = await client.post("/v1/check", json={"checker": {"type": "builtin", "name": "integers"},
                                             "items": items})
    assert [x["verdict"] for x in (await r.json())["results"]] == ["WA", "AC"]
    assert t0.name != t1.name


async def test_duplicate_test_names_in_options(client):
    r = await client.post("/v1/verify", json={"problem_id": "sum", "language": "python",
                                              "code": SUM_AC, "options": {"tests": ["01", "01"]}})
    await _err(r, 422, "options.tests", "01")


@pytest.mark.parametrize("path,body,field", [
    ("/v1/verify", {"problem_id": "sum", "language": "python", "code": "x",
                    "options": {"stop_on_first_failure": 1}}, "options.stop_on_first_failure"),
    ("/v1/math/verify", {"gold": "1", "prediction": "1", "extract": 0}, "extract"),
    ("/v1/execute", {"language": "python", "code": "x", "stop_on_first_failure": "true",
                     "inputs": [{"name": "a", "input": MISSING}]}, "stop_on_first_failure"),
    ("/v1/execute", {"language": "python", "code": "x", "limits": {"memory_mb": "256"},
                     "inputs": [{"name": "a", "input": MISSING}]}, "limits.memory_mb"),
    ("/v1/check", {"checker": {"type": "builtin", "case_sensitive": 0}, "items": [
        {"name": "a", "input": MISSING, "output": MISSING}]}, "checker.builtin.case_sensitive"),
])
async def test_strict_types(client, path, body, field):
    r = await client.post(path, json=body)
    err = await _err(r, 422)
    assert field in {d["field"] for d in err["details"]}, err


# -- ceilings ------------------------------------------------------------------------------------

@pytest.mark.parametrize("limits,n,field,ceiling", [
    ({"memory_mb": 16384}, 1, "limits.memory_mb", "512"),
    ({"time_limit_s": 30}, 1, "limits.time_limit_s", "4"),
    ({"output_limit_kb": 1024 * 1024}, 1, "limits.output_limit_kb", "2048"),
    ({}, 11, "inputs", "10"),
    ({"output_limit_kb": 2048}, 5, "limits.output_limit_kb", str(8 << 20)),
])
async def test_execute_ceilings_are_422_naming_field_and_ceiling(blobs, backend, limits, n, field,
                                                                  ceiling):
    svc, c = await _client(blobs, backend, max_memory_mb=512, max_time_limit_s=4,
                           max_output_kb=2048, max_inputs=10, max_request_output_bytes=8 << 20)
    t = _sum(blobs).tests[0]
    async with c:
        r = await c.post("/v1/execute", json={
            "language": "python", "code": SUM_AC, "limits": limits,
            "inputs": [{"name": f"i{k}", "input": t.input} for k in range(n)]})
        err = await _err(r, 422, field, ceiling)
        assert err["details"][0]["type"] == "ceiling" and not backend.ran
        r = await c.post("/v1/execute", json={  # at the ceiling: accepted
            "language": "python", "code": SUM_AC, "limits": {"memory_mb": 512, "time_limit_s": 4},
            "inputs": [{"name": "a", "input": t.input}]})
        assert r.status == 200
        # Limits left out default to at most the ceilings (64 MiB output lowered to the share).
        seen = []
        real = backend.run_batch

        async def spy(batch):
            seen.extend(s.limits for s in batch.runs)
            return await real(batch)
        backend.run_batch = spy
        r = await c.post("/v1/execute", json={"language": "python", "code": SUM_AC, "inputs": [
            {"name": f"i{k}", "input": t.input} for k in range(10)]})
        assert r.status == 200 and [x["status"] for x in (await r.json())["runs"]] == ["OK"] * 10
        assert seen and all(lim.memory_mb <= 512 and lim.cpu_time_s <= 4
                            and lim.output_bytes * 10 <= 8 << 20 for lim in seen), seen
    await svc.close()


async def test_check_reads_at_most_the_request_ceiling(blobs, backend):
    svc, c = await _client(blobs, backend, max_request_output_bytes=4096, max_inputs=3)
    big = blobs.put(b"1 " * 1500)[0]  # 3000 bytes: the second read crosses 4096
    t = _sum(blobs).tests[0]
    async with c:
        items = [{"name": f"i{k}", "input": t.input, "answer": t.answer, "output": big}
                 for k in range(2)]
        r = await c.post("/v1/check", json={"checker": {"type": "builtin"}, "items": items})
        await _err(r, 422, "items[1].output", "4096")
        items = [dict(items[0], name=f"n{k}") for k in range(4)]
        r = await c.post("/v1/check", json={"checker": {"type": "builtin"}, "items": items})
        await _err(r, 422, "items", "3")
    await svc.close()


async def test_config_rejects_nonsense_ceilings():
    from pydantic import ValidationError

    from verifier.config import VerifierConfig

    with pytest.raises(ValidationError):
        VerifierConfig(max_time_limit_s=0)
    cfg = VerifierConfig.load(env={"VERIFIER_MAX_MEMORY_MB": "1024",
                                   "VERIFIER_TRUSTED_TOKENS": '["a", "b"]'})
    assert cfg.max_memory_mb == 1024 and cfg.trusted_tokens == ["a", "b"]
    assert 256 <= VerifierConfig().max_memory_mb <= 4096


async def test_expired_transient_outputs_are_collected(blobs, backend):
    svc, c = await _client(blobs, backend, transient_ttl_s=0.2, transient_gc_interval_s=0.05)
    t = _sum(blobs).tests[0]
    async with c:
        ex = await (await c.post("/v1/execute", json={
            "language": "python", "code": SUM_AC, "inputs": [{"name": "a", "input": t.input}]})).json()
        assert ex["runs"][0]["output"].startswith("transient://")
        # The collector deletes it once expired: wait for the listing to empty (bounded).
        for _ in range(200):
            if not list(blobs.list_objects("transient/")):
                break
            await asyncio.sleep(0.05)
        assert not list(blobs.list_objects("transient/"))
    await svc.close()
    assert svc._gc_task is None  # stopped with the service


# -- store outage: 503 with Retry-After, everywhere ----------------------------------------------

class _Down:
    """Every call into the blob store fails as an unreachable store would."""

    def __init__(self, real):
        self.real = real
        self.down = False

    def __getattr__(self, name):
        attr = getattr(self.real, name)
        if not callable(attr):
            return attr

        def call(*a, **kw):
            if self.down:
                raise ConnectionError("store endpoint unreachable")
            return attr(*a, **kw)
        return call


async def test_store_outage_is_503_with_retry_after_on_every_route(blobs, backend):
    down = _Down(blobs)
    svc = VerifierService(make_config(self_test=False, manifest_cache_entries=1), backend, down)
    await svc.start()
    t = _sum(blobs).tests[0]
    down.down = True
    async with TestClient(TestServer(create_app(svc, manage_service=False), host="127.0.0.1")) as c:
        calls = [
            ("post", "/v1/verify", {"problem_id": "sum", "language": "python", "code": SUM_AC}),
            ("post", "/v1/verify/batch", {"submissions": [
                {"problem_id": "sum", "language": "python", "code": SUM_AC}]}),
            ("post", "/v1/execute", {"language": "python", "code": SUM_AC,
                                     "inputs": [{"name": "a", "input": t.input}]}),
            ("post", "/v1/check", {"checker": {"type": "builtin"}, "items": [
                {"name": "a", "input": t.input, "answer": t.answer, "output": t.answer}]}),
            ("get", "/v1/problems", None),
            ("get", "/v1/problems/sum", None),
            ("get", "/readyz", None),
        ]
        for method, path, body in calls:
            r = await getattr(c, method)(path, json=body) if body else await getattr(c, method)(path)
            err = await r.json()
            assert r.status == 503, (path, err)
            assert int(r.headers["Retry-After"]) >= 1, path
            assert "see the logs" not in err["message"]
        down.down = False
        r = await c.post("/v1/verify", json=calls[0][2])
        assert r.status == 200 and (await r.json())["verdict"] == "AC"
    await svc.close()


# -- transport-level errors: JSON bodies; request ids ----------------------------------------

async def test_aiohttp_own_errors_are_json(blobs, backend):
    svc, c = await _client(blobs, backend, max_body_bytes=2048)
    async with c:
        await _err(await c.get("/v1/nothing"), 404, "/v1/nothing")
        await _err(await c.get("/v1/verify"), 405, "GET")
        await _err(await c.put("/v1/problems"), 405, "PUT")
        await _err(await c.post("/v1/verify", data=b"x" * 5000), 413, "2048")
    await svc.close()


@pytest.mark.parametrize("rid", ["x" * 10_000, "a b", "abc\n"[:-1] + "\u00e9", "x" * 129])
async def test_bad_request_id_is_replaced_not_rejected(client, rid):
    r = await client.get("/v1/problems", headers={"X-Request-Id": rid})
    assert r.status == 200
    got = r.headers["X-Request-Id"]
    assert got != rid and len(got) == 32
    assert json.loads(await r.read())["problems"]


async def test_unreadable_manifest_is_ours_not_the_clients(client, blobs):
    from problem_store.problems import manifest_key

    blobs.put_object(manifest_key("broken"), b'{"kind": "stdio", "id": "broken"}')
    r = await client.post("/v1/verify", json={"problem_id": "broken", "language": "python",
                                              "code": SUM_AC})
    body = await _err(r, 500)
    assert body["error"] == "internal_error" and body["request_id"]


async def test_transient_quota_refuses_before_running_and_frees_on_expiry(blobs, backend):
    """Outputs kept for the TTL are bounded overall: a request whose worst case does not fit
    next to live outputs is 429 transient_full with Retry-After, nothing runs, and it fits
    again once those outputs expire."""
    import time as _time

    from verifier.transient_quota import TransientQuota

    svc, c = await _client(blobs, backend, transient_max_bytes=300 * 1024)
    now = [_time.time()]
    svc.transient_quota = TransientQuota(300 * 1024, clock=lambda: now[0])
    t = _sum(blobs).tests[0]
    big = "import sys\nsys.stdout.write('7' * 90_000)\n"
    req = {"language": "python", "code": big, "limits": {"output_limit_kb": 100},
           "inputs": [{"name": f"i{k}", "input": t.input} for k in range(2)]}
    async with c:
        r = await c.post("/v1/execute", json=req)
        body = await r.json()
        assert r.status == 200 and [x["status"] for x in body["runs"]] == ["OK", "OK"], body
        assert 180_000 <= svc.transient_quota.used_bytes < 200 * 1024  # shrunk to what was stored
        ran = len(backend.ran)
        r = await c.post("/v1/execute", json=req)
        err = await _err(r, 429, "transient_max_bytes", str(300 * 1024))
        assert err["error"] == "transient_full" and int(r.headers["Retry-After"]) >= 1
        assert len(backend.ran) == ran  # refused before anything ran
        # the first request's outputs expire: their expiry is the real time they were stored
        # plus the TTL, so the clock moves past the TTL from now, not from the test's start
        # (a loaded CI machine took over a second for the first request, and the test failed)
        now[0] = _time.time() + svc.config.transient_ttl_s + 1
        r = await c.post("/v1/execute", json=req)
        assert r.status == 200, await r.json()
    await svc.close()


def test_transient_quota_releases_what_a_failed_request_held():
    from verifier.transient_quota import TransientFull, TransientQuota

    q = TransientQuota(1000, clock=lambda: 0.0)
    with pytest.raises(RuntimeError):
        with q.reserve(800) as commit:
            commit(100, 10.0)
            raise RuntimeError("store failed mid-request")
    assert q.used_bytes == 100  # the stored output counts, the rest of the hold is gone
    with pytest.raises(TransientFull):
        with q.reserve(901):
            pass
    with q.reserve(900) as commit:
        assert q.used_bytes == 1000
    assert q.used_bytes == 100
