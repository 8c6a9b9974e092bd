"""Shared pieces of the service benchmarks: a sample store, a real server, timed clients.

Everything talks to ``verifier serve`` on 127.0.0.1 (spawned by ``tests.e2e.server``) with the
local sandbox backend; the store is built from ``samples/`` like ``scripts/serve.sh`` does.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"
CODE_BODY = {"problem_id": "sum-two", "language": "python", "options": {"tests": ["01"]}}


def build_sample_store(store: str | None) -> str:
    if store:
        return store
    from tests.e2e.conftest import build_store

    return build_store(Path(tempfile.mkdtemp(prefix="verifier-bench-")), ["sum-two"])


def start_server(store: str, *, max_inflight: int, queue_size: int, work: dict | None = None,
                 extra_env: dict | None = None):
    from tests.e2e.server import ServerProcess

    env = {"VERIFIER_WORK_CLASSES": json.dumps(work or {}), "VERIFIER_LOG_LEVEL": "WARNING"}
    env.update(extra_env or {})
    return ServerProcess(store, "local", env=env, extra_args=[
        "--max-inflight", str(max_inflight), "--queue-size", str(queue_size)]).start()


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (1 min) {five:.2f} (5 min) on {os.cpu_count()} cores"


async def timed(session: aiohttp.ClientSession, method: str, url: str, *, json_body=None,
                headers=None, retry_429: bool = True) -> tuple[float, int, dict | None]:
    """One request, resent after Retry-After on 429/503; (latency incl. retries, status, body)."""
    t0 = time.perf_counter()
    while True:
        async with session.request(method, url, json=json_body, headers=headers) as r:
            body = await r.read()
            if r.status in (429, 503) and retry_429:
                await asyncio.sleep(float(r.headers.get("Retry-After", "1")))
                continue
            data = json.loads(body) if body and r.content_type == "application/json" else None
            return time.perf_counter() - t0, r.status, data


async def sequential(session, n: int, method: str, url: str, *, json_body=None,
                     headers=None, check=None) -> list[float]:
    """``n`` requests one after the other (a polite client); latencies of the good ones."""
    out = []
    for i in range(n):
        dt, status, data = await timed(session, method, url, json_body=json_body, headers=headers)
        if status != 200 or (check is not None and not check(data)):
            raise RuntimeError(f"{method} {url}: HTTP {status} {str(data)[:300]}")
        out.append(dt)
    return out


def session(limit: int = 256) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=limit),
                                 timeout=aiohttp.ClientTimeout(total=900))
