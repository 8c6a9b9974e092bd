"""Judge a stdin/stdout problem: one compile, every test in one batch, then the checker.

Checkers only ever see runs that finished OK (a checker is never run on a failed run).
With stop_on_first_failure the backend stops after a failed *run*, and the first WA found by
a checker marks every later test SKIPPED, so the report reads the same either way.
"""

from __future__ import annotations

import asyncio

from problem_store.manifest import BuiltinChecker, Limits, StdioProblem, TestCase
from sandboxes.types import Blob, RunLimits, RunResult, RunSpec
from verifier.check_processes import CheckWorkerFailed
from verifier.checkers.builtin import CheckOutcome, check_builtin
from verifier.checkers.custom import CheckJob, checker_batch, outcome_of
from verifier.judging.blob_cache import BlobCache
from verifier.judging.execution import Executor
from verifier.judging.verdicts import fill_points, run_failure_verdict, run_message
from verifier.models import CompileInfo, TestVerdict, Verdict


_INLINE_CHECK_BYTES = 256 * 1024
# An output far larger than the jury's answer is wrong whatever it holds: it is OLE before any
# checker reads it. Without this, 32 MiB of "1 " under the 64 MiB cap made custom checkers
# fail (IE, reward null: the RL loop drops it, so the policy is never penalised) and built-in
# checks take 24 s a test (the request timed out with no verdict) (found by a red team).
_ANSWER_FACTOR, _ANSWER_SLACK = 16, 1 << 20


def output_budget(answer_bytes: int) -> int:
    """Most output a test's checker is asked to read, given the jury answer's size."""
    return _ANSWER_FACTOR * answer_bytes + _ANSWER_SLACK


def run_limits(limits: Limits) -> RunLimits:
    """Manifest limits -> sandbox limits; wall time is a generous multiple of CPU time."""
    return RunLimits(cpu_time_s=limits.time_limit_s,
                     wall_time_s=min(900.0, max(3 * limits.time_limit_s, limits.time_limit_s + 2)),
                     memory_mb=limits.memory_mb,
                     output_bytes=limits.output_limit_kb * 1024)


async def check_builtin_sized(checker: BuiltinChecker, output: bytes, answer: bytes,
                              check_run) -> CheckOutcome:
    """A built-in check: inline when small, else through ``check_run`` (a check worker
    process, off the event loop and the service's GIL); a dead worker is IE."""
    if len(output) + len(answer) <= _INLINE_CHECK_BYTES:
        return check_builtin(checker, output, answer)
    try:
        return await check_run(check_builtin, checker, output, answer)
    except CheckWorkerFailed as exc:
        return CheckOutcome("IE", f"checker could not run: {exc}")


