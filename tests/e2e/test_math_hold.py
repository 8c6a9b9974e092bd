"""A slow math answer judged while code requests keep the service busy, on the real server:
its worker is held (the time shows in /readyz), the held time is given back on its budget, and
the verdict is the prediction's fault (not equivalent, timeout), never an internal error.
The code requests beside it keep their verdicts."""

from __future__ import annotations

import asyncio

import aiohttp

from tests.verifier.conftest import SUM_AC

# parses, reaches sympy and cannot be evaluated in any budget (bench/math_flood.py's flood)
HANGING = r"\boxed{\sum_{k=1}^{10^{6}} k^{k}}"


async def _math_hold(s: aiohttp.ClientSession, url: str) -> dict:
    async with s.get(url + "/readyz") as r:
        return (await r.json())["detail"]["work_classes"]["math"].get("hold", {})


async def test_slow_answer_beside_code_traffic_is_held_and_judged_timeout(fast_server):
    url = fast_server.url
    async with aiohttp.ClientSession() as s:
        before = await _math_hold(s, url)
        budget = 1.0
        math = asyncio.create_task(s.post(url + "/v1/math/verify", json={
            "gold": "5", "prediction": HANGING, "timeout_s": budget}))
        verdicts = []
        while not math.done():  # code traffic for as long as the answer runs
            async with s.post(url + "/v1/verify", json={
                    "problem_id": "sum-two", "language": "python", "code": SUM_AC}) as r:
                assert r.status == 200
                verdicts.append((await r.json())["verdict"])
        resp = await math
        body = await resp.json()
        after = await _math_hold(s, url)
    assert resp.status == 200, body
    assert body["equivalent"] is False and body["timed_out"] is True and not body.get("error")
    assert verdicts and set(verdicts) == {"AC"}
    if after.get("idle_group"):  # where the host lets the service make a cpu.idle group
        # the answer was held while the code requests ran: the hold counter moved by more
        # than a small part of the budget (the answer's wall time includes it on top)
        assert after["held_s"] - before.get("held_s", 0.0) > 0.2 * budget
