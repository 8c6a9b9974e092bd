"""Math answers: run the math judge off the event loop and map its verdict.

The judge (verifier.math) is synchronous; its sympy stage runs in worker processes that
are killed at the per-call budget. A prediction that cannot be judged within its budget or
is too large is the prediction's fault: not equivalent (WA, reward 0, reason
``timeout``/``too_large``). Only a judge error (unreadable gold, crashed worker, the
backstop below firing) means we could not decide: IE with reward None.
"""

from __future__ import annotations

import asyncio

from verifier.executors import ClassSaturated
from verifier.models import MathVerifyResponse, TestVerdict, Verdict


def _judge_sync(gold: str, prediction: str, timeout_s: float, extract: bool,
                require_box: bool, form: str = "value") -> MathVerifyResponse:
    from verifier.math import judge  # imported late: keeps the import graph light

    v = judge(gold, prediction, timeout_s=timeout_s, extract=extract, require_box=require_box, form=form)
    failed = bool(getattr(v, "error", None))
    return MathVerifyResponse(
        equivalent=None if failed else bool(v.equivalent),
        extracted=_s(getattr(v, "extracted", None)),
        gold_parsed=_s(getattr(v, "gold_parsed", None)),
        prediction_parsed=_s(getattr(v, "prediction_parsed", None)),
        reason=str(getattr(v, "reason", "") or ""),
        error=_s(getattr(v, "error", None)),
        timed_out=bool(getattr(v, "timed_out", False)))


def _s(x) -> str | None:
    return None if x is None else str(x)


async def judge_math(gold: str, prediction: str, timeout_s: float,
                     extract: bool = True, require_box: bool = False, run=None,
                     form: str = "value") -> MathVerifyResponse:
    """``run``: how to call the blocking judge off the loop (the service's math work class)."""
    run = run or asyncio.to_thread
    try:
        # The outer wait is a backstop in case the judge's own timeout does not fire
        # (a worker start-up is not part of timeout_s, hence the margin; a held answer's
        # budget is stretched by the held time, up to MAX_STRETCH x: verifier.foreground).
        from verifier.math.pool import MAX_STRETCH

        return await asyncio.wait_for(
            run(_judge_sync, gold, prediction, timeout_s, extract, require_box, form),
            timeout=timeout_s * (1 + MAX_STRETCH) + 30.0)
    except asyncio.TimeoutError:
        return MathVerifyResponse(equivalent=None, reason="judge timed out", timed_out=True,
                                  error="math judge did not answer in time")
    except ClassSaturated:
        raise  # every math thread busy (calls of requests already gone): 503, retry later
    except Exception as exc:  # noqa: BLE001 - the judge failing is ours, not the answer's
        return MathVerifyResponse(equivalent=None, reason="judge failed", error=repr(exc))


def math_test_verdict(result: MathVerifyResponse) -> TestVerdict:
    if result.equivalent is None:
        verdict = Verdict.IE
    else:
        verdict = Verdict.AC if result.equivalent else Verdict.WA
    tv = TestVerdict(name="answer", verdict=verdict,
                     message=result.error or result.reason or "")
    tv.max_points = 1.0
    tv.points = 1.0 if verdict == Verdict.AC else 0.0
    return tv
