"""Judge a function-call problem: the candidate and the problem's assertions run together.

A fixed harness program (compiled once, cached forever) runs in the sandbox for every test;
the candidate's code, the setup code and the test code arrive as files. The harness tells
apart, by exit code: a failed assertion (WA), any other exception (RE), a candidate that does
not parse (CE), and broken jury code (IE). It ends by printing a per-request random marker
read from a file it deletes before running the candidate, so a candidate that exits early
with status 0 is a runtime error, not an accept.
"""

from __future__ import annotations

import secrets

from problem_store.manifest import FunctionProblem, FunctionTest
from sandboxes.types import Blob, RunResult, RunSpec, Status
from verifier.judging.execution import Executor
from verifier.judging.stdio import run_limits
from verifier.judging.verdicts import fill_points, run_failure_verdict, run_message
from verifier.models import CompileInfo, TestVerdict, Verdict

EXIT_WA, EXIT_RE, EXIT_CE, EXIT_JURY = 101, 102, 103, 104

HARNESS = r'''
import os, sys, traceback

def _tail(limit=1500):
    return "".join(traceback.format_exc())[-limit:]

def _quit(code, text):
    sys.stdout.flush()
    sys.stderr.write(text + "\n")
    sys.stderr.flush()
    os._exit(code)

def _read(name):
    with open(name, encoding="utf-8") as fh:
        return fh.read()

def _main():
    entry, kind = sys.argv[1], sys.argv[2]
    marker = _read("marker.txt").strip()
    os.remove("marker.txt")
    setup, cand, tests = _read("setup_code.py"), _read("candidate.py"), _read("test_code.py")
    sys.argv[:] = ["candidate.py"]
    try:
        setup_code = compile(setup, "setup_code.py", "exec")
        test_code = compile(tests, "test_code.py", "exec")
    except BaseException:
        _quit(%(jury)d, "jury code does not compile:\n" + _tail())
    try:
        cand_code = compile(cand, "candidate.py", "exec")
    except BaseException:
        _quit(%(ce)d, "candidate does not compile:\n" + _tail())
    ns = {"__name__": "__main__", "__builtins__": __builtins__}
    try:
        exec(setup_code, ns)
    except BaseException:
        _quit(%(jury)d, "setup code failed:\n" + _tail())
    try:
        exec(cand_code, ns)
    except BaseException:
        _quit(%(re)d, "candidate raised while loading:\n" + _tail())
    if entry not in ns:
        _quit(%(re)d, "candidate does not define %%r" %% entry)
    try:
        exec(test_code, ns)
        if kind == "humaneval":
            ns["check"](ns[entry])
    except AssertionError:
        _quit(%(wa)d, "assertion failed:\n" + _tail())
    except BaseException:
        _quit(%(re)d, "exception while testing:\n" + _tail())
    sys.stdout.write("\n" + marker + "\n")
    sys.stdout.flush()
    os._exit(0)

_main()
''' % {"wa": EXIT_WA, "re": EXIT_RE, "ce": EXIT_CE, "jury": EXIT_JURY}


def _verdict(run: RunResult, marker: str) -> tuple[Verdict, str]:
    err = (run.stderr or b"").decode("utf-8", "replace").strip()[-1500:]
    if run.skipped:
        return Verdict.SKIPPED, "skipped after a failure"
    if run.status == Status.RE and run.signal is None:
        mapped = {EXIT_WA: Verdict.WA, EXIT_RE: Verdict.RE, EXIT_CE: Verdict.CE,
                  EXIT_JURY: Verdict.IE}.get(run.exit_code)
        if mapped is not None:
            return mapped, err
    failure = run_failure_verdict(run)
    if failure is not None:
        return failure, run_message(run) + (f": {err[-500:]}" if err else "")
    lines = (run.stdout or b"").decode("utf-8", "replace").rstrip("\n").rsplit("\n", 1)
    if not lines or lines[-1] != marker:
        return Verdict.RE, "the program exited before its tests finished"
    return Verdict.AC, ""


class FunctionJudge:
    def __init__(self, executor: Executor):
        self.executor = executor

    async def judge(self, problem: FunctionProblem, tests: list[FunctionTest], code: str,
                    stop_first: bool) -> tuple[CompileInfo, list[TestVerdict]]:
        marker = "__tests_done_" + secrets.token_hex(16)
        limits = run_limits(problem.limits)
        common = {"candidate.py": Blob(data=code.encode("utf-8", "surrogatepass")),
                  "setup_code.py": Blob(data=problem.setup_code.encode()),
                  "marker.txt": Blob(data=marker.encode())}
        specs = [RunSpec(id=t.name, args=[problem.entry_point, problem.harness], limits=limits,
                         files={**common, "test_code.py": Blob(link=t.code)}) for t in tests]
        out = await self.executor.run("python", HARNESS, specs, stop_on_failure=stop_first)
        if out.internal_error or out.compile_failed:
            # The harness is ours: failing to compile it is an internal error.
            return out.compile, [TestVerdict(name=t.name, verdict=Verdict.IE,
                                             message=out.compile.log[:500]) for t in tests]
        verdicts = []
        failed = False
        for t, run in zip(tests, out.runs):
            verdict, message = _verdict(run, marker)
            if failed and verdict != Verdict.IE:
                verdict, message = Verdict.SKIPPED, "skipped after a failure"
            tv = TestVerdict(name=t.name, verdict=verdict, message=message,
                             time_s=round(run.cpu_time_s, 4), wall_time_s=round(run.wall_time_s, 4),
                             memory_kb=run.memory_kb)
            fill_points(tv, None, None)
            verdicts.append(tv)
            if stop_first and verdict not in (Verdict.AC, Verdict.SKIPPED):
                failed = True
        compile_info = out.compile
        if any(v.verdict == Verdict.CE for v in verdicts):
            compile_info = CompileInfo(status="CE", log=next(
                v.message for v in verdicts if v.verdict == Verdict.CE))
        return compile_info, verdicts
