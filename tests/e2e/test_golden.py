"""Golden suite (tests as data): every sample problem's solutions/expected.yaml, judged through
the HTTP API of a real ``verifier serve`` process. The overall verdict must match the tag.

Fast: a few small stdio problems plus every function problem, on the local backend.
Full (-m full, not in CI: ~20 min on 2 cores): every problem in samples/, on every backend in SANDBOX_BACKENDS.
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
async def test_golden_fast(golden_server, problem):
    _compare(await judge_problem(golden_server.url, problem), problem.expected)


@pytest.fixture(scope="module", params=backends())
def full_server(request, full_store):
    with ServerProcess(full_store, request.param) as srv:
        yield srv


@pytest.mark.full
@pytest.mark.parametrize("problem", cases(fast=False))
async def test_golden_full(full_server, problem):
    _compare(await judge_problem(full_server.url, problem), problem.expected)


def math_cases() -> list:
    import json

    out = []
    for f in sorted(layout.MATH.glob("*.jsonl")) if layout.MATH.is_dir() else []:
        for line in f.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                out.append(pytest.param(row, id=row["id"]))
    return out


async def test_golden_math(fast_server):
    """Every math sample: its own gold answer, as a model would write it, is AC; a number
    that is no answer of any sample is WA. Judged as problems in the store via /v1/verify."""
    rows = [p.values[0] for p in math_cases()]
    if not rows:
        pytest.skip("no math samples")
    async with VerifierClient(fast_server.url) as client:
        async def one(row):
            ans = row["answer"]
            right = ans if "####" in ans else f"The answer is $\\boxed{{{ans}}}$."
            r1 = await client.verify(row["id"], "math", right)
            r2 = await client.verify(row["id"], "math", "The answer is $\\boxed{987654.321}$.")
            return row["id"], r1.verdict.value, r2.verdict.value
        results = await asyncio.gather(*(one(r) for r in rows))
    bad = [r for r in results if r[1:] != ("AC", "WA")]
    assert not bad, f"(id, gold-as-prediction verdict, wrong-number verdict): {bad}"
