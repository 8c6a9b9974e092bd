"""Judge a function-call problem: the jury's tests and the candidate run in two processes.

Each test is one sandbox run of a fixed harness program (``boundary/``, compiled once and
cached). The harness holds the test code (it arrives on stdin, never as a file), makes
itself non-dumpable, starts the candidate's code in a freshly exec'd interpreter and calls
it through two pipes, with arguments and return values encoded as plain data
(``boundary/codec.py``). The harness alone compares and writes the verdict, as one codec
record on its own stdout, which the candidate never holds; the candidate's prints go to
the run's stderr. A harness that ends any other way (killed by the candidate, out of
time) is never an accept.
"""

from __future__ import annotations

from problem_store.manifest import FunctionProblem, FunctionTest, Limits
from sandboxes.types import Blob, RunLimits, RunResult, RunSpec
from verifier.judging.boundary.codec import CodecError, decode
from verifier.judging.boundary.programs import HARNESS_SOURCE
from verifier.judging.execution import Executor
from verifier.judging.stdio import run_limits
from verifier.judging.verdicts import fill_points, run_failure_verdict, run_message
from verifier.models import CompileInfo, TestVerdict, Verdict

# The harness's exit status: 0 with an AC record, 100 with any other record. A non-zero
# status on failure keeps the runner's stop-on-first-failure working.
EXIT_AC, EXIT_VERDICT = 0, 100
HARNESS = HARNESS_SOURCE
_VERDICTS = {v.value: v for v in (Verdict.AC, Verdict.WA, Verdict.RE, Verdict.TLE, Verdict.MLE,
                                  Verdict.CE, Verdict.IE)}


def _record(run: RunResult) -> tuple[Verdict, str, float, int, float, float] | None:
    """The harness's verdict record, if it ended normally and wrote a well-formed one:
    (verdict, message, candidate CPU s, candidate peak KiB, harness CPU s, CPU limit s)."""
    if run.signal is not None or run.exit_code not in (EXIT_AC, EXIT_VERDICT):
        return None
    try:
        rec = decode(run.stdout or b"")
    except CodecError:
        return None
    if (type(rec) is not tuple or len(rec) != 6 or rec[0] not in _VERDICTS
            or type(rec[1]) is not str or type(rec[3]) is not int
            or any(type(x) is not float for x in (rec[2], rec[4], rec[5]))):
        return None
    verdict = _VERDICTS[rec[0]]
    if (verdict == Verdict.AC) != (run.exit_code == EXIT_AC):
        return None
    return (verdict, *rec[1:])


def _verdict(run: RunResult) -> tuple[Verdict, str, float, int]:
    """(verdict, message, CPU seconds, peak memory KiB) of one test's run."""
    if run.skipped:
        return Verdict.SKIPPED, "skipped after a failure", 0.0, 0
    rec = _record(run)
    failure = run_failure_verdict(run)
    if rec is not None:
        verdict, message, cpu_s, mem_kb, harness_s, limit_s = rec
        if verdict == Verdict.AC and failure is not None:
            # Tests passed, but the run as a whole broke a limit (the harness's own budget).
            return failure, run_message(run), run.cpu_time_s, run.memory_kb
        # The harness meters the candidate's process; processes the candidate started and
        # never reaped (work done in a double-forked child it waits on) are in the run's CPU
        # (its cgroup) alone: everything in the run but the harness is the candidate's.
        # 50 ms of slack: where the run's CPU comes from /proc scans (Lambda) it is counted
        # in clock ticks, the harness's own from getrusage.
        started = run.cpu_time_s - harness_s
        if verdict == Verdict.AC and started > limit_s + 0.05:
            return (Verdict.TLE, f"CPU time limit exceeded ({started:.3f} s in the candidate's "
                                 "processes, the ones it started included)", started, mem_kb)
        return verdict, message, cpu_s, mem_kb
    err = (run.stderr or b"").decode("utf-8", "replace").strip()[-500:]
    if failure in (Verdict.TLE, Verdict.OLE, Verdict.IE):
        return failure, run_message(run), run.cpu_time_s, run.memory_kb
    if run.signal is not None:
        # The candidate runs as the same uid and may signal the harness: that ends the test
        # without a verdict, which is never an accept. (The runner would read an unexplained
        # SIGKILL as a memory kill; the harness's memory is ours, so it is not that.)
        return (Verdict.RE, f"the judging harness was killed by signal {run.signal}",
                run.cpu_time_s, run.memory_kb)
    if failure == Verdict.MLE:
        return failure, run_message(run), run.cpu_time_s, run.memory_kb
    return Verdict.IE, (f"the function harness ended without a verdict ({run_message(run)})"
                        + (f": {err}" if err else "")), run.cpu_time_s, run.memory_kb


