"""The async client: HTTP mode with retries on 429, batching, errors; the embedded mode."""

import asyncio

import pytest
from aiohttp.test_utils import TestServer

from tests.verifier.conftest import SUM_AC, SUM_WA, make_config
from verifier.app import create_app
from verifier.client import VerifierClient, VerifierError
from verifier.service import VerifierService


@pytest.fixture
async def server(service):
    srv = TestServer(create_app(service, manage_service=False), host="127.0.0.1")
    await srv.start_server()
    yield srv
    await srv.close()


def url(srv) -> str:
    return str(srv.make_url("")).rstrip("/")


async def test_verify_problems_and_errors(server):
    async with VerifierClient(url(server)) as c:
        r = await c.verify("sum", "python", SUM_AC)
        assert r.verdict == "AC" and r.reward == 1.0
        assert "sum" in {p.id for p in await c.problems()}
        assert (await c.problem("add-fn")).entry_point == "add"
        with pytest.raises(VerifierError) as ei:
            await c.verify("nope", "python", SUM_AC)
        assert ei.value.status == 404 and c.retries == 0  # a client mistake is not retried


async def test_verify_batch_chunks_keep_order(server, service):
    subs = [{"problem_id": "sum", "language": "python", "code": SUM_AC if i % 2 else SUM_WA}
            for i in range(7)]
    async with VerifierClient(url(server), batch_size=3) as c:
        out = await c.verify_batch(subs)
    assert [r.verdict.value for r in out] == ["WA", "AC"] * 3 + ["WA"]


async def test_verify_batch_chunks_stay_under_the_body_limit(blobs, backend):
    """A group of long completions must not become one 413 for all of them: chunks are
    bounded in bytes as well as in count, and each body is really under the limit."""
    svc = VerifierService(make_config(max_body_bytes=4096, self_test=False), backend, blobs)
    await svc.start()
    srv = TestServer(create_app(svc, manage_service=False), host="127.0.0.1")
    await srv.start_server()
    try:
        pad = "#é\"\n" * 150  # comment lines, ~1.4 KB of JSON: escapes count, not characters
        subs = [{"problem_id": "sum", "language": "python", "code": pad + (SUM_AC if i % 3 else SUM_WA)}
                for i in range(10)]
        async with VerifierClient(url(srv), max_batch_bytes=10**9) as c:  # one body for all: refused
            with pytest.raises(VerifierError) as ei:
                await c.verify_batch(subs)
            assert ei.value.status == 413
        async with VerifierClient(url(srv), max_batch_bytes=4096) as c:
            from verifier.client import _chunks, _request
            from verifier.models import BatchVerifyRequest

            chunks = _chunks([_request(x) for x in subs], 64, 4096)
            assert len(chunks) > 2 and sum(map(len, chunks)) == 10
            assert all(len(BatchVerifyRequest(submissions=ch).model_dump_json().encode()) <= 4096 for ch in chunks)
            out = await c.verify_batch(subs)
        assert [r.verdict.value for r in out] == ["WA" if i % 3 == 0 else "AC" for i in range(10)]
    finally:
        await srv.close()
        await svc.close()


async def test_retries_429_honouring_retry_after(blobs, backend):
    svc = VerifierService(make_config(max_inflight=1, queue_size=0, retry_after_s=1,
                                      self_test=False), backend, blobs)
    await svc.start()
    srv = TestServer(create_app(svc, manage_service=False), host="127.0.0.1")
    await srv.start_server()
    try:
        async with VerifierClient(url(srv)) as c:
            slow = "import time\ntime.sleep(0.5)\n" + SUM_AC
            results = await asyncio.gather(*(c.verify("sum", "python", slow, tests=["01"])
                                             for _ in range(3)))
            assert [r.verdict.value for r in results] == ["AC"] * 3
            assert c.retries >= 1
            assert svc.metrics.rejected.values[()] >= 1
    finally:
        await srv.close()
        await svc.close()


async def test_auth_token_is_sent(blobs, backend):
    svc = VerifierService(make_config(auth_token="t0k", self_test=False), backend, blobs)
    srv = TestServer(create_app(svc, manage_service=False), host="127.0.0.1")
    await srv.start_server()
    try:
        async with VerifierClient(url(srv), token="t0k") as c:
            assert await c.problems()
        async with VerifierClient(url(srv)) as c:
            with pytest.raises(VerifierError) as ei:
                await c.problems()
            assert ei.value.status == 401
    finally:
        await srv.close()


async def test_embedded_over_service_same_answers(service):
    c = VerifierClient.for_service(service)
    r = await c.verify("sum", "python", SUM_WA, reward="fraction")
    assert r.verdict == "WA" and r.reward == 0.25
    with pytest.raises(VerifierError) as ei:
        await c.verify("sum", "cobol", SUM_AC)
    assert ei.value.status == 422


