"""Throughput of the verifier on a fixed workload, against the bare-execution limit.

    python bench/verifier_throughput.py [--store DIR] [--submissions 40] [--concurrency 8]

Workload (sample problem sum-two, 12 tests, built-in integers checker), through the HTTP API
of a spawned ``verifier serve`` (local backend, bubblewrap slots = CPU cores):
  python-unique  N submissions of the reference Python solution, each made unique (a comment),
                 so every one is compiled (py_compile) in the sandbox, then runs 12 tests;
  cpp-cached     N submissions of the identical reference C++ solution: compiled once, the
                 artifact comes from the compile cache afterwards.
Bare limit: the same programs on the same inputs run as plain subprocesses (no sandbox, no
HTTP, no checker), with as many in parallel as CPU cores; C++ compiled once.
Prints submissions/s, tests/s, p50/p99 latency, and the verifier/bare ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verifier.client import VerifierClient  # noqa: E402

PROBLEM = "sum-two"
SOLUTIONS = Path(__file__).resolve().parents[1] / "samples" / "stdio" / PROBLEM / "solutions"


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


async def verifier_workload(url: str, language: str, code: str, n: int, concurrency: int,
                            unique: bool) -> dict:
    sem = asyncio.Semaphore(concurrency)
    lat: list[float] = []
    tests = 0
    verdicts: dict[str, int] = {}
    async with VerifierClient(url) as client:
        async def one(i: int) -> None:
            nonlocal tests
            src = code + (f"\n# submission {i}\n" if unique else "")
            if unique and language == "cpp":
                src = code + f"\n// submission {i}\n"
            async with sem:
                t0 = time.perf_counter()
                r = await client.verify(PROBLEM, language, src)
                lat.append(time.perf_counter() - t0)
            tests += len(r.tests)
            verdicts[r.verdict.value] = verdicts.get(r.verdict.value, 0) + 1

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        wall = time.perf_counter() - t0
    return {"submissions_per_s": n / wall, "tests_per_s": tests / wall, "p50_s": pct(lat, 0.5),
            "p99_s": pct(lat, 0.99), "wall_s": wall, "verdicts": verdicts}


def bare_workload(tests_dir: Path, language: str, code: str, n: int) -> dict:
    inputs = sorted(tests_dir.glob("*.in"))
    with tempfile.TemporaryDirectory() as tmp:
        if language == "python":
            src = Path(tmp) / "main.py"
            src.write_text(code)
            cmd = ["/usr/bin/python3", "-S", "-B", str(src)]
        else:
            src = Path(tmp) / "main.cpp"
            src.write_text(code)
            subprocess.run(["g++", "-O2", "-std=gnu++17", "-o", str(Path(tmp) / "main"), str(src)],
                           check=True)
            cmd = [str(Path(tmp) / "main")]

        def run(path: Path) -> None:
            with open(path, "rb") as fh:
                subprocess.run(cmd, stdin=fh, stdout=subprocess.DEVNULL, check=True)

        jobs = [p for _ in range(n) for p in inputs]
        t0 = time.perf_counter()
        with ThreadPoolExecutor(os.cpu_count() or 1) as pool:
            list(pool.map(run, jobs))
        wall = time.perf_counter() - t0
    return {"tests_per_s": len(jobs) / wall, "wall_s": wall, "runs": len(jobs)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--store", help="store holding sum-two (default: build one)")
    ap.add_argument("--url", help="use a running server instead of spawning one")
    ap.add_argument("--submissions", type=int, default=40)
    ap.add_argument("--concurrency", type=int, default=8)
    args = ap.parse_args()
    from tests.e2e.conftest import build_store
    from tests.e2e.server import ServerProcess

    root = Path(tempfile.mkdtemp(prefix="verifier-tput-"))
    store = args.store or build_store(root, [PROBLEM])
    tests_dir = Path(store).parent / "samples" / "stdio" / PROBLEM / "tests"
    if not tests_dir.is_dir():
        tests_dir = SOLUTIONS.parent / "tests"
    server = None if args.url else ServerProcess(store, "local").start()
    url = args.url or server.url
    rows = []
    try:
        for name, lang, file, unique in (("python-unique", "python", "ref.py", True),
                                         ("cpp-cached", "cpp", "ref.cpp", False)):
            code = (SOLUTIONS / file).read_text()
            asyncio.run(verifier_workload(url, lang, code, 2, 2, unique=False))  # warm up
            v = asyncio.run(verifier_workload(url, lang, code, args.submissions, args.concurrency,
                                              unique))
            b = bare_workload(tests_dir, lang, code, args.submissions)
            rows.append((name, v, b))
    finally:
        if server is not None:
            server.stop()
    print(f"cpu cores: {os.cpu_count()}; load average at end: {os.getloadavg()[0]:.1f}; "
          f"{args.submissions} submissions x {PROBLEM} (12 tests), concurrency {args.concurrency}")
    print("| workload | submissions/s | tests/s | p50 latency s | p99 latency s | bare tests/s | "
          "verifier/bare | verdicts |")
    print("|---|---|---|---|---|---|---|---|")
    for name, v, b in rows:
        print(f"| {name} | {v['submissions_per_s']:.2f} | {v['tests_per_s']:.1f} | {v['p50_s']:.3f} | "
              f"{v['p99_s']:.3f} | {b['tests_per_s']:.1f} | {v['tests_per_s'] / b['tests_per_s']:.2f} | "
              f"{v['verdicts']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
