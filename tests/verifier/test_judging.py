"""Judging logic through the service core (FakeBackend runs real Python subprocesses)."""

import pytest

from problem_store.problems import ProblemStore
from sandboxes.backends.base import SandboxError
from tests.verifier.conftest import SUM_AC, SUM_WA
from verifier.errors import InvalidRequest, TooLarge, UnknownProblem, UnsupportedLanguage
from verifier.models import VerifyOptions, VerifyRequest


def req(pid="sum", code=SUM_AC, language="python", **opts):
    return VerifyRequest(problem_id=pid, language=language, code=code, options=VerifyOptions(**opts))


async def test_accepted_solution(service):
    r = await service.verify(req())
    assert r.verdict == "AC" and r.reward == 1.0
    assert [t.verdict for t in r.tests] == ["AC"] * 4
    assert r.compile.status in ("OK", "CACHED")  # the self-test compiled the same A+B


async def test_wrong_answer_and_reward_rules(service):
    # a - b is right only when b == 0: tests 04 (0 0) passes.
    r = await service.verify(req(code=SUM_WA))
    assert r.verdict == "WA" and r.reward == 0.0
    assert [t.verdict for t in r.tests] == ["WA", "WA", "WA", "AC"]
    assert (await service.verify(req(code=SUM_WA, reward="fraction"))).reward == 0.25
    # points: tests carry 1, 2, 3, 4 points; only the 4-point test passes.
    assert (await service.verify(req(code=SUM_WA, reward="points"))).reward == pytest.approx(0.4)


async def test_stop_on_first_failure_marks_rest_skipped(service):
    r = await service.verify(req(code=SUM_WA, stop_on_first_failure=True))
    assert [t.verdict for t in r.tests] == ["WA", "SKIPPED", "SKIPPED", "SKIPPED"]
    assert r.verdict == "WA"


async def test_runtime_failure_skips_rest_and_checker_never_sees_failed_run(service, backend):
    code = "a, b = map(int, input().split())\nassert b != 5\nprint(a + b)\n"
    r = await service.verify(req(code=code, stop_on_first_failure=True))
    assert [t.verdict for t in r.tests] == ["AC", "RE", "SKIPPED", "SKIPPED"]


async def test_test_subset(service, backend):
    r = await service.verify(req(tests=["03"]))
    assert [t.name for t in r.tests] == ["03"] and r.verdict == "AC"
    with pytest.raises(InvalidRequest, match="nope"):
        await service.verify(req(tests=["03", "nope"]))


async def test_compile_error_is_ce_and_cached(service, backend):
    bad = "def (:\n"
    r = await service.verify(req(code=bad))
    assert r.verdict == "CE" and r.reward == 0.0 and "SyntaxError" in r.message
    assert all(t.verdict == "SKIPPED" for t in r.tests)
    before = backend.batches
    r2 = await service.verify(req(code=bad))
    assert r2.verdict == "CE" and backend.batches == before  # cached: no sandbox call


async def test_compile_once_then_artifact_reused(service, backend):
    c0 = backend.compiles
    await service.verify(req(code=SUM_AC + "# variant\n"))
    await service.verify(req(code=SUM_AC + "# variant\n"))
    assert backend.compiles == c0 + 1


async def test_backend_failure_is_ie_with_null_reward(service, backend):
    backend.fail = SandboxError("all slots lost")
    r = await service.verify(req(code=SUM_AC + "# fresh\n"))
    assert r.verdict == "IE" and r.reward is None and "all slots lost" in r.message


async def test_custom_checker_exit_codes(service):
    r = await service.verify(req("sum-custom"))
    assert r.verdict == "AC"
    r = await service.verify(req("sum-custom", code=SUM_WA))
    assert [t.verdict for t in r.tests] == ["WA", "WA", "WA", "AC"]
    r = await service.verify(req("sum-custom", code="print('x')"))
    assert r.verdict == "PE"
    # exit 3 (FAIL) is the jury's failure: IE and no reward, never WA.
    r = await service.verify(req("sum-custom", code="print('FAIL')"))
    assert r.verdict == "IE" and r.reward is None and "jury is confused" not in r.message
    service.config.feedback = "all"  # a deployment that returns checker text in full
    r = await service.verify(req("sum-custom", code="print('FAIL')"))
    assert r.verdict == "IE" and r.reward is None and "FAIL" in r.message
    service.config.feedback = "samples"
    # exit 7: points are absolute (Polygon's convention): 0.5 on each of the tests worth 1..4.
    r = await service.verify(req("sum-custom", code="print('HALF')", reward="points"))
    assert [t.points for t in r.tests] == [0.5] * 4 and [t.max_points for t in r.tests] == [1, 2, 3, 4]
    assert r.reward == pytest.approx(2.0 / 10) and r.verdict == "WA"


async def test_quitp_points_are_absolute(service):
    # The tests are worth 1, 2, 3 and 4 points; the checker says quitp(3) on each.
    service.config.feedback = "all"  # to read the IE's reason (hidden tests withhold it)
    r = await service.verify(req("sum-custom", code="print('POINTS 3')", reward="points"))
    service.config.feedback = "samples"
    by_name = {t.name: t for t in r.tests}
    # 3 on a test worth 3 is every point: AC. On a test worth 4: 3 of 4, WA.
    assert (by_name["03"].verdict, by_name["03"].points) == ("AC", 3.0)
    assert (by_name["04"].verdict, by_name["04"].points) == ("WA", 3.0)
    # 3 on a test worth 1 or 2 is more than the test holds: the jury's inconsistency, IE.
    assert by_name["01"].verdict == "IE" and "worth 1" in by_name["01"].message
    assert by_name["02"].verdict == "IE"
    assert r.verdict == "IE" and r.reward is None


