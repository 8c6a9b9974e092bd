"""Golden suite (tests as data): every sample problem's solutions/expected.yaml, judged through
the HTTP API of a real ``verifier serve`` process. The overall verdict must match the tag.

Fast: a few small stdio problems plus every function problem, on the local backend.
Slow (-m slow): every problem in samples/, on every backend in SANDBOX_BACKENDS.
"""

from __future__ import annotations

import asyncio

import pytest

from samples import layout
from tests.e2e.conftest import FAST_STDIO, backends
from tests.e2e.server import ServerProcess
from verifier.client import VerifierClient

EXT_LANG = {".py": "python", ".cpp": "cpp", ".cc": "cpp", ".c": "c"}


def cases(fast: bool):
    out = []
    for p in layout.problems():
        if not p.expected:
            continue
        if fast and p.kind == "stdio" and p.id not in FAST_STDIO:
            continue
        out.append(pytest.param(p, id=p.id))
    return out


async def judge_problem(url: str, problem) -> dict[str, str]:
    sem = asyncio.Semaphore(4)
    async with VerifierClient(url) as client:
        async def one(name: str) -> tuple[str, str]:
            path = problem.path / "solutions" / name
            language = "python" if problem.kind == "function" else EXT_LANG[path.suffix]
            async with sem:
                r = await client.verify(problem.id, language, path.read_text())
            detail = r.verdict.value
            if detail not in ("AC", problem.expected[name]):
                bad = next((t for t in r.tests if t.verdict.value == detail), None)
                detail += f" ({bad.name}: {bad.message[:200]})" if bad else f" ({r.message[:200]})"
            return name, detail
        got = await asyncio.gather(*(one(n) for n in problem.expected))
    return dict(got)


def _compare(got: dict[str, str], expected: dict[str, str]) -> None:
    mismatches = {n: (expected[n], got[n]) for n in expected if got[n].split(" ")[0] != expected[n]}
    assert not mismatches, f"expected vs got: {mismatches}"


@pytest.mark.parametrize("problem", cases(fast=True))
async def test_golden_fast(fast_server, problem):
    _compare(await judge_problem(fast_server.url, problem), problem.expected)


@pytest.fixture(scope="module", params=backends())
def full_server(request, full_store):
    with ServerProcess(full_store, request.param) as srv:
        yield srv


@pytest.mark.slow
@pytest.mark.parametrize("problem", cases(fast=False))
async def test_golden_full(full_server, problem):
    _compare(await judge_problem(full_server.url, problem), problem.expected)
