"""Run every reference solution bare on every test and check it with the problem's checker.

    python -m samples.validate [--only ID ...] [--jobs N] [--wrong]

stdio: ref.py (``/usr/bin/python3``) and ref.cpp (``g++ -O2 -std=gnu++17``) on every
tests/NN.in, judged against NN.ans with the checker's semantics (token compare, float
tolerance, or the custom checker binary compiled here). The Python reference must also
stay within a third of the time limit (CPU seconds), so the limit holds on a slow
sandboxed machine. function: solutions/ref.py against every tests/*.py.

``--wrong`` also runs the known-wrong submissions through a crude bare classifier
(rlimits, no sandbox) and compares with solutions/expected.yaml: a quick self-check of
the team's data. The real judging of wrong submissions is the verifier's golden suite.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from samples import checkers, layout
from samples.layout import SampleProblem
from samples.runbare import PYTHON, RunResult, compile_cpp, run

REF_TIME_FRACTION = 1 / 3  # ref.py CPU time must be <= this fraction of time_limit_s


@dataclass
class Report:
    problem: str
    runs: int = 0
    tests: int = 0
    errors: list[str] = field(default_factory=list)
    worst_ref_py_fraction: float = 0.0
    wrong_checked: int = 0


def _limits(p: SampleProblem) -> tuple[float, int]:
    lim = p.meta.get("limits") or {}
    default_t = 5.0 if p.kind == "function" else 2.0
    return float(lim.get("time_limit_s", default_t)), int(lim.get("memory_mb", 256))


def _stdio_tests(p: SampleProblem) -> list[tuple[str, Path, Path]]:
    if p.meta.get("tests"):
        return [(t["name"], p.path / t["input"], p.path / t["answer"]) for t in p.meta["tests"]]
    return [(f.stem, f, f.with_suffix(".ans")) for f in sorted((p.path / "tests").glob("*.in"))]


class StdioJudge:
    """Compiles a problem's checker once and judges outputs with its semantics."""

    def __init__(self, p: SampleProblem, scratch: Path):
        self.p, self.scratch = p, scratch
        self.spec = p.meta.get("checker") or {"type": "builtin", "name": "tokens"}
        self.binary: Path | None = None
        if self.spec.get("type") == "custom":
            self.binary = scratch / "checker"
            ok, err = compile_cpp(p.path / self.spec["source"], self.binary, (layout.STDIO_INCLUDE,))
            if not ok:
                raise RuntimeError(f"checker does not compile: {err}")

    def check(self, inp: Path, out: bytes, ans: Path) -> tuple[str, str]:
        if self.binary is not None:
            return checkers.custom(self.binary, inp, out, ans, self.scratch)
        s = self.spec
        return checkers.builtin(s.get("name", "tokens"), out, ans.read_bytes(), s.get("abs_tol", 1e-6),
                                s.get("rel_tol", 1e-6), s.get("case_sensitive", True))


def classify(res: RunResult, time_limit_s: float) -> str | None:
    """Bare run -> TLE / MLE / RE, or None when it ran to a normal exit 0."""
    if res.timed_out or res.cpu_s > time_limit_s or res.returncode in (-9, -24):
        return "TLE"
    if res.returncode != 0:
        err = res.stderr[-4000:]
        if b"MemoryError" in err or b"bad_alloc" in err:
            return "MLE"
        return "RE"
    return None


def _solution_cmd(p: SampleProblem, name: str, scratch: Path) -> tuple[list[str] | None, str]:
    src = p.path / "solutions" / name
    if name.endswith(".py"):
        return [PYTHON, str(src)], ""
    binary = scratch / (name.replace(".", "_") + ".bin")
    ok, err = compile_cpp(src, binary)
    return ([str(binary)], "") if ok else (None, err)


