"""Built-in checks of large outputs run in worker processes (verifier/check_processes.py):
same outcomes as in the service's process, a dead worker is IE and the pool recovers, and
small outputs stay inline."""

from __future__ import annotations

import os

import pytest

from problem_store.manifest import BuiltinChecker
from verifier.check_processes import CheckProcesses, CheckWorkerFailed
from verifier.checkers.builtin import check_builtin
from verifier.judging.stdio import _INLINE_CHECK_BYTES, check_builtin_sized


@pytest.fixture
def checks():
    pool = CheckProcesses(1)
    yield pool
    pool.shutdown()


def test_a_check_in_a_worker_gives_the_in_process_outcome_in_another_process(checks):
    answer = b"1 2 3\n" * 100_000
    cases = [(answer, "integers"), (answer[:-2] + b"4\n", "integers"), (answer + b"x", "ncmp"),
             (b"\r1" * 300_000, "lcmp"), (answer, "floats")]
    for output, name in cases:
        spec = BuiltinChecker(name=name)
        assert checks.call(check_builtin, spec, output, answer) == check_builtin(spec, output, answer)
    assert checks.call(os.getpid) != os.getpid()


def test_a_dead_worker_is_an_internal_failure_and_the_next_check_runs(checks):
    with pytest.raises(CheckWorkerFailed):
        checks.call(os._exit, 3)
    assert checks.failures == 1
    spec = BuiltinChecker(name="tokens")
    assert checks.call(check_builtin, spec, b"a b", b"a b").verdict == "AC"


async def test_large_outputs_go_through_the_check_runner_and_small_ones_do_not():
    seen = []

    async def runner(fn, *args):
        seen.append(len(args[1]))
        return fn(*args)

    spec = BuiltinChecker(name="integers")
    small = b"7\n"
    big = b"7\n" * (_INLINE_CHECK_BYTES // 2 + 1)
    assert (await check_builtin_sized(spec, small, small, runner)).verdict == "AC"
    assert seen == []
    assert (await check_builtin_sized(spec, big, big, runner)).verdict == "AC"
    assert seen == [len(big)]

    async def dead(fn, *args):
        raise CheckWorkerFailed("check worker process died")

    out = await check_builtin_sized(spec, big, big, dead)
    assert out.verdict == "IE" and "died" in out.message
