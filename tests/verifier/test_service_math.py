"""Math answers through the service: /v1/math/verify and math problems in /v1/verify,
with the real math judge; a judge failure is IE with a null reward, never a wrong answer."""

from verifier.models import VerifyRequest


async def test_math_verify_route(client):
    r = await client.post("/v1/math/verify", json={"gold": "\\frac{5}{6}",
                                                   "prediction": "so the answer is \\boxed{5/6}"})
    body = await r.json()
    assert r.status == 200 and body["equivalent"] is True and body["extracted"]
    r = await client.post("/v1/math/verify", json={"gold": "42", "prediction": "\\boxed{41}"})
    assert (await r.json())["equivalent"] is False
    r = await client.post("/v1/math/verify", json={"prediction": "1"})
    assert r.status == 422 and "gold" in (await r.json())["message"]


async def test_math_problem_in_store(service):
    ok = await service.verify(VerifyRequest(problem_id="half-plus-third", language="math",
                                            code="The sum is \\boxed{\\frac{5}{6}}."))
    assert ok.verdict == "AC" and ok.reward == 1.0 and ok.math.equivalent is True
    wrong = await service.verify(VerifyRequest(problem_id="half-plus-third", language="text",
                                               code="\\boxed{2/5}"))
    assert wrong.verdict == "WA" and wrong.reward == 0.0


async def test_math_judge_failure_is_ie(service, monkeypatch):
    import verifier.math

    def broken(*a, **kw):
        raise RuntimeError("worker pool died")

    monkeypatch.setattr(verifier.math, "judge", broken)
    service.config.feedback = "all"  # the judge's error text is withheld by default
    r = await service.verify(VerifyRequest(problem_id="half-plus-third", language="math",
                                           code="\\boxed{5/6}"))
    assert r.verdict == "IE" and r.reward is None and "worker pool died" in r.message
