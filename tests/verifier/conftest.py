"""Fixtures: a real file blob store with a few tiny problems, the service over a FakeBackend,
and an aiohttp test client on a real loopback socket."""

from __future__ import annotations

import pytest
from aiohttp.test_utils import TestClient, TestServer

from problem_store.blobs.file import FileBlobStore
from problem_store.manifest import (BuiltinChecker, CustomChecker, FunctionProblem, FunctionTest,
                                    MathProblem, StdioProblem, TestCase)
from problem_store.problems import ProblemStore
from tests.verifier.fakes import FakeBackend
from verifier.app import create_app
from verifier.config import VerifierConfig
from verifier.service import VerifierService

# A "checker binary" for the fake backend is a Python script: argv = input output answer.
PY_CHECKER = """
import sys
inp, out, ans = (open(p).read().split() for p in sys.argv[1:4])
if out == ["FAIL"]:
    print("jury is confused", file=sys.stderr); sys.exit(3)
if out == ["HALF"]:
    print("points 0.5 half right", file=sys.stderr); sys.exit(7)
if out[:1] == ["POINTS"]:  # testlib's quitp(x): "points x <message>", exit 7
    print("points " + out[1] + " as asked", file=sys.stderr); sys.exit(7)
if not all(t.lstrip('-').isdigit() for t in out):
    print("not numbers", file=sys.stderr); sys.exit(2)
if sorted(out) != sorted(ans):
    print("wrong", file=sys.stderr); sys.exit(1)
print("ok", file=sys.stderr)
"""

SUM_AC = "a, b = map(int, input().split())\nprint(a + b)\n"
SUM_WA = "a, b = map(int, input().split())\nprint(a - b)\n"


def _put(blobs, data: bytes) -> str:
    return blobs.put(data)[0]


def make_problems(blobs) -> ProblemStore:
    ps = ProblemStore(blobs)
    tests = []
    for i, (a, b) in enumerate([(1, 2), (5, 5), (10, -3), (0, 0)], start=1):
        tests.append(TestCase(name=f"{i:02d}", input=_put(blobs, f"{a} {b}\n".encode()),
                              answer=_put(blobs, f"{a + b}\n".encode()), points=float(i)))
    ps.put(StdioProblem(id="sum", title="Sum", tests=tuple(tests),
                        checker=BuiltinChecker(name="integers")))
    ps.put(StdioProblem(id="sum-custom", tests=tuple(tests), checker=CustomChecker(
        source=_put(blobs, b"// source"), binary=_put(blobs, PY_CHECKER.encode()))))
    ps.put(FunctionProblem(id="add-fn", entry_point="add", harness="asserts", tests=(
        FunctionTest(name="basic", code=_put(blobs, b"assert add(1, 2) == 3\n")),
        FunctionTest(name="neg", code=_put(blobs, b"assert add(-1, -2) == -3\n")))))
    ps.put(FunctionProblem(id="add-he", entry_point="add", harness="humaneval", tests=(
        FunctionTest(name="check", code=_put(
            blobs, b"def check(candidate):\n    assert candidate(2, 3) == 5\n")),)))
    ps.put(MathProblem(id="half-plus-third", question="1/2+1/3?", answer="\\frac{5}{6}"))
    return ps


@pytest.fixture
def blobs(tmp_path):
    store = FileBlobStore(tmp_path / "store")
    make_problems(store)
    return store


@pytest.fixture
def backend(blobs):
    return FakeBackend(blobs, capacity=4)


def make_config(**kw) -> VerifierConfig:
    base = dict(self_test=True, request_deadline_s=30, max_inflight=4, queue_size=8)
    base.update(kw)
    return VerifierConfig(**base)


@pytest.fixture
def config():
    return make_config()


@pytest.fixture
async def service(config, backend, blobs):
    svc = VerifierService(config, backend, blobs)
    await svc.start()
    yield svc
    await svc.close()


@pytest.fixture
async def client(service):
    app = create_app(service, manage_service=False)
    async with TestClient(TestServer(app, host="127.0.0.1")) as c:
        yield c
