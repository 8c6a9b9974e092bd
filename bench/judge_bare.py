"""Bare execution for bench/judge_vs_bare.py: the same programs as plain subprocesses.

No sandbox, no HTTP, no checker inside the timed part: a thread pool of ``workers``
(default: CPU cores) takes one submission at a time, compiles it once (C++, with exactly
the command in ``sandboxes.languages``) and runs its tests one after the other. Outputs are
kept and judged after the clock stops, by ``compare`` below: our own reading of the three
built-in checkers the workload uses (docs/problem-format.md), written here so the service's
checkers are checked against something they share no code with.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from sandboxes.languages import get_language

# Every bare compile and run gets its own session, as every sandboxed run does
# (sandboxes/runner/process.py setsid()s). Why: with sched_autogroup on (the default
# here), CFS shares the CPU per session, so under load two workers sharing this script's
# session would get less than the sandbox's one-session-per-run; on an idle machine it
# changes nothing.
NEW_SESSION = True
# Far above any run of this workload; reaching it means something is broken, reported as TLE.
WALL_LIMIT_S = 20.0
_INT = re.compile(rb"[+-]?[0-9]+\Z")


def compare(checker: str, output: bytes, answer: bytes) -> str:
    """AC / WA / PE for one output, as the problem's built-in checker defines it."""
    if checker == "tokens":  # bytes.split() splits on ASCII whitespace incl. \v and \f
        return "AC" if output.split() == answer.split() else "WA"
    if checker == "integers":  # by value, lenient signs/zeros; a non-integer token is PE
        got, want = output.split(), answer.split()
        if not all(_INT.match(t) for t in got):
            return "PE"
        if len(got) != len(want):
            return "WA"
        return "AC" if all(int(g) == int(w) for g, w in zip(got, want)) else "WA"
    if checker == "lines":  # trailing blanks per line, CRLF and trailing empty lines ignored
        def norm(b: bytes) -> list[bytes]:
            lines = [ln.rstrip() for ln in b.replace(b"\r\n", b"\n").split(b"\n")]
            while lines and not lines[-1]:
                lines.pop()
            return lines
        return "AC" if norm(output) == norm(answer) else "WA"
    raise ValueError(f"no bare comparator for checker {checker!r}")


@dataclass
class BareResult:
    """One submission run bare: compile seconds and, per test, (returncode, stdout, wall s)."""

    compile_s: float = 0.0
    compile_ok: bool = True
    runs: list[tuple[int | None, bytes, float]] = field(default_factory=list)

    def verdicts(self, checker: str, answers: list[bytes]) -> list[str]:
        if not self.compile_ok:
            return ["CE"] * len(answers)
        out = []
        for (rc, stdout, _), ans in zip(self.runs, answers):
            if rc is None:
                out.append("TLE")
            elif rc != 0:
                out.append("RE")
            else:
                out.append(compare(checker, stdout, ans))
        return out


def _argv(template: tuple[str, ...], **names: str) -> list[str]:
    return [a.format(**names) if "{" in a else a for a in template]


def run_submission(language: str, code: str, inputs: list[Path]) -> BareResult:
    lang = get_language(language)
    env = dict(os.environ, **lang.env)
    res = BareResult()
    with tempfile.TemporaryDirectory(prefix="judge-bare-") as tmp:
        (Path(tmp) / lang.source_name).write_text(code)
        if lang.compile_argv is not None and lang.artifact_language == "binary":
            # Python's compile step (py_compile) is the sandbox's syntax check; bare Python
            # just runs the file, as a person would.
            t0 = time.perf_counter()
            proc = subprocess.run(_argv(lang.compile_argv, source=lang.source_name,
                                        output=lang.artifact_name),
                                  cwd=tmp, capture_output=True, timeout=300,
                                  start_new_session=NEW_SESSION)
            res.compile_s = time.perf_counter() - t0
            res.compile_ok = proc.returncode == 0
            if not res.compile_ok:
                return res
        argv = _argv(lang.run_argv, program=os.path.join(tmp, lang.artifact_name))
        for path in inputs:
            with open(path, "rb") as stdin:
                t0 = time.perf_counter()
                try:
                    p = subprocess.run(argv, stdin=stdin, capture_output=True, cwd=tmp, env=env,
                                       timeout=WALL_LIMIT_S, start_new_session=NEW_SESSION)
                    rc = p.returncode
                    out = p.stdout
                except subprocess.TimeoutExpired:
                    rc, out = None, b""
                res.runs.append((rc, out, time.perf_counter() - t0))
    return res


def run_all(jobs: list[tuple[str, str, list[Path]]], workers: int) -> tuple[float, list[BareResult]]:
    """Run (language, code, inputs) jobs on ``workers`` threads; (wall seconds, results)."""
    t0 = time.perf_counter()
    with ThreadPoolExecutor(workers) as pool:
        results = list(pool.map(lambda j: run_submission(*j), jobs))
    return time.perf_counter() - t0, results
