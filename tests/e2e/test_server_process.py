"""The real ``verifier serve`` process: graceful shutdown, JSON logs with request ids, the
``verifier submit`` command line, and curl-style raw HTTP (the README's examples)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import time

import aiohttp

from tests.e2e.server import REPO, ServerProcess

# In flight long enough to be seen and signalled, but under the 1 s idleness limit (a program
# that sleeps 1 s or more without using CPU is TLE, "idleness limit").
SLOW_AC = "import time\ntime.sleep(0.7)\na, b = map(int, input().split())\nprint(a + b)\n"


async def test_sigterm_finishes_inflight_requests_then_exits(fast_store):
    srv = ServerProcess(fast_store, "local").start()
    try:
        async with aiohttp.ClientSession() as s:
            req = asyncio.create_task(s.post(srv.url + "/v1/verify", json={
                "problem_id": "sum-two", "language": "python", "code": SLOW_AC,
                "options": {"tests": ["01"]}}, headers={"X-Request-Id": "inflight-1"}))
            # Wait until the server has admitted it (it logs nothing before finishing, so poll
            # the queue gauge), then ask it to stop.
            for _ in range(300):
                text = await (await s.get(srv.url + "/metrics")).text()
                if "verifier_inflight 1" in text:
                    break
                await asyncio.sleep(0.05)
            srv.terminate()
            resp = await req
            assert resp.status == 200
            assert (await resp.json())["verdict"] == "AC"
        assert await asyncio.to_thread(srv.proc.wait, 60) == 0
    finally:
        srv.stop()
    logs = srv.log_lines()
    done = [e for e in logs if e.get("request_id") == "inflight-1" and e.get("msg") == "request"]
    assert done and done[0]["status"] == 200 and done[0]["path"] == "/v1/verify"
    assert any(e.get("msg") == "stopped" for e in logs)


def test_submit_cli_and_raw_http(fast_server, tmp_path):
    sol = REPO / "samples" / "stdio" / "sum-two" / "solutions"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    ok = subprocess.run([sys.executable, "-m", "verifier.cli", "submit", str(sol / "ref.cpp"),
                         "--problem", "sum-two", "--url", fast_server.url],
                        capture_output=True, text=True, env=env, cwd=REPO)
    assert ok.returncode == 0 and "AC reward=1.0" in ok.stdout, ok.stdout + ok.stderr
    wa = subprocess.run([sys.executable, "-m", "verifier.cli", "submit", str(sol / "wa_difference.cpp"),
                         "--problem", "sum-two", "--url", fast_server.url, "--json"],
                        capture_output=True, text=True, env=env, cwd=REPO)
    assert wa.returncode == 1 and json.loads(wa.stdout)["verdict"] == "WA"
    # The README's curl example, verbatim in spirit: JSON in, JSON out.
    body = json.dumps({"problem_id": "sum-two", "language": "python",
                       "code": "a,b=map(int,input().split())\nprint(a+b)\n",
                       "options": {"stop_on_first_failure": True, "reward": "fraction"}})
    out = subprocess.run(["curl", "-s", "-X", "POST", fast_server.url + "/v1/verify",
                          "-H", "Content-Type: application/json", "-d", body],
                         capture_output=True, text=True, timeout=120)
    data = json.loads(out.stdout)
    assert data["verdict"] == "AC" and data["reward"] == 1.0
    t0 = time.perf_counter()
    metrics = subprocess.run(["curl", "-s", fast_server.url + "/metrics"], capture_output=True,
                             text=True, timeout=30).stdout
    assert "verifier_verdicts_total" in metrics and time.perf_counter() - t0 < 30
