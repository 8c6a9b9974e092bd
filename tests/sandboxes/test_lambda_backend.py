"""The lambda backend over real HTTP: a fake Invoke server for failure modes, moto for the rest.

- Fake Invoke server (tests/sandboxes/fake_invoke.py, aiohttp on 127.0.0.1): throttling
  retried then served, throttling past the budget, 413, function error, malformed payload
  (each IE, never a verdict), batch splitting with one compile, and that events carry
  links, not data (with the store on a real moto S3 server).
- moto server running the handler in Docker with the image built by
  infra/sandbox-image/build.sh --lambda (marked ``lambda``): real invocations, the store
  on moto's S3, and the function timeout enforced by the image's entrypoint.
"""

from __future__ import annotations

import hashlib
import json

import pytest

from sandboxes.backends.lambda_ import LambdaBackend
from sandboxes.types import Artifact, Batch, Blob, RunLimits, RunSpec, Source, Status
from tests.sandboxes.fake_invoke import FakeInvokeServer

APLUSB_C = '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n'
APLUSB_PY = "a, b = map(int, input().split())\nprint(a + b)\n"
LAMBDA = getattr(pytest.mark, "lambda")  # `lambda` is a keyword; the marker is in pyproject.toml
SHA_PY = "import sys, hashlib\nd = sys.stdin.buffer.read()\nprint(len(d), hashlib.sha256(d).hexdigest())\n"


def aplusb(n: int, code: str = APLUSB_PY, language: str = "python", **kw) -> Batch:
    return Batch(program=Source(language=language, code=code),
                 runs=[RunSpec(id=f"r{i}", stdin=Blob(data=f"{i} {i}\n".encode())) for i in range(n)], **kw)


@pytest.fixture
async def fake():
    server = FakeInvokeServer()
    await server.start()
    yield server
    await server.stop()


def backend_for(endpoint: str, **kw) -> LambdaBackend:
    opts = dict(endpoint_url=endpoint, region="us-east-1", function_name="f", backoff_base_s=0.01,
                backoff_max_s=0.05)
    opts.update(kw)
    return LambdaBackend(**opts)


async def test_throttling_is_retried_then_served(fake):
    fake.script = ["throttle", "throttle", "throttle"]
    async with backend_for(fake.endpoint) as be:
        res = await be.run_batch(aplusb(3))
    assert fake.actions == ["throttle"] * 3 + ["run"]
    assert be.throttled == 3
    assert [r.status for r in res.runs] == [Status.OK] * 3
    assert [r.stdout for r in res.runs] == [b"0\n", b"2\n", b"4\n"]
    assert res.backend == "lambda" and res.compile.status == Status.OK


async def test_throttling_past_the_budget_is_ie(fake):
    fake.script = ["throttle"] * 10
    async with backend_for(fake.endpoint, throttle_retries=2) as be:
        res = await be.run_batch(aplusb(2))
    assert fake.actions == ["throttle"] * 3, "bounded: one try plus two retries"
    assert [r.status for r in res.runs] == [Status.IE] * 2
    assert "TooManyRequestsException" in res.runs[0].message and "3 attempts" in res.runs[0].message
    assert res.compile.status == Status.IE


@pytest.mark.parametrize("action,words", [
    ("too_large", "too large (413"),
    ("function_error", "function error (Unhandled): Runtime.ExitError"),
    ("garbage", "malformed payload"),
])
async def test_failures_are_ie_never_verdicts(fake, action, words):
    fake.script = [action]
    async with backend_for(fake.endpoint) as be:
        res = await be.run_batch(aplusb(2))
    assert fake.actions == [action], "not retried"
    assert [r.status for r in res.runs] == [Status.IE] * 2
    assert words in res.runs[0].message, res.runs[0].message


async def test_unreachable_endpoint_is_ie(fake):
    await fake.stop()
    async with backend_for(fake.endpoint, connect_timeout_s=1) as be:
        res = await be.run_batch(aplusb(1))
    assert res.runs[0].status == Status.IE and "invoke failed" in res.runs[0].message


async def test_big_batch_is_split_and_compiled_once(fake):
    async with backend_for(fake.endpoint, runs_per_invoke=2, max_concurrency=2) as be:
        res = await be.run_batch(aplusb(5, APLUSB_C, "c"))
    events = fake.requests
    assert len(events) == 1 + 3, "one compile-only invoke, then ceil(5/2) run chunks"
    assert events[0]["batch"].get("runs", []) == [] and events[0]["batch"]["program"]["language"] == "c"
    for ev in events[1:]:
        assert ev["batch"]["program"]["language"] == "binary", "chunks get the artifact, not the source"
    assert sorted(len(ev["batch"]["runs"]) for ev in events[1:]) == [1, 2, 2]
    assert res.compile.status == Status.OK
    assert [r.id for r in res.runs] == [f"r{i}" for i in range(5)]
    assert [r.stdout for r in res.runs] == [f"{2 * i}\n".encode() for i in range(5)]


