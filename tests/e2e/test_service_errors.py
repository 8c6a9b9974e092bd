"""Errors of the real ``verifier serve`` process over raw HTTP: JSON bodies for the parser's
and router's own errors, oversized request ids, server-side ceilings on a real backend, hidden
test messages withheld, and ``verifier submit`` against a server that is not running."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import aiohttp
import pytest

from tests.e2e.server import REPO, ServerProcess


def test_submit_to_a_server_that_is_down_prints_one_line(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    src = tmp_path / "a.py"
    src.write_text("print(1)\n")
    p = subprocess.run([sys.executable, "-m", "verifier.cli", "submit", str(src), "--problem", "x",
                        "--url", f"http://127.0.0.1:{port}"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=REPO, timeout=60)
    assert p.returncode == 3, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot reach the verifier" in lines[0] and "Traceback" not in p.stderr


async def test_real_server_errors_are_json(fast_server):
    u = fast_server.url
    async with aiohttp.ClientSession() as s:
        for method, path, status in (("GET", "/v1/nope", 404), ("DELETE", "/v1/verify", 405)):
            async with s.request(method, u + path) as r:
                assert r.status == status and (await r.json())["error"]
        async with s.get(u + "/v1/problems", headers={"X-Request-Id": "r" * 10_000}) as r:
            assert r.status == 200 and len(r.headers["X-Request-Id"]) == 32
        async with s.post(u + "/v1/execute", json={
                "language": "python", "code": "print(1)", "limits": {"memory_mb": 16384},
                "inputs": [{"name": "a", "input": "blob://sha256/" + "0" * 64}]}) as r:
            body = await r.json()
            assert r.status == 422 and "limits.memory_mb" in body["message"], body
        async with s.post(u + "/v1/verify", json={
                "problem_id": "sum-two", "language": "python", "code": "print('garbage')",
                "options": {"stop_on_first_failure": 1}}) as r:
            assert r.status == 422


async def test_real_server_withholds_hidden_answers(fast_server, fast_store):
    from problem_store.problems import ProblemStore
    from problem_store.uri import open_store

    blobs = open_store(fast_store)
    problem = ProblemStore(blobs).get("sum-two")
    hidden = [blobs.get(t.answer).decode().strip() for t in problem.tests if not t.sample]
    async with aiohttp.ClientSession() as s:
        async with s.post(fast_server.url + "/v1/verify", json={
                "problem_id": "sum-two", "language": "python", "code": "print(-7)"}) as r:
            body = await r.json()
    assert body["verdict"] == "WA"
    for t in body["tests"]:
        if t["name"] not in {x.name for x in problem.tests if x.sample}:
            assert t["message"].endswith("(hidden test: details withheld)"), t
    text = json.dumps(body)
    assert not [h for h in hidden if f"'{h}'" in text or f"expected: {h}" in text]


def test_server_refuses_a_nonsense_ceiling(fast_store):
    srv = ServerProcess(fast_store, "local", env={"VERIFIER_MAX_MEMORY_MB": "-1"})
    with pytest.raises(RuntimeError, match="exited 2"):
        srv.start(timeout_s=60)
    srv.stop()
    assert "max_memory_mb" in srv.log_tail(), srv.log_tail()