def validate_stdio(p: SampleProblem, wrong: bool) -> Report:
    rep = Report(p.id)
    time_limit_s, memory_mb = _limits(p)
    tests = _stdio_tests(p)
    rep.tests = len(tests)
    if not tests:
        rep.errors.append("no tests (run python -m samples.build)")
        return rep
    with tempfile.TemporaryDirectory(prefix=f"val-{p.id}-") as tmp:
        scratch = Path(tmp)
        judge = StdioJudge(p, scratch)
        names = [n for n, v in p.expected.items() if v == "AC"]
        if wrong:
            names += [n for n, v in p.expected.items() if v != "AC"]
        for name in names:
            expected = p.expected[name]
            cmd, cerr = _solution_cmd(p, name, scratch)
            if cmd is None:
                if expected != "CE":
                    rep.errors.append(f"{name}: does not compile: {cerr[:300]}")
                else:
                    rep.wrong_checked += 1
                continue
            if expected == "CE":
                rep.errors.append(f"{name}: expected CE but it compiles")
                continue
            overall = "AC"
            for tname, inp, ans in tests:
                if expected == "AC":
                    res = run(cmd, inp, wall_timeout_s=max(10.0, 3 * time_limit_s))
                else:
                    res = run(cmd, inp, wall_timeout_s=time_limit_s * 2 + 1, memory_mb=memory_mb,
                              cpu_limit_s=time_limit_s)
                rep.runs += 1
                bad = classify(res, time_limit_s if expected != "AC" else 1e9)
                if bad is None:
                    bad, msg = judge.check(inp, res.stdout, ans)
                    bad = "AC" if bad == "OK" else bad
                else:
                    msg = res.stderr.decode("utf-8", "replace").strip()[-200:]
                if expected == "AC":
                    if bad != "AC":
                        rep.errors.append(f"{name} on test {tname}: {bad} {msg}")
                        break
                    if name.endswith(".py"):
                        rep.worst_ref_py_fraction = max(rep.worst_ref_py_fraction, res.cpu_s / time_limit_s)
                elif bad != "AC":
                    overall = bad
                    break
            if expected != "AC":
                rep.wrong_checked += 1
                if overall != expected:
                    rep.errors.append(f"{name}: expected {expected}, bare self-check says {overall}")
        if rep.worst_ref_py_fraction > REF_TIME_FRACTION:
            rep.errors.append(f"ref.py used {rep.worst_ref_py_fraction:.2f} of time_limit_s "
                              f"(must be <= {REF_TIME_FRACTION:.2f}): raise the limit")
    return rep


def function_program(p: SampleProblem, submission: str, test_code: str) -> str:
    """The program one function test runs: submission, setup, test block (and check call)."""
    parts = [submission, p.meta.get("setup_code", ""), test_code]
    if p.meta.get("harness", "asserts") == "humaneval":
        parts.append(f"check({p.meta['entry_point']})")
    return "\n\n".join(x for x in parts if x) + "\n"


def validate_function(p: SampleProblem, wrong: bool) -> Report:
    rep = Report(p.id)
    time_limit_s, memory_mb = _limits(p)
    tests = sorted((p.path / "tests").glob("*.py"))
    rep.tests = len(tests)
    names = [n for n, v in p.expected.items() if v == "AC" or wrong]
    with tempfile.TemporaryDirectory(prefix=f"val-{p.id}-") as tmp:
        for name in names:
            expected = p.expected[name]
            sub = (p.path / "solutions" / name).read_text()
            overall = "AC"
            for t in tests:
                prog = Path(tmp) / "prog.py"
                prog.write_text(function_program(p, sub, t.read_text()))
                res = run([PYTHON, str(prog)], None, wall_timeout_s=time_limit_s * 2 + 1,
                          memory_mb=memory_mb if expected != "AC" else None,
                          cpu_limit_s=time_limit_s)
                rep.runs += 1
                verdict = classify(res, time_limit_s)
                if verdict == "RE" and b"AssertionError" in res.stderr[-2000:]:
                    verdict = "WA"
                if verdict is not None:
                    overall = verdict
                    if expected == "AC":
                        rep.errors.append(f"{name} on {t.name}: {verdict} "
                                          f"{res.stderr.decode(errors='replace')[-300:]}")
                    break
            if expected != "AC":
                rep.wrong_checked += 1
                if overall != expected:
                    rep.errors.append(f"{name}: expected {expected}, bare self-check says {overall}")
    return rep


def validate(only: list[str] | None = None, jobs: int = 2, wrong: bool = False) -> list[Report]:
    probs = layout.problems(None, only)

    def one(p: SampleProblem) -> Report:
        try:
            return validate_stdio(p, wrong) if p.kind == "stdio" else validate_function(p, wrong)
        except Exception as exc:  # a broken problem must name itself, not stop the run
            r = Report(p.id)
            r.errors.append(f"internal: {type(exc).__name__}: {exc}")
            return r

    with ThreadPoolExecutor(max(1, jobs)) as pool:
        return list(pool.map(one, probs))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", nargs="+", default=None, metavar="ID")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--wrong", action="store_true", help="also self-check the wrong submissions")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    reports = validate(args.only, args.jobs, args.wrong)
    bad = [r for r in reports if r.errors]
    for r in bad:
        for e in r.errors:
            print(f"FAIL {r.problem}: {e}")
    worst = max(reports, key=lambda r: r.worst_ref_py_fraction, default=None)
    print(f"validated {len(reports)} problems, {sum(r.tests for r in reports)} tests, "
          f"{sum(r.runs for r in reports)} runs, {sum(r.wrong_checked for r in reports)} wrong "
          f"submissions self-checked in {time.perf_counter() - t0:.1f} s; "
          f"worst ref.py time/limit {worst.worst_ref_py_fraction:.2f} ({worst.problem})" if worst else "")
    print("OK" if not bad else f"{len(bad)} problem(s) FAILED")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
