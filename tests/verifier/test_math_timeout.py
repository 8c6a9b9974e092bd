"""Time and size limits are the prediction's fault: an answer too large to evaluate is
refused at once (reason too_large) and one too slow is killed at its per-call budget
(reason timeout); both are "not equivalent", never an internal error. Timeouts work from
any thread (no SIGALRM), and the pool keeps serving."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from verifier.math import get_pool, judge, set_pool
from verifier.math.pool import PoolTimeout, WorkerPool

# Startup of a replacement worker (importing sympy) is not part of timeout_s; on this
# shared 2-core machine it can take a few seconds, hence the margin.
MARGIN_S = 10.0


def _in_thread(fn):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()))
    t.start()
    t.join(120)
    assert not t.is_alive()
    return box["v"]


@pytest.mark.parametrize("pathological", ["10^{10^{10^{10}}}", "10^10^10^10", "(10^{10})!",
                                          "(10^{100})!", "2^{2^{2^{2^{2}}}}"])
def test_too_large_prediction_is_wrong_at_once_not_an_error(pathological):
    """The size guard refuses it before any worker is involved: reward 0, no IE."""
    t0 = time.monotonic()
    v = _in_thread(lambda: judge("5", pathological, timeout_s=1.0))
    assert v.equivalent is False and v.reason == "too_large" and v.error is None
    assert time.monotonic() - t0 < 1.0  # no budget spent: nothing was evaluated


def test_slow_prediction_times_out_as_not_equivalent_in_a_non_main_thread():
    """A prediction that passes the size guard but is slow to compare (a trigonometric
    power sympy must simplify: over 40 s here) is killed at its budget: not equivalent, reason timeout."""
    get_pool().warm_up()
    kills_before = get_pool().kills
    timeout_s = 1.0
    t0 = time.monotonic()
    v = _in_thread(lambda: judge("1", r"(\sin^2 x+\cos^2 x)^{3000}", timeout_s=timeout_s))
    elapsed = time.monotonic() - t0
    assert v.equivalent is False and v.timed_out and v.reason == "timeout" and v.error is None
    assert elapsed < timeout_s + MARGIN_S
    assert get_pool().kills > kills_before
    # the pool stays usable, from this thread and others
    assert judge(r"\sqrt{8}", r"2\sqrt{2}", timeout_s=30).equivalent
    assert _in_thread(lambda: judge("x^2-1", "(x-1)(x+1)", timeout_s=30)).equivalent


def test_the_budget_is_per_call():
    """The same slow prediction within a generous budget is judged on its merits."""
    v = judge("1", r"(\sin^2 x+\cos^2 x)^{20}", timeout_s=60)
    assert v.equivalent is True and not v.timed_out


def test_a_gold_answer_too_large_is_an_error():
    v = judge("10^{10^{10^{10}}}", "5")
    assert v.equivalent is False and v.error is not None


def test_fast_path_does_not_touch_the_pool():
    pool = WorkerPool(size=1)
    set_pool(pool)
    try:
        for g, p in [("1/2", "0.5"), ("1,000", "1000"), (r"\{1,2\}", "2, 1"), ("50%", "0.5")]:
            assert judge(g, p).equivalent
        assert pool._workers == set()  # nothing was started
    finally:
        set_pool(None)


def test_pool_kills_and_replaces_a_worker_over_its_timeout():
    pool = WorkerPool(size=1)
    try:
        req = {"gold": ["num", 1, 0], "pred": ["func", "factorial", [["num", 10 ** 10, 0]]]}
        req["pred"] = ["fact", ["num", 10 ** 10, 0]]
        with pytest.raises(PoolTimeout):
            pool.call(req, 0.5)
        assert pool.kills == 1
        res = pool.call({"gold": ["num", 2, 0], "pred": ["num", 2, 0]}, 30)
        assert res["ok"] and res["equal"]
    finally:
        pool.shutdown()


def test_a_crashed_worker_is_an_error_and_is_replaced():
    pool = WorkerPool(size=1)
    set_pool(pool)
    try:
        assert judge("x+1", "1+x", timeout_s=30).equivalent  # starts the worker
        (worker,) = pool._workers
        os.kill(worker.proc.pid, signal.SIGKILL)
        worker.proc.wait()
        v = judge("x+2", "2+x", timeout_s=30)  # dead worker noticed before use: replaced
        assert v.equivalent and v.error is None
    finally:
        set_pool(None)
