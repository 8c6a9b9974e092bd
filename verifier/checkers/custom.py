"""Custom testlib-style checker binaries, run in the sandbox as ``checker input output answer``.

Exit codes follow testlib: 0 OK, 1 WA, 2 PE, 3 FAIL, 7 points (absolute: ``quitp(3)`` on a
test worth 10 earns 3 of 10, see verdicts.fill_points). FAIL means the checker (the
jury's code) found something impossible: that is an internal error, never WA (DMOJ's
contrib/testlib.py makes the same call). A checker that crashes, times out or exits with any
other code is also IE: we could not judge, so we say so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sandboxes.types import Artifact, Batch, Blob, RunLimits, RunResult, RunSpec, Status
from verifier.checkers.builtin import CheckOutcome

CHECKER_LIMITS = RunLimits(cpu_time_s=10.0, wall_time_s=20.0, memory_mb=512,
                           output_bytes=64 << 10, max_processes=4)
# testlib's quitp writes "points <value> <message>" to stderr (the value alone first, in
# older versions or hand-written checkers); only the start of the text counts.
_POINTS_RE = re.compile(r"\s*+(?:points\s++)?+([+-]?+(?:\d++(?:\.\d*+)?+|\.\d++)(?:[eE][+-]?+\d++)?+)(?!\S)")


@dataclass(frozen=True)
class CheckJob:
    """One output to check: names and data/links of the three files."""

    name: str
    input: Blob
    output: Blob
    answer: Blob | None


def checker_batch(binary_link: str, jobs: list[CheckJob]) -> Batch:
    runs = []
    for job in jobs:
        files = {"input.txt": job.input, "output.txt": job.output,
                 "answer.txt": job.answer or Blob(data=b"")}
        runs.append(RunSpec(id=job.name, args=["input.txt", "output.txt", "answer.txt"],
                            files=files, limits=CHECKER_LIMITS))
    return Batch(program=Artifact(language="binary", blob=Blob(link=binary_link)), runs=runs)


def _message(run: RunResult) -> str:
    text = (run.stderr or b"").decode("utf-8", "replace").strip()
    if not text and run.stdout:
        text = run.stdout.decode("utf-8", "replace").strip()
    return text[:1000]


def parse_points(text: str) -> float | None:
    """The points a checker awarded, from its 'points <value> <message>' text."""
    m = _POINTS_RE.match(text)
    return float(m.group(1)) if m else None


def outcome_of(run: RunResult) -> CheckOutcome:
    """Map one checker run to a verdict; anything but a clean testlib exit is IE."""
    msg = _message(run)
    if run.status == Status.OK:
        return CheckOutcome("AC", msg)
    if run.status != Status.RE or run.signal is not None or run.exit_code is None:
        return CheckOutcome("IE", f"checker failed to run ({run.status.value}): "
                                  f"{run.message or msg}".strip())
    code = run.exit_code
    if code == 1:
        return CheckOutcome("WA", msg)
    if code == 2:
        return CheckOutcome("PE", msg)
    if code == 3:
        return CheckOutcome("IE", f"checker FAIL: {msg}")
    if code == 7:
        pts = parse_points(msg)
        if pts is None:
            return CheckOutcome("IE", f"checker exited 7 (points) without a score: {msg}")
        # Absolute points, as on Polygon; fill_points compares them with the test's worth
        # and settles the verdict (AC only with every point earned).
        return CheckOutcome("AC", msg, points=pts)
    return CheckOutcome("IE", f"checker exited with unexpected code {code}: {msg}")