async def test_chunks_fit_the_function_timeout(fake):
    be = backend_for(fake.endpoint, function_timeout_s=10, runs_per_invoke=100)
    runs = [RunSpec(id=str(i), limits=RunLimits(cpu_time_s=1, wall_time_s=3)) for i in range(6)]
    chunks = be._chunks(runs)
    assert [len(c) for c in chunks] == [2, 2, 2], "3.5 s per run within 0.8 x 10 s"
    assert [r.id for c in chunks for r in c] == [str(i) for i in range(6)]


async def test_compile_error_skips_runs_in_one_invoke(fake):
    async with backend_for(fake.endpoint) as be:
        res = await be.run_batch(aplusb(3, "int main(void) { return x; }\n", "c"))
    assert res.compile.status == Status.CE and "x" in res.compile.log
    assert all(r.skipped and r.status == Status.CE for r in res.runs)


async def test_stop_on_failure_across_chunks(fake):
    code = "import sys\nsys.exit(int(sys.stdin.read()))\n"
    batch = Batch(program=Source(language="python", code=code), stop_on_failure=True,
                  runs=[RunSpec(id=str(i), stdin=Blob(data=b"1" if i == 0 else b"0")) for i in range(6)])
    async with backend_for(fake.endpoint, runs_per_invoke=2, max_concurrency=1) as be:
        res = await be.run_batch(batch)
    assert res.runs[0].status == Status.RE and not res.runs[0].skipped
    assert res.runs[1].skipped, "same chunk: the handler's batching skips it"
    assert all(r.skipped and r.status == Status.RE for r in res.runs[2:]), "later chunks are never invoked"
    assert len(fake.requests) == 2


# -- the image's entrypoint, on this host -----------------------------------------------------

def _entry(event: dict, timeout_s: float) -> tuple[int, dict]:
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path
    work = tempfile.mkdtemp(prefix="entry-test-")
    os.chmod(work, 0o755)  # runs drop to another uid here (we are root) and must reach their box
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2]),
           "AWS_LAMBDA_FUNCTION_TIMEOUT": str(timeout_s), "OUBLIETTE_WORKDIR": work}
    try:
        p = subprocess.run([sys.executable, "-m", "sandboxes.lambda_handler.entry", "handler", json.dumps(event)],
                           capture_output=True, env=env, timeout=120)
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    return p.returncode, json.loads(p.stdout.splitlines()[-1])


def test_entry_prints_the_reply_as_the_last_line():
    code, reply = _entry({"v": 1, "batch": aplusb(2).model_dump(mode="json")}, timeout_s=60)
    assert code == 0 and [r["stdout"] for r in reply["result"]["runs"]] == ["MAo=", "Mgo="]  # b"0\n", b"2\n"


def test_entry_kills_the_handler_and_its_runs_at_the_function_timeout():
    marker = "entry-timeout-" + hashlib.sha256(str(id(object())).encode()).hexdigest()[:12]
    batch = Batch(program=Source(language="python", code=f"import time\n{marker!r}\ntime.sleep(60)\n"),
                  # CPU limit = wall limit: no idleness limit, so the sleep outlives the function
                  runs=[RunSpec(id="slow", args=[marker], limits=RunLimits(cpu_time_s=50, wall_time_s=50))])
    code, reply = _entry({"v": 1, "batch": batch.model_dump(mode="json")}, timeout_s=2)
    assert code == 1 and reply["errorType"] == "Sandbox.Timedout", reply
    from tests.security.helpers import host_pids_with_cmdline
    assert host_pids_with_cmdline(marker.encode()) == [], "the run outlived the timed-out handler"


def test_malformed_event_is_answered_not_crashed_on():
    code, reply = _entry({"v": 1, "batch": {"program": 42}}, timeout_s=30)
    assert code == 0 and reply["error"].startswith("bad event:")


# -- with a real S3 store (moto server over HTTP) -------------------------------------------

@pytest.fixture
def s3_stores(fresh_moto, monkeypatch):
    from problem_store.blobs.s3 import S3BlobStore
    monkeypatch.setenv("OUBLIETTE_S3_ENDPOINT", fresh_moto)  # what the in-process handler reads
    store = S3BlobStore("judge", "store", endpoint_url=fresh_moto, create_bucket=True)
    transient = S3BlobStore("judge", "transient", endpoint_url=fresh_moto)
    return store, transient