async def test_quitp_full_and_zero_points(service):
    r = await service.verify(req("sum-custom", code="print('POINTS 0')", reward="points"))
    assert [t.verdict for t in r.tests] == ["WA"] * 4 and r.reward == 0.0
    r = await service.verify(req("sum-custom", code="print('POINTS 1')", reward="points"))
    assert [t.verdict for t in r.tests] == ["AC", "WA", "WA", "WA"]
    assert r.reward == pytest.approx(4 / 10)


async def test_function_problem_asserts(service):
    ok = await service.verify(req("add-fn", code="def add(a, b):\n    return a + b\n"))
    assert ok.verdict == "AC" and [t.verdict for t in ok.tests] == ["AC", "AC"]
    wa = await service.verify(req("add-fn", code="def add(a, b):\n    return abs(a) + abs(b)\n"))
    assert [t.verdict for t in wa.tests] == ["AC", "WA"]
    re_ = await service.verify(req("add-fn", code="def add(a, b):\n    return a + b + None\n"))
    assert re_.verdict == "RE"
    missing = await service.verify(req("add-fn", code="def plus(a, b):\n    return a + b\n"))
    assert missing.verdict == "RE" and missing.tests[0].message.startswith("runtime error")
    service.config.feedback = "all"
    missing = await service.verify(req("add-fn", code="def plus(a, b):\n    return a + b\n"))
    assert missing.verdict == "RE" and "add" in missing.tests[0].message
    service.config.feedback = "samples"
    ce = await service.verify(req("add-fn", code="def add(a, b) return\n"))
    assert ce.verdict == "CE" and ce.reward == 0.0


async def test_function_problem_early_exit_is_not_accepted(service):
    r = await service.verify(req("add-fn", code="import os\nos._exit(0)\n"))
    assert r.verdict == "RE"
    r = await service.verify(req("add-fn", code="import sys\ndef add(a, b):\n    sys.exit(0)\n"))
    assert r.verdict == "RE"


async def test_function_problem_humaneval(service):
    assert (await service.verify(req("add-he", code="def add(a, b): return a + b"))).verdict == "AC"
    assert (await service.verify(req("add-he", code="def add(a, b): return a * b"))).verdict == "WA"


async def test_function_problem_only_python(service):
    with pytest.raises(UnsupportedLanguage):
        await service.verify(req("add-fn", language="cpp", code="int main(){}"))


async def test_client_errors(service):
    with pytest.raises(UnknownProblem):
        await service.verify(req("no-such-problem"))
    with pytest.raises(UnsupportedLanguage, match="cobol"):
        await service.verify(req(language="cobol"))
    with pytest.raises(TooLarge):
        await service.verify(req(code="#" * (service.config.max_code_bytes + 1)))


async def test_lone_surrogate_code_is_rejected_not_ie(service):
    # Reaches the core only through the embedded client (HTTP JSON parsing rejects it first).
    with pytest.raises(InvalidRequest, match="surrogate"):
        await service.verify(req(code="print(1)\ud800"))


@pytest.mark.parametrize("pid", ["sum", "sum-custom"])
async def test_an_output_far_larger_than_the_answer_is_ole_not_ie(service, pid):
    """Red-team attack: 32 MiB of "1 " under the 64 MiB cap made custom checkers fail (IE,
    reward null, dropped by the RL loop) and built-in checks time out. Such an output is OLE
    before any checker reads it; an output within 16x the answer + 1 MiB is still judged."""
    from verifier.models import VerifyRequest

    big = "import sys\nsys.stdout.write('1 ' * (3 << 20))\n"
    r = await service.verify(VerifyRequest(problem_id=pid, language="python", code=big,
                                           options={"reward": "fraction"}))
    assert r.verdict.value == "OLE" and r.reward == 0.0, r
    assert all(t.verdict.value == "OLE" for t in r.tests), r.tests
    small = "import sys\nsys.stdout.write('1 ' * (200 << 10))\n"  # 400 KB: judged, wrong
    r = await service.verify(VerifyRequest(problem_id=pid, language="python", code=small))
    assert r.verdict.value in ("WA", "PE"), r


@pytest.mark.parametrize("pid", ["sum", "sum-custom"])
async def test_a_flood_is_cut_in_the_sandbox_at_the_checkers_budget(service, backend, blobs, pid):
    """Code review 4: every byte a run writes under the problem's 64 MiB cap came back to the
    service (4 floods held its event loop 0.5-0.7 s). Each test's run now carries the most its
    checker may read (16x the answer + 1 MiB) as its output cap, so the sandbox cuts a flood
    there (OLE at the cap: tests/security/test_attacks.py) and never hands it back."""
    from verifier.judging.stdio import output_budget
    from verifier.models import VerifyRequest

    flood = "import sys\nsys.stdout.write('1 ' * (2 << 20))\n"
    r = await service.verify(VerifyRequest(problem_id=pid, language="python", code=flood,
                                           options={"reward": "fraction"}))
    assert r.verdict.value == "OLE" and r.reward == 0.0, r
    tests = {t.name: t for t in ProblemStore(blobs).get(pid).tests}
    seen = [s for s in backend.specs if s.id in tests]
    assert len(seen) == len(tests)
    for spec in seen:
        answer = blobs.get(tests[spec.id].answer)
        assert spec.limits.output_bytes == output_budget(len(answer)) < 64 << 20, spec.limits