async def test_embedded_with_real_local_backend(blobs):
    async with VerifierClient.embedded(store_uri=str(blobs.root), backend="local",
                                       backend_options={"capacity": 1}) as c:
        r = await c.verify("sum", "python", SUM_AC)
        assert r.verdict == "AC", r
        r = await c.verify("add-fn", "python", "def add(a, b):\n    return a - b\n")
        assert r.verdict == "WA"


async def test_retries_503_store_outage_until_the_store_is_back(blobs, backend):
    from tests.verifier.test_api_errors import _Down

    down = _Down(blobs)
    svc = VerifierService(make_config(self_test=False), backend, down)
    await svc.start()
    srv = TestServer(create_app(svc, manage_service=False), host="127.0.0.1")
    await srv.start_server()
    down.down = True
    try:
        async with VerifierClient(url(srv), max_backoff_s=0.2) as c:
            async def heal():  # the outage ends after the client has been refused at least once
                while c.retries < 2:
                    await asyncio.sleep(0.01)
                down.down = False
            _, r = await asyncio.gather(heal(), c.verify("sum", "python", SUM_AC))
            assert r.verdict == "AC" and c.retries >= 2
    finally:
        await srv.close()
        await svc.close()


async def test_retry_budget_bounds_a_dead_server():
    import socket
    import time

    import aiohttp

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with VerifierClient(f"http://127.0.0.1:{port}", max_retries=100, backoff_s=0.05,
                              max_backoff_s=0.2, retry_budget_s=1.0) as c:
        t0 = time.monotonic()
        with pytest.raises(aiohttp.ClientConnectionError):
            await c.problems()
        spent = time.monotonic() - t0
    assert c.retries >= 2  # connection errors are retried ...
    assert spent < 10  # ... within the budget, not 100 times (loose: a loaded machine is slow)


async def test_client_mistakes_are_not_retried_on_any_route(server, blobs):
    async with VerifierClient(url(server)) as c:
        for call in (c.execute({"language": "python", "code": "x",
                                "inputs": [{"name": "a", "input": "blob://sha256/" + "1" * 64}]}),
                     c.check({"checker": {"type": "custom", "binary": "blob://sha256/" + "1" * 64},
                              "items": [{"name": "a", "input": "blob://sha256/" + "1" * 64,
                                         "output": "blob://sha256/" + "1" * 64}]})):
            with pytest.raises(VerifierError) as ei:
                await call
            assert ei.value.status == 404 and "blob://" in ei.value.message
        assert c.retries == 0


async def test_embedded_calls_that_come_together_start_the_service_once():
    """An RL step's first judges call at once: each one starting the service started its
    sandbox backend twice (two pools over one slot list: one slot given to two runs)."""
    from verifier.client import _EmbeddedTransport
    from verifier.models import ProblemList
    from verifier.routes import BY_CLIENT

    class Service:
        starts = 0

        def __init__(self):
            self.in_start, self.go = asyncio.Event(), asyncio.Event()

        async def start(self):
            self.starts += 1
            self.in_start.set()
            await self.go.wait()

        async def list_problems(self):
            return ProblemList(problems=[])

    svc = Service()
    t = _EmbeddedTransport(svc)
    calls = [asyncio.create_task(t.call(BY_CLIENT["problems"], None, {})) for _ in range(3)]
    await svc.in_start.wait()
    for _ in range(3):
        await asyncio.sleep(0)  # every call is past its started check, waiting
    svc.go.set()
    assert [r.problems for r in await asyncio.gather(*calls)] == [[]] * 3
    assert svc.starts == 1


async def test_service_starts_that_come_together_start_the_backend_and_math_pool_once(blobs):
    """Guarded in the service itself too (not only in the embedded client): one backend start,
    one sympy pool, and a later start after it is up does nothing."""
    from tests.verifier.fakes import FakeBackend

    backend = FakeBackend(blobs, capacity=2)
    gate, starts = asyncio.Event(), []
    real_start = backend.start

    async def slow_start():
        starts.append(1)
        await gate.wait()
        await real_start()

    backend.start = slow_start
    svc = VerifierService(make_config(self_test=False), backend, blobs)
    pools = []
    real_pool = svc.work.start_math_pool
    svc.work.start_math_pool = lambda: (pools.append(1), real_pool())
    try:
        calls = [asyncio.create_task(svc.start()) for _ in range(3)]
        while not starts:
            await asyncio.sleep(0)
        for _ in range(10):
            await asyncio.sleep(0)
        gate.set()
        await asyncio.gather(*calls)
        await svc.start()
        assert len(starts) == 1 and len(pools) == 1 and svc.started
    finally:
        await svc.close()
