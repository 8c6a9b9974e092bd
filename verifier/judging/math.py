"""Math answers: run the math judge off the event loop and map its verdict.

The judge (verifier.math) is synchronous; its sympy stage runs in worker processes that
are killed at the per-call budget. A prediction that cannot be judged within its budget or
is too large is the prediction's fault: not equivalent (WA, reward 0, reason
``timeout``/``too_large``). Only a judge error (unreadable gold, crashed worker, the
backstop below firing) means we could not decide: IE with reward None.
"""

from __future__ import annotations

import asyncio
import contextlib
from contextvars import ContextVar

from verifier.executors import ClassSaturated
from verifier.models import MathVerifyResponse, TestVerdict, Verdict


# The math slot a request takes only when its answer needs a sympy worker: set by the
# service (a factory of ``async with`` slots), read here. Unset: the caller holds one already.
MATH_SLOT: ContextVar = ContextVar("math_slot", default=None)


def _judge_sync(gold: str, prediction: str, timeout_s: float, extract: bool,
                require_box: bool, form: str = "value",
                fast_only: bool = False) -> MathVerifyResponse | None:
    """The judge's verdict as a response; with ``fast_only``, None when it needs a worker."""
    from verifier.math import NeedsWorker, judge  # imported late: keeps the import graph light

    try:
        v = judge(gold, prediction, timeout_s=timeout_s, extract=extract, require_box=require_box,
                  form=form, fast_only=fast_only)
    except NeedsWorker:
        return None
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
                     form: str = "value", fast_run=None) -> MathVerifyResponse:
    """``run``: how to call the blocking judge off the loop (the service's math work class).

    ``fast_run`` (the service's request threads): first decide what needs no sympy worker
    (extraction, exact rationals, text, times, ...; linear in the answer) there, without a
    math slot, so that answers that hold every sympy worker for their whole budget do not
    make another client's ``1/2`` vs ``0.5`` wait (hostile review: 6-25 s). Only an answer
    that needs a worker then waits for a slot (``MATH_SLOT``) and the math threads."""
    run = run or asyncio.to_thread
    if fast_run is not None:
        try:
            fast = await fast_run(_judge_sync, gold, prediction, timeout_s, extract, require_box,
                                  form, True)
        except ClassSaturated:
            raise
        except Exception as exc:  # noqa: BLE001 - the judge failing is ours, not the answer's
            return MathVerifyResponse(equivalent=None, reason="judge failed", error=repr(exc))
        if fast is not None:
            return fast
    slot = MATH_SLOT.get()
    async with (slot() if slot is not None else contextlib.nullcontext()):
        return await _judge_in_worker(gold, prediction, timeout_s, extract, require_box, form, run)


async def _judge_in_worker(gold, prediction, timeout_s, extract, require_box, form, run):
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
