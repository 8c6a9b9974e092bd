"""Load test of the verifier on loopback: many verify requests at high concurrency.

    python bench/verifier_load.py [--url URL | --store DIR] [--requests 2000] [--concurrency 64]
                                  [--max-inflight 8] [--queue-size 16]

Without --url it spawns ``verifier serve`` (local backend) with a deliberately small queue,
so some requests are refused with 429 + Retry-After; the load generator honours it and
resends. It checks what matters under load: every request gets an answer (none lost or
duplicated), every verdict is the expected one (alternating right and wrong programs, so a
mix-up shows), no IE, and refusals are 429s, never errors. Prints one summary line per
figure; exits non-zero if any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import aiohttp

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

RIGHT = "a, b = map(int, input().split())\nprint(a + b)\n"
WRONG = "a, b = map(int, input().split())\nprint(a + b + 1)\n"


@dataclass
class LoadReport:
    requests: int = 0
    answered: int = 0
    rejected_429: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    wrong_verdicts: int = 0
    internal_errors: int = 0
    latencies_s: list[float] = field(default_factory=list)
    wall_s: float = 0.0

    def ok(self) -> bool:
        return (self.answered == self.requests and not self.errors and not self.wrong_verdicts
                and not self.internal_errors)

    def pct(self, q: float) -> float:
        xs = sorted(self.latencies_s)
        return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0

    def summary(self) -> dict:
        return {"requests": self.requests, "answered": self.answered,
                "rejected_429": self.rejected_429, "errors": self.errors,
                "wrong_verdicts": self.wrong_verdicts, "internal_errors": self.internal_errors,
                "wall_s": round(self.wall_s, 2),
                "answered_per_s": round(self.answered / self.wall_s, 1) if self.wall_s else 0,
                "p50_s": round(self.pct(0.5), 3), "p99_s": round(self.pct(0.99), 3)}


async def run_load(url: str, n: int, concurrency: int, problem_id: str = "sum-two",
                   test: str | None = "01", max_attempts: int = 1000) -> LoadReport:
    report = LoadReport(requests=n)
    queue: asyncio.Queue[int] = asyncio.Queue()
    for i in range(n):
        queue.put_nowait(i)
    seen: set[int] = set()
    options = {"tests": [test]} if test else {}

    async def worker(session: aiohttp.ClientSession) -> None:
        while True:
            try:
                i = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            right = i % 2 == 0
            body = {"problem_id": problem_id, "language": "python",
                    "code": (RIGHT if right else WRONG) + f"# request {i}\n", "options": options}
            t0 = time.perf_counter()
            for _ in range(max_attempts):
                try:
                    async with session.post(url + "/v1/verify", json=body,
                                            headers={"X-Request-Id": f"load-{i}"}) as resp:
                        text = await resp.text()
                        if resp.status == 429:
                            report.rejected_429 += 1
                            await asyncio.sleep(float(resp.headers.get("Retry-After", "1")))
                            continue
                        if resp.status != 200:
                            key = f"HTTP {resp.status}"
                            report.errors[key] = report.errors.get(key, 0) + 1
                            break
                        data = json.loads(text)
                except aiohttp.ClientError as exc:
                    key = type(exc).__name__
                    report.errors[key] = report.errors.get(key, 0) + 1
                    break
                if resp.headers.get("X-Request-Id") != f"load-{i}" or i in seen:
                    report.errors["mismatched response"] = report.errors.get("mismatched response", 0) + 1
                    break
                seen.add(i)
                report.answered += 1
                report.latencies_s.append(time.perf_counter() - t0)
                if data["verdict"] == "IE":
                    report.internal_errors += 1
                elif data["verdict"] != ("AC" if right else "WA"):
                    report.wrong_verdicts += 1
                break

    t0 = time.perf_counter()
    connector = aiohttp.TCPConnector(limit=concurrency)
    async with aiohttp.ClientSession(connector=connector,
                                     timeout=aiohttp.ClientTimeout(total=600)) as session:
        await asyncio.gather(*(worker(session) for _ in range(concurrency)))
    report.wall_s = time.perf_counter() - t0
    return report


def ensure_store(store: str | None) -> str:
    if store:
        return store
    from tests.e2e.conftest import build_store

    root = Path(tempfile.mkdtemp(prefix="verifier-load-"))
    return build_store(root, ["sum-two"])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--url")
    ap.add_argument("--store", help="store with the sum-two problem (default: build one)")
    ap.add_argument("--requests", type=int, default=2000)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--max-inflight", type=int, default=8)
    ap.add_argument("--queue-size", type=int, default=16)
    args = ap.parse_args()
    server = None
    url = args.url
    if url is None:
        from tests.e2e.server import ServerProcess

        server = ServerProcess(ensure_store(args.store), "local", extra_args=[
            "--max-inflight", str(args.max_inflight), "--queue-size", str(args.queue_size)]).start()
        url = server.url
    try:
        report = asyncio.run(run_load(url, args.requests, args.concurrency))
    finally:
        if server is not None:
            server.stop()
    for k, v in report.summary().items():
        print(f"{k}: {v}")
    print("PASS" if report.ok() else "FAIL")
    return 0 if report.ok() else 1


if __name__ == "__main__":
    sys.exit(main())
