"""The judge: one submission in, a VerifyResponse out. Wires the per-kind judges together.

Knows nothing about HTTP or admission; the service calls it once a judging slot is held (for
a math problem, the slot is taken only if the answer needs a sympy worker: ``MATH_SLOT``).
"""

from __future__ import annotations

import time

from problem_store.manifest import FunctionProblem, MathProblem, StdioProblem
from verifier.judging.function import FunctionJudge
from verifier.judging.math import judge_math, math_test_verdict
from verifier.judging.stdio import StdioJudge
from verifier.judging.verdicts import overall_verdict, reward
from verifier.models import CompileInfo, VerifyOptions, VerifyResponse


class Judge:
    def __init__(self, stdio: StdioJudge, function: FunctionJudge, math_timeout_s: float,
                 math_run=None, math_fast_run=None):
        self.stdio = stdio
        self.function = function
        self.math_timeout_s = math_timeout_s
        self.math_run = math_run  # the service's math work class (None: a default thread)
        self.math_fast_run = math_fast_run  # threads for what needs no sympy worker (None: none)

    async def judge(self, problem, language: str, code: str, tests: list,
                    options: VerifyOptions) -> VerifyResponse:
        t0 = time.perf_counter()
        compile_info: CompileInfo | None = None
        math = None
        if isinstance(problem, StdioProblem):
            compile_info, verdicts = await self.stdio.judge(
                problem, tests, language, code, options.stop_on_first_failure)
        elif isinstance(problem, FunctionProblem):
            compile_info, verdicts = await self.function.judge(
                problem, tests, code, options.stop_on_first_failure)
        elif isinstance(problem, MathProblem):
            math = await judge_math(problem.answer, code, self.math_timeout_s,
                                    run=self.math_run, form=problem.answer_form,
                                    fast_run=self.math_fast_run)
            verdicts = [math_test_verdict(math)]
        else:  # pragma: no cover - the manifest union is closed
            raise TypeError(f"unknown problem kind {type(problem).__name__}")
        compile_failed = compile_info is not None and compile_info.status == "CE"
        overall = overall_verdict(verdicts, compile_failed)
        message = ""
        if overall.value == "IE":
            message = next((v.message for v in verdicts if v.verdict.value == "IE"),
                           "internal error") or "internal error"
        elif compile_failed:
            message = (compile_info.log or "compilation failed")[:2000]
        return VerifyResponse(problem_id=problem.id, kind=problem.kind, verdict=overall,
                              reward=reward(options.reward, verdicts, overall), tests=verdicts,
                              compile=compile_info, message=message, math=math,
                              time_s=round(time.perf_counter() - t0, 4))
