"""Function-call judging across the process boundary, through the service (fake backend:
the real harness program runs as a plain subprocess).

Covers what a correct answer needs from the boundary: TACO ``class Solution`` problems as
imported from a TACO file, mutable arguments, values of every codec type, exceptions the
jury expects, a test too big to copy per call, and the verdict classes of a bad callee.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from problem_store.manifest import FunctionProblem, FunctionTest, Limits
from problem_store.problems import ProblemStore
from problem_store.upload import upload
from tests.verifier.conftest import make_config
from verifier.models import VerifyRequest

TACO = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats" / "taco.jsonl"


@pytest.fixture
def config():
    # These tests read the harness's messages: full feedback on hidden tests too.
    return make_config(feedback="all")


def _add(blobs, pid: str, entry: str, tests: list[str], **kw) -> None:
    ps = ProblemStore(blobs)
    ps.put(FunctionProblem(id=pid, entry_point=entry, limits=Limits(time_limit_s=2.0), tests=tuple(
        FunctionTest(name=f"t{i}", code=blobs.put(t.encode())[0]) for i, t in enumerate(tests)), **kw))


async def _verdict(service, pid: str, code: str):
    r = await service.verify(VerifyRequest(problem_id=pid, language="python", code=code))
    return r.verdict.value, r


async def test_taco_class_solution_problem_as_imported(service, blobs):
    assert upload(TACO, ProblemStore(blobs)).ok
    right = "class Solution:\n    def total(self, xs):\n        return sum(xs)\n"
    wrong = "class Solution:\n    def total(self, xs):\n        return 0\n"
    assert (await _verdict(service, "taco-3", right))[0] == "AC"
    assert (await _verdict(service, "taco-3", wrong))[0] == "WA"
    # A top-level function is accepted too (TACO's own solutions sometimes do that).
    assert (await _verdict(service, "taco-3", "def total(xs):\n    return sum(xs)\n"))[0] == "AC"
    assert (await _verdict(service, "taco-2", "def double(x):\n    return 2 * x\n"))[0] == "AC"


async def test_mutable_arguments_and_every_plain_type(service, blobs):
    _add(blobs, "inplace", "fill", [
        "x = [3, 1, 2]\nassert fill(x) is None\nassert x == [1, 2, 3]\n",
        "big = list(range(2000, 0, -1))\nfill(big)\nassert big == sorted(big)\nbig.append(-1)\n"
        "fill(big)\nassert big[0] == -1\n",
        "d = {'a': [1]}\nfill(d)\nassert d == {'a': [1], 'seen': True}\n"], arguments_in_place=True)
    code = ("def fill(x):\n    if isinstance(x, dict):\n        x['seen'] = True\n    else:\n"
            "        x.sort()\n")
    verdict, r = await _verdict(service, "inplace", code)
    assert verdict == "AC", r.tests
    _add(blobs, "echo", "echo", [
        "for v in [None, True, 0, -2**100, 1.5, float('inf'), 2j, 'é\\udc80', b'\\x00', [1, [2]], (1,),\n"
        "          {1: {2: 3}}, {(1, 2)}, frozenset({4}), [1.0] * 50, ['s'] * 50, tuple(range(50))]:\n"
        "    got = echo(v)\n"
        "    assert got == v and type(got) is type(v), (v, got)\n"
        "nan = float('nan')\nassert echo(nan) != echo(nan)\n"])
    verdict, r = await _verdict(service, "echo", "def echo(v):\n    return v\n")
    assert verdict == "AC", r.tests


async def test_a_candidate_cannot_rewrite_what_the_jury_checks_it_against(service, blobs):
    """Red-team attack: two-sum whose test validates the returned indices against the list it
    passed; the candidate rewrites that list (nums[:] = [target, 0]) instead of searching.
    Unless a problem declares arguments_in_place, the jury's objects stay as it made them, also
    for a large argument sent by reference and for later calls that reuse it."""
    tests = ["nums = [4, 9, 1, 7]\ni, j = two(nums, 16)\nassert nums[i] + nums[j] == 16\n",
             "nums = list(range(1000))\nfor t in (1997, 1001, 3):\n    i, j = two(nums, t)\n"
             "    assert i != j and nums[i] + nums[j] == t\n"]
    _add(blobs, "two", "two", tests)
    hack = "def two(nums, target):\n    nums[:] = [target, 0] + nums[2:]\n    return 0, 1\n"
    honest = ("def two(nums, target):\n    seen = {}\n    for i, x in enumerate(nums):\n"
              "        if target - x in seen:\n            return seen[target - x], i\n        seen[x] = i\n")
    verdict, r = await _verdict(service, "two", hack)
    assert verdict == "WA" and all(t.verdict.value == "WA" for t in r.tests), r.tests
    # the candidate's own copy changed; the next call gets the jury's object again
    sneaky = ("calls = []\ndef two(nums, target):\n    calls.append(list(nums[:3]))\n"
              "    nums[0] = -10**9\n    seen = {}\n    for i, x in enumerate(nums):\n"
              "        if target - x in seen:\n            return seen[target - x], i\n        seen[x] = i\n"
              "    raise ValueError(calls)\n")
    assert (await _verdict(service, "two", honest))[0] == "AC"
    assert (await _verdict(service, "two", sneaky))[0] == "AC"


async def test_exceptions_cross_as_the_same_builtin_type(service, blobs):
    _add(blobs, "raises", "check_age", [
        "try:\n    check_age(-1)\nexcept ValueError as e:\n    assert 'negative' in str(e)\n"
        "else:\n    raise AssertionError('no ValueError')\nassert check_age(3) == 3\n"])
    right = "def check_age(n):\n    if n < 0:\n        raise ValueError('negative age')\n    return n\n"
    assert (await _verdict(service, "raises", right))[0] == "AC"
    verdict, r = await _verdict(service, "raises", "def check_age(n):\n    raise KeyError(n)\n")
    assert verdict == "RE" and "KeyError" in r.tests[0].message
    # The jury catching Exception cannot swallow a candidate that left (exit) mid-call.
    _add(blobs, "swallow", "f", ["try:\n    f()\nexcept Exception:\n    pass\n"])
    assert (await _verdict(service, "swallow", "import os\ndef f():\n    os._exit(0)\n"))[0] == "RE"
    assert (await _verdict(service, "swallow", "def f():\n    raise SystemExit(0)\n"))[0] == "RE"
    assert (await _verdict(service, "swallow", "def f():\n    raise ValueError\n"))[0] == "AC"


async def test_a_failed_assertion_after_caught_candidate_exceptions_is_wa(service, blobs):
    """The jury catches the candidate's expected exceptions, lets them go, then an assertion
    fails: WA. (Hostile review: exceptions were remembered by id(), and the AssertionError
    could be allocated where a freed candidate exception had been, which read as RE.)"""
    _add(blobs, "caught", "f", [
        "for i in range(200):\n    try:\n        f(-i - 1)\n    except ValueError:\n        pass\n"
        "assert f(3) == 9\n"])
    wrong = "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return n\n"
    verdict, r = await _verdict(service, "caught", wrong)
    assert verdict == "WA", r.tests[0].message
    assert "assertion failed" in r.tests[0].message
    right = "def f(n):\n    if n < 0:\n        raise ValueError(n)\n    return n * n\n"
    assert (await _verdict(service, "caught", right))[0] == "AC"


async def test_large_argument_is_sent_once_per_test(service, blobs):
    _add(blobs, "search", "search", [
        "nums = list(range(0, 2 * 10**5, 2))\n"
        "assert all(search(nums, x) == x // 2 for x in range(0, 2 * 10**5, 2 * 997))\n"])
    right = ("def search(nums, t):\n    lo, hi = 0, len(nums) - 1\n    while lo <= hi:\n"
             "        m = (lo + hi) // 2\n        if nums[m] == t:\n            return m\n"
             "        if nums[m] < t:\n            lo = m + 1\n        else:\n            hi = m - 1\n"
             "    return -1\n")
    verdict, r = await _verdict(service, "search", right)
    assert verdict == "AC", r.tests


async def test_jury_problems_are_internal_errors_not_the_candidates(service, blobs):
    # The test names something only the reference defined: it cannot cross the boundary.
    _add(blobs, "pair", "longest", ["assert longest([Pair(1, 2)]) == 1\n"])
    verdict, r = await _verdict(service, "pair", "class Pair:\n    pass\ndef longest(xs):\n    return 1\n")
    assert verdict == "IE" and "Pair" in r.tests[0].message
    _add(blobs, "lambda-arg", "apply", ["assert apply(lambda x: x, 1) == 1\n"])
    verdict, r = await _verdict(service, "lambda-arg", "def apply(f, x):\n    return f(x)\n")
    assert verdict == "IE" and "cannot cross" in r.tests[0].message


@pytest.mark.parametrize("code,verdict", [
    ("def f():\n    while True:\n        pass\n", "TLE"),
    ("def f():\n    return 'x' * (40 << 20)\n", "RE"),  # over the codec's size limit
    ("def f():\n    yield 1\n", "WA"),
    ("import os\nos.close(4)\ndef f():\n    return 1\n", "RE"),
])
async def test_bad_callees(service, blobs, code, verdict):
    _add(blobs, "f", "f", ["assert f() == 1\n"])
    got, r = await _verdict(service, "f", code)
    assert got == verdict, r.tests


@pytest.mark.parametrize("time_limit_s", [0.1, 0.5, 1.0, 1.5, 2.0, 5.0, 10.0])
def test_the_harness_catches_a_stalled_candidate_before_the_runners_idleness_limit(time_limit_s):
    # A candidate that stops reading or answering must be reported by the harness (which
    # says "did not read", "did not answer"), not raced by the runner's idleness limit
    # (the run's CPU limit): the run's limit leaves at least a second over the harness's
    # own waiting budget, which is the harness's wall_limit rule.
    from sandboxes.runner.watch import run_idle_limit
    from verifier.judging.function import harness_limits, harness_wait_s

    run = harness_limits(Limits(time_limit_s=time_limit_s))
    idle = run_idle_limit(run.cpu_time_s, run.wall_time_s)
    assert harness_wait_s(time_limit_s) == max(3 * time_limit_s, time_limit_s + 2)
    assert idle is None or idle >= harness_wait_s(time_limit_s) + 1
    assert run.wall_time_s >= harness_wait_s(time_limit_s) + 1
    assert run.cpu_time_s >= 2 * time_limit_s + 1  # the jury's room is never cut
