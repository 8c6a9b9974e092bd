"""Verdict arithmetic: sandbox status -> verdict, the overall verdict, and the reward rules.

IE is contagious on purpose: if any test could not be judged, the submission as a whole was
not judged, so the overall verdict is IE and the reward is None (the RL loop drops or retries
the sample; scoring it 0 would teach the policy that correct code is wrong).
"""

from __future__ import annotations

from sandboxes.types import RunResult, Status
from verifier.models import RewardRule, TestVerdict, Verdict

_STATUS_TO_VERDICT = {
    Status.TLE: Verdict.TLE,
    Status.MLE: Verdict.MLE,
    Status.OLE: Verdict.OLE,
    Status.RE: Verdict.RE,
    Status.CE: Verdict.CE,
    Status.IE: Verdict.IE,
}


def run_failure_verdict(run: RunResult) -> Verdict | None:
    """The verdict of a run that failed before any checking (None: it ran OK)."""
    if run.skipped:
        return Verdict.SKIPPED
    if run.status == Status.OK:
        return None
    return _STATUS_TO_VERDICT[run.status]


def run_message(run: RunResult) -> str:
    if run.message:
        return run.message
    if run.status == Status.RE:
        if run.signal is not None:
            return f"killed by signal {run.signal}"
        return f"exit code {run.exit_code}"
    return ""


def overall_verdict(tests: list[TestVerdict], compile_failed: bool = False) -> Verdict:
    """IE if any IE; else CE; else the first non-AC, non-SKIPPED test's verdict; else AC."""
    if any(t.verdict == Verdict.IE for t in tests):
        return Verdict.IE
    if compile_failed:
        return Verdict.CE
    for t in tests:
        if t.verdict not in (Verdict.AC, Verdict.SKIPPED):
            return t.verdict
    if tests and all(t.verdict == Verdict.SKIPPED for t in tests):
        return Verdict.IE  # nothing was judged: not an accept
    return Verdict.AC


def reward(rule: RewardRule, tests: list[TestVerdict], overall: Verdict) -> float | None:
    """Reward in [0, 1], or None when the submission was not judged (IE)."""
    if overall == Verdict.IE:
        return None
    if not tests:
        return 1.0 if overall == Verdict.AC else 0.0
    if rule == "all_pass":
        return 1.0 if overall == Verdict.AC else 0.0
    if rule == "fraction":
        return sum(t.verdict == Verdict.AC for t in tests) / len(tests)
    total = sum(t.max_points if t.max_points is not None else 1.0 for t in tests)
    earned = sum(t.points or 0.0 for t in tests)
    return earned / total if total > 0 else 0.0


def fill_points(test: TestVerdict, max_points: float | None, awarded: float | None) -> None:
    """Set earned points: all of them on AC, 0 on any other verdict, or a checker's award.

    A checker's points (testlib ``quitp``) are absolute, as on Polygon: ``quitp(3)`` on a test
    worth 10 earns 3, and a test without declared points is worth 1. With points awarded the
    verdict is AC only when every point was earned, else WA. An award outside [0, worth] is
    the jury's inconsistency, so IE (never a silent cap that would hide it).
    """
    test.max_points = max_points if max_points is not None else 1.0
    if awarded is None:
        test.points = test.max_points if test.verdict == Verdict.AC else 0.0
        return
    if test.verdict != Verdict.AC:
        test.points = 0.0
        return
    if not 0.0 <= awarded <= test.max_points + _POINTS_SLACK:
        test.verdict = Verdict.IE
        test.message = (f"checker awarded {awarded:g} points on a test worth {test.max_points:g}: "
                        f"{test.message}")[:1000]
        test.points = 0.0
        return
    test.points = min(awarded, test.max_points)
    if test.points < test.max_points - _POINTS_SLACK:
        test.verdict = Verdict.WA


# testlib prints points with 10 decimals; a checker computing 10 * (7/7) may print 9.9999999999.
_POINTS_SLACK = 1e-6
