"""A math call whose request is gone (deadline) keeps its worker until it returns; a request
that then finds every math thread busy gets 503 (retry later), never IE for a right answer
(red-team finding: it used to wait behind the abandoned calls until the judge's backstop
fired and came back as IE, reward null)."""

from __future__ import annotations

import asyncio

import pytest

from tests.verifier.conftest import make_config
from tests.verifier.fakes import FakeBackend
from verifier.errors import DeadlineExceeded
from verifier.executors import ClassSaturated
from verifier.judging.math import judge_math
from verifier.models import MathVerifyRequest
from verifier.service import VerifierService
from verifier.work_classes import WorkConfig

HANGING = r"\boxed{\sum_{k=1}^{10^{6}} k^{k}}"


async def test_busy_math_threads_are_503_not_ie(blobs):
    cfg = make_config(self_test=False, request_deadline_s=1.0,
                      work_classes=WorkConfig(math_workers=1))
    svc = VerifierService(cfg, FakeBackend(blobs, capacity=1), blobs)
    await svc.start()
    try:
        # one math thread per sympy worker: the regular one and the reserve
        assert svc.work.math_capacity == 2
        for n in (1, 2):
            with pytest.raises(DeadlineExceeded):  # its request is gone; its call runs on
                await svc.math_verify(MathVerifyRequest(gold="5", prediction=HANGING, timeout_s=20))
            assert svc.work.math.pending == n
        with pytest.raises(ClassSaturated):  # 503 + Retry-After, not a verdict of any kind
            await svc.math_verify(MathVerifyRequest(gold=r"\frac{\sqrt{2}}{2}", prediction=r"\frac{1}{\sqrt{2}}"))
        # an answer decided without sympy needs no math thread at all
        fast = await svc.math_verify(MathVerifyRequest(gold="1/2", prediction="0.5"))
        assert fast.equivalent is True
    finally:
        await svc.close()


async def test_judge_math_passes_saturation_on_and_keeps_ie_for_judge_failures():
    async def saturated(*a):
        raise ClassSaturated("math threads busy", 1)

    async def broken(*a):
        raise RuntimeError("worker pipe closed")

    with pytest.raises(ClassSaturated):
        await judge_math("1", "1", 5.0, run=saturated)
    r = await judge_math("1", "1", 5.0, run=broken)
    assert r.equivalent is None and r.error  # a judge failure stays IE