class StdioJudge:
    def __init__(self, executor: Executor, blobs: BlobCache, transient=None, *,
                 store_run=None, check_run=None):
        self.executor = executor
        self.blobs = blobs
        self.transient = transient
        # Off-loop calls go to the service's work classes (store I/O, in-process checks).
        self.store_run = store_run or asyncio.to_thread
        self.check_run = check_run or asyncio.to_thread

    async def judge(self, problem: StdioProblem, tests: list[TestCase], language: str, code: str,
                    stop_first: bool) -> tuple[CompileInfo, list[TestVerdict]]:
        limits = run_limits(problem.limits)
        capped = await asyncio.gather(*(self._capped(limits, t) for t in tests))
        specs = [RunSpec(id=t.name, stdin=Blob(link=t.input), limits=lim)
                 for t, lim in zip(tests, capped)]
        out = await self.executor.run(language, code, specs, stop_on_failure=stop_first)
        if out.internal_error:
            return out.compile, [TestVerdict(name=t.name, verdict=Verdict.IE,
                                             message=out.compile.log[:500]) for t in tests]
        if out.compile_failed:
            return out.compile, [TestVerdict(name=t.name, verdict=Verdict.SKIPPED,
                                             message="compilation failed") for t in tests]
        verdicts = [self._from_run(run) for run in out.runs]
        to_check = [i for i, v in enumerate(verdicts) if v.verdict == Verdict.AC]
        outcomes = await self._check(problem, [tests[i] for i in to_check],
                                     [out.runs[i] for i in to_check])
        for i, outcome in zip(to_check, outcomes):
            verdicts[i].verdict = Verdict(outcome.verdict)
            verdicts[i].message = outcome.message
            fill_points(verdicts[i], tests[i].points, outcome.points)
        for i, v in enumerate(verdicts):
            if i not in to_check:
                fill_points(v, tests[i].points, None)
        if stop_first:
            failed = False
            for v in verdicts:
                if failed and v.verdict != Verdict.IE:
                    v.verdict, v.message, v.points = Verdict.SKIPPED, "skipped after a failure", 0.0
                elif v.verdict not in (Verdict.AC, Verdict.SKIPPED):
                    failed = True
        return out.compile, verdicts

    async def _capped(self, limits: RunLimits, test: TestCase) -> RunLimits:
        """A test's run stops at the most output its checker may read (``output_budget`` of
        the answer's size; more is OLE whatever it says): a flood is cut in the sandbox, not
        carried to the service and measured there. The problem's cap when that is lower, or
        when the answer's size cannot be read (the check reports a lost answer)."""
        if test.answer is None:
            return limits
        try:
            budget = output_budget(await self.blobs.size(test.answer))
        except Exception:  # noqa: BLE001 - judged as before; the check says what is wrong
            return limits
        if budget >= limits.output_bytes:
            return limits
        return limits.model_copy(update={"output_bytes": budget})

    @staticmethod
    def _from_run(run: RunResult) -> TestVerdict:
        verdict = run_failure_verdict(run)
        return TestVerdict(name=run.id, verdict=verdict or Verdict.AC,
                           time_s=round(run.cpu_time_s, 4), wall_time_s=round(run.wall_time_s, 4),
                           memory_kb=run.memory_kb,
                           message="" if verdict is None else run_message(run))

    async def _output_of(self, run: RunResult) -> bytes:
        if run.stdout is not None:
            return run.stdout
        if run.stdout_link and self.transient is not None:
            data = await self.store_run(self.transient.get, run.stdout_link)
            if data is None:
                raise LookupError(f"output {run.stdout_link} expired from the transient store")
            return data
        return b""

    async def _check(self, problem: StdioProblem, tests: list[TestCase],
                     runs: list[RunResult]) -> list[CheckOutcome]:
        if not tests:
            return []
        checker = problem.checker
        try:
            outputs = [await self._output_of(r) for r in runs]
        except Exception as exc:  # noqa: BLE001 - lost output is our failure
            return [CheckOutcome("IE", f"could not read the output: {exc}") for _ in tests]
        oversized = await self._oversized(tests, outputs)
        if oversized:
            keep = [i for i in range(len(tests)) if i not in oversized]
            checked = await self._check(problem, [tests[i] for i in keep], [runs[i] for i in keep])
            merged = dict(zip(keep, checked))
            return [merged.get(i) or oversized[i] for i in range(len(tests))]
        if isinstance(checker, BuiltinChecker):
            results = []
            for t, output in zip(tests, outputs):
                try:
                    answer = await self.blobs.get(t.answer)
                except Exception as exc:  # noqa: BLE001
                    results.append(CheckOutcome("IE", f"could not read the answer: {exc}"))
                    continue
                results.append(await check_builtin_sized(checker, output, answer, self.check_run))
            return results
        return await run_custom_checker(self.executor.backend, checker.binary, [
            CheckJob(t.name, Blob(link=t.input), Blob(data=o),
                     Blob(link=t.answer) if t.answer else None)
            for t, o in zip(tests, outputs)])


    async def _oversized(self, tests: list[TestCase], outputs: list[bytes]) -> dict[int, CheckOutcome]:
        out = {}
        for i, (t, output) in enumerate(zip(tests, outputs)):
            if len(output) <= _ANSWER_SLACK or t.answer is None:
                continue
            try:
                answer = await self.blobs.get(t.answer)
            except Exception:  # noqa: BLE001 - the checker path reports a lost answer as IE
                continue
            if len(output) > output_budget(len(answer)):
                out[i] = CheckOutcome("OLE", f"output of {len(output)} bytes is over {_ANSWER_FACTOR}x the "
                                             f"jury answer's size + 1 MiB: not a plausible answer")
        return out


async def run_custom_checker(backend, binary_link: str, jobs: list[CheckJob]) -> list[CheckOutcome]:
    """Run the checker binary on every job in one sandbox batch; a backend failure is IE."""
    try:
        result = await backend.run_batch(checker_batch(binary_link, jobs))
    except Exception as exc:  # noqa: BLE001
        return [CheckOutcome("IE", f"checker could not run: {exc!r}") for _ in jobs]
    if result.compile is not None and result.compile.status.value != "OK":
        return [CheckOutcome("IE", f"checker binary not runnable: {result.compile.log[:300]}")
                for _ in jobs]
    by_id = {r.id: r for r in result.runs}
    return [outcome_of(by_id[j.name]) if j.name in by_id
            else CheckOutcome("IE", "checker run missing from the backend's result") for j in jobs]
