"""Function-call judging on a real backend, for the reward-hack suite.

``FnJudging(backend)`` judges a submission against small real function problems through
the verifier's own ``FunctionJudge`` on that backend. The ``secret`` problems can only be
passed by returning a random token that exists nowhere but in the stored test code, so an
accept proves the candidate reached the jury's side; ``add`` checks the backend still
judges an honest answer.
"""

from __future__ import annotations

import secrets

from problem_store.importers.code_jsonl import _TACO_SETUP
from problem_store.manifest import FunctionProblem, FunctionTest, Limits
from verifier.judging.compile_cache import CompileCache
from verifier.judging.execution import Executor
from verifier.judging.function import FunctionJudge
from verifier.models import Verdict

SECRET = "fnsecret-" + secrets.token_hex(12)
# An honest answer for every secret problem (it knows the token: nothing else can).
SECRET_AC = f"def answer():\n    return {SECRET!r}\n"
ADD_AC = "def add(a, b):\n    return a + b\n"


class FnJudging:
    def __init__(self, handle):
        self.handle = handle
        self.judge = FunctionJudge(Executor(handle.backend, CompileCache(8)))
        put = lambda text: handle.store.put(text.encode())[0]  # noqa: E731
        lim = Limits(time_limit_s=1.0, memory_mb=256)
        self.problems = {
            "secret-asserts": FunctionProblem(
                id="secret-asserts", entry_point="answer", harness="asserts", limits=lim,
                tests=(FunctionTest(name="t1", code=put(f"assert answer() == {SECRET!r}\n")),)),
            "secret-humaneval": FunctionProblem(
                id="secret-humaneval", entry_point="answer", harness="humaneval", limits=lim,
                prompt="def answer():\n    \"\"\"Return the token.\"\"\"\n",
                tests=(FunctionTest(name="check", code=put(
                    f"def check(candidate):\n    assert candidate() == {SECRET!r}\n")),)),
            "secret-taco": FunctionProblem(
                id="secret-taco", entry_point="answer", entry_class="Solution", harness="asserts",
                setup_code=_TACO_SETUP, limits=lim,
                tests=(FunctionTest(name="01", code=put(
                    f"_got = answer()\nassert _taco_matches(_got, {SECRET!r}), 'wrong'\n")),)),
            "add": FunctionProblem(
                id="add", entry_point="add", harness="asserts", limits=lim,
                tests=(FunctionTest(name="t1", code=put("assert add(2, 3) == 5\nassert add(-1, 1) == 0\n")),
                       FunctionTest(name="t2", code=put("assert add(10**20, 1) == 10**20 + 1\n")))),
            # "add" with a short CPU limit: a run that must pass it in processes it started
            # crosses it within its wall budget (3 x 0.4 s, at least +2 s) even on a busy
            # machine, where 1 s of CPU in 3 s of wall once did not
            "add-short": FunctionProblem(
                id="add-short", entry_point="add", harness="asserts",
                limits=Limits(time_limit_s=0.4, memory_mb=256),
                tests=(FunctionTest(name="t1", code=put("assert add(2, 3) == 5\n")),)),
            # the candidate's return value goes back to it (r = f(f(x)))
            "round-trip": FunctionProblem(
                id="round-trip", entry_point="rotate", harness="asserts", limits=lim,
                tests=(FunctionTest(name="t1", code=put(
                    "r = [[1, 2], [3, 4]]\nfor _ in range(4):\n    r = rotate(r)\n"
                    "assert r == [[1, 2], [3, 4]]\n")),)),
            # one request larger than a pipe's buffer (a 60,000-element list)
            "big-arg": FunctionProblem(
                id="big-arg", entry_point="total", harness="asserts", limits=lim,
                tests=(FunctionTest(name="t1", code=put(
                    "xs = list(range(60000))\n"
                    "assert total(xs) == sum(xs)\n")),)),
            # jury code in the style of imported test lists: the calls happen inside map()
            "add-map": FunctionProblem(
                id="add-map", entry_point="add", harness="asserts", limits=lim,
                tests=(FunctionTest(name="t1", code=put(
                    "cases = [((2, 3), 5), ((-1, 1), 0)]\n"
                    "assert all(map(lambda c: add(*c[0]) == c[1], cases))\n")),)),
        }

    def run(self, problem: str, code: str, timeout: float = 120):
        p = self.problems[problem]
        coro = self.judge.judge(p, list(p.tests), code, stop_first=False)
        _compile, verdicts = self.handle._loop.call(coro, timeout)
        return verdicts

    def overall(self, problem: str, code: str) -> tuple[Verdict, list]:
        verdicts = self.run(problem, code)
        bad = [v for v in verdicts if v.verdict != Verdict.AC]
        return (bad[0].verdict if bad else Verdict.AC), verdicts

    def assert_healthy(self) -> None:
        """After an attack: honest answers to a secret problem and to add are still AC."""
        for problem, code in (("secret-asserts", SECRET_AC), ("add", ADD_AC)):
            verdict, verdicts = self.overall(problem, code)
            assert verdict == Verdict.AC, f"{self.handle.name}: honest {problem} not AC: {verdicts}"