def harness_wait_s(time_limit_s: float) -> float:
    """How long the harness waits on the candidate in all (``Channel.wall_limit`` in
    boundary/harness_main.py, which computes the same from its CPU limit): the rule of a
    stdio program's wall limit, 3x the CPU limit and at least 2 s more."""
    return max(3 * time_limit_s, time_limit_s + 2)


def harness_limits(limits: Limits) -> RunLimits:
    """The run's limits: the harness enforces the problem's CPU limit on the candidate's
    process alone; the run as a whole (harness, jury code, candidate) gets at least twice that
    plus a second, so judging work is never charged to the candidate."""
    base = run_limits(limits)
    # At least a second above the harness's own budget for waiting on the candidate, so a
    # candidate that stops reading or answering is caught by the harness, which says so,
    # and not by the runner's idleness limit (the run's CPU limit): at a 1 s limit both were
    # 3 s, and which fired first was a race (clean-clone CI, lambda: TLE either way, but
    # the message said "idleness" instead of "did not read").
    cpu = harness_wait_s(limits.time_limit_s) + 1  # never below 2x the limit + 1 s
    # Wall time only catches a blocked or stopped run (the harness enforces CPU time); a
    # test with hundreds of calls on a large argument takes several seconds of wall time on
    # a loaded machine, so leave room.
    return base.model_copy(update={"cpu_time_s": cpu,
                                   "wall_time_s": min(900.0, max(base.wall_time_s, 3 * cpu))})


class FunctionJudge:
    def __init__(self, executor: Executor):
        self.executor = executor

    async def judge(self, problem: FunctionProblem, tests: list[FunctionTest], code: str,
                    stop_first: bool) -> tuple[CompileInfo, list[TestVerdict]]:
        limits = harness_limits(problem.limits)
        common = {"candidate.py": Blob(data=code.encode("utf-8", "surrogatepass")),
                  "setup_code.py": Blob(data=problem.setup_code.encode("utf-8", "surrogatepass"))}
        if problem.harness == "humaneval" and problem.prompt:
            common["prompt.py"] = Blob(data=problem.prompt.encode("utf-8", "surrogatepass"))
        args = [problem.entry_point, problem.entry_class or "-", problem.harness,
                repr(float(problem.limits.time_limit_s)),
                "in-place" if problem.arguments_in_place else "copy"]
        specs = [RunSpec(id=t.name, args=args, limits=limits, files=dict(common),
                         stdin=Blob(link=t.code)) for t in tests]
        out = await self.executor.run("python", HARNESS, specs, stop_on_failure=stop_first)
        if out.internal_error or out.compile_failed:
            # The harness is ours: failing to compile it is an internal error.
            return out.compile, [TestVerdict(name=t.name, verdict=Verdict.IE,
                                             message=out.compile.log[:500]) for t in tests]
        verdicts = []
        failed = False
        for t, run in zip(tests, out.runs):
            verdict, message, cpu_s, mem_kb = _verdict(run)
            if failed and verdict != Verdict.IE:
                verdict, message = Verdict.SKIPPED, "skipped after a failure"
            tv = TestVerdict(name=t.name, verdict=verdict, message=message,
                             time_s=round(cpu_s, 4), wall_time_s=round(run.wall_time_s, 4),
                             memory_kb=mem_kb)
            fill_points(tv, None, None)
            verdicts.append(tv)
            if stop_first and verdict not in (Verdict.AC, Verdict.SKIPPED):
                failed = True
        compile_info = out.compile
        if any(v.verdict == Verdict.CE for v in verdicts):
            compile_info = CompileInfo(status="CE", log=next(
                v.message for v in verdicts if v.verdict == Verdict.CE))
        return compile_info, verdicts