async def test_events_carry_links_not_data(fake, s3_stores):
    store, transient = s3_stores
    big = bytes(range(256)) * 400  # 100 KiB
    batch = Batch(program=Source(language="python", code=SHA_PY),
                  runs=[RunSpec(id="big", stdin=Blob(data=big)), RunSpec(id="small", stdin=Blob(data=b"hi"))])
    async with backend_for(fake.endpoint, inline_max_bytes=1024) as be:
        be_store = LambdaBackend(be.config, resolver=store, output_store=transient, client=be._client)
        await be_store.start()
        res = await be_store.run_batch(batch)
    raw = json.dumps(fake.requests)
    assert len(raw) < 4096, "the event holds a link, not 100 KiB of data"
    stdin = fake.requests[0]["batch"]["runs"][0]["stdin"]
    assert stdin.get("link", "").startswith("blob://sha256/") and "data" not in stdin
    assert store.exists(stdin["link"])
    assert res.runs[0].stdout == f"{len(big)} {hashlib.sha256(big).hexdigest()}\n".encode()
    assert res.runs[1].stdout.startswith(b"2 ")


async def test_a_256_kb_source_travels_by_link_not_in_the_event(fake, s3_stores):
    """Sources over ~100 KB used to be IE (the event went over max_event_bytes); the API
    accepts 256 KB. The code goes to the store by link like test data, in every invoke."""
    store, transient = s3_stores
    filler = "# " + "x" * 98 + "\n"
    code = filler * (250_000 // len(filler)) + 'print(sum(map(int, input().split())), "\u00e9")\n'
    assert len(code.encode()) > 250_000
    batch = Batch(program=Source(language="python", code=code),
                  runs=[RunSpec(id=f"r{i}", stdin=Blob(data=f"{i} 2\n".encode())) for i in range(3)])
    async with backend_for(fake.endpoint, resolver=store, output_store=transient, runs_per_invoke=2) as be:
        res = await be.run_batch(batch)
    assert res.compile.status == Status.OK, res.compile
    assert [r.stdout for r in res.runs] == [f"{i + 2} \u00e9\n".encode() for i in range(3)]
    assert len(fake.requests) == 3, "one compile-only invoke, then two chunks"
    assert all(len(json.dumps(event)) < 4096 for event in fake.requests)
    head = fake.requests[0]
    assert head["source_link"] == "blob://sha256/" + hashlib.sha256(code.encode()).hexdigest()
    assert head["batch"]["program"]["code"] == "" and store.get(head["source_link"]) == code.encode()
    assert all("link" in e["batch"]["program"]["blob"] for e in fake.requests[1:]), "the chunks run the artifact"


async def test_a_big_source_in_one_chunk_travels_by_link(fake, s3_stores):
    store, transient = s3_stores
    code = "# " + "y" * 150_000 + "\nprint(7)\n"
    async with backend_for(fake.endpoint, resolver=store, output_store=transient) as be:
        res = await be.run_batch(Batch(program=Source(language="python", code=code), runs=[RunSpec(id="a")]))
    assert res.runs[0].stdout == b"7\n"
    assert len(fake.requests) == 1 and fake.requests[0]["source_link"].startswith("blob://sha256/")


async def test_a_big_source_without_an_s3_store_is_refused_as_ie(fake):
    code = "# " + "x" * 200_000 + "\nprint(1)\n"
    async with backend_for(fake.endpoint) as be:
        res = await be.run_batch(Batch(program=Source(language="python", code=code), runs=[RunSpec(id="a")]))
    assert res.runs[0].status == Status.IE and "max_event_bytes" in res.runs[0].message
    assert fake.requests == []


async def test_big_output_comes_back_by_link_and_is_fetched(fake, s3_stores):
    store, _ = s3_stores
    code = "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 8192)\n"  # 2 MiB
    async with backend_for(fake.endpoint, resolver=store, spill_output_over_bytes=1 << 20) as be:
        res = await be.run_batch(Batch(program=Source(language="python", code=code), runs=[RunSpec(id="a")]))
    assert res.runs[0].stdout == bytes(range(256)) * 8192 and res.runs[0].stdout_link is None
    assert fake.requests[0]["spill_output_over"] == 1 << 20


async def test_linked_blobs_are_staged_and_outputs_stored_in_s3(fake, s3_stores, tmp_path):
    from problem_store.blobs.file import FileBlobStore
    store, transient = s3_stores
    local = FileBlobStore(tmp_path / "local")
    link, _ = local.put(b"20 22\n")
    batch = Batch(program=Source(language="python", code=APLUSB_PY), output_to_store=True,
                  runs=[RunSpec(id="a", stdin=Blob(link=link))])
    async with backend_for(fake.endpoint, resolver=local, stage_store=store, output_store=transient) as be:
        res = await be.run_batch(batch)
    assert store.exists(link), "the local blob was copied to the S3 store the function reads"
    r = res.runs[0]
    assert r.status == Status.OK and r.stdout is None and r.stdout_link
    assert transient.get(r.stdout_link) == b"42\n"


async def test_output_to_a_non_s3_store_is_put_by_the_host(fake, tmp_path):
    from problem_store.blobs.file import FileBlobStore
    out = FileBlobStore(tmp_path / "out")
    async with backend_for(fake.endpoint, output_store=out) as be:
        res = await be.run_batch(aplusb(1, output_to_store=True))
    assert fake.requests[0]["batch"].get("output_to_store") in (None, False)
    assert out.get(res.runs[0].stdout_link) == b"0\n" and res.runs[0].stdout is None


async def test_artifact_program_by_link_is_staged(fake, s3_stores, tmp_path):
    from problem_store.blobs.file import FileBlobStore
    store, _ = s3_stores
    local = FileBlobStore(tmp_path / "l")
    link, _ = local.put(APLUSB_PY.encode())
    batch = Batch(program=Artifact(language="python", blob=Blob(link=link)),
                  runs=[RunSpec(id="x", stdin=Blob(data=b"1 1\n"))])
    async with backend_for(fake.endpoint, resolver=local, stage_store=store) as be:
        res = await be.run_batch(batch)
    assert res.compile is None and res.runs[0].stdout == b"2\n"


# -- the real thing: moto runs the handler in Docker ---------------------------------------------

@pytest.fixture(scope="module")
def moto_lambda(request):
    """moto running oubliette-lambda:<tag> in Docker (tests/sandboxes/moto_lambda.py)."""
    from tests.sandboxes.moto_lambda import moto_lambda_env
    return moto_lambda_env(request).endpoint


@LAMBDA
@pytest.mark.docker
async def test_moto_runs_a_batch_in_the_lambda_image(moto_lambda):
    from problem_store.blobs.s3 import S3BlobStore
    store = S3BlobStore("judge", "store", endpoint_url=moto_lambda)
    transient = S3BlobStore("judge", "transient", endpoint_url=moto_lambda)
    big = b"7 " * 30000 + b"\n"
    link, _ = store.put(b"40 2\n")
    batch = Batch(program=Source(language="c", code=APLUSB_C), runs=[
        RunSpec(id="link", stdin=Blob(link=link)),
        RunSpec(id="big", stdin=Blob(data=big)),
        RunSpec(id="ok", stdin=Blob(data=b"1 2\n"))], output_to_store=False)
    async with LambdaBackend(endpoint_url=moto_lambda, region="us-east-1", function_name="oubliette-runner",
                             resolver=store, output_store=transient) as be:
        res = await be.run_batch(batch)
        assert be.invokes == 1
        assert res.compile.status == Status.OK, res.compile
        assert [r.status for r in res.runs] == [Status.OK] * 3, res.runs
        assert [r.stdout for r in res.runs] == [b"42\n", b"14\n", b"3\n"]
        # Outputs by link into the transient prefix, and a verdict class from the same invoke.
        spin = Batch(program=Source(language="python", code="print(input(), flush=True)\nwhile 1: pass\n"),
                     runs=[RunSpec(id="tle", stdin=Blob(data=b"hey\n"), limits=RunLimits(cpu_time_s=0.5, wall_time_s=2)),
                           RunSpec(id="out", stdin=Blob(data=b"hey\n"), limits=RunLimits(cpu_time_s=0.3))],
                     output_to_store=True)
        res = await be.run_batch(spin)
    assert [r.status for r in res.runs] == [Status.TLE, Status.TLE]
    assert transient.get(res.runs[0].stdout_link) == b"hey\n" and res.runs[0].stdout is None


@LAMBDA
@pytest.mark.docker
async def test_moto_function_timeout_is_enforced_and_ie(moto_lambda):
    async with LambdaBackend(endpoint_url=moto_lambda, region="us-east-1", function_name="oubliette-short",
                             function_timeout_s=2) as be:
        batch = Batch(program=Source(language="python", code="import time\ntime.sleep(30)\n"),
                      # CPU limit = wall limit: no idleness limit, so the sleep outlives the function
                      runs=[RunSpec(id="slow", limits=RunLimits(cpu_time_s=20, wall_time_s=20))])
        res = await be.run_batch(batch)
    r = res.runs[0]
    # Without the entrypoint's deadline moto would wait and the runner's 20 s wall limit
    # would make this a TLE verdict; the function timeout must be an IE instead.
    assert r.status == Status.IE, r
    assert "Timedout" in r.message and "2.00 seconds" in r.message
