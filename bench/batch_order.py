"""Concurrent submissions on one backend: when does each finish? (figures only)

    PYTHONPATH=. .venv/bin/python bench/batch_order.py [--backend local] [--batches 8] [--tests 10]

``--batches`` batches of ``--tests`` C++ A+B runs each are submitted at once, the way the
verifier judges concurrent submissions. Measured twice, interleaved in rounds: with the
backend's priority gate (slots go to the oldest batch's runs first, the default) and with
the old per-batch semaphore (``gate=None``: every batch may hold all slots, waiting runs
are served in turn). Prints the mean and max completion time of a batch and the runs/s:
the total work is the same, so runs/s should match and only the mean completion differs.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandboxes.backends.registry import create_backend  # noqa: E402
from sandboxes.types import Batch, Blob, RunSpec, Source  # noqa: E402

CPP = "#include <cstdio>\nint main(){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);}\n"


async def one_round(be, art, batches: int, tests: int, gated: bool) -> tuple[list[float], float]:
    gate = be._gate
    if not gated:
        be._gate = None
    try:
        t0 = time.perf_counter()
        done: list[float] = []

        async def submit(k: int):
            res = await be.run_batch(Batch(program=art, runs=[RunSpec(id=f"{k}-{i}", stdin=Blob(data=b"1 2\n"))
                                                              for i in range(tests)]))
            assert all(r.stdout == b"3\n" for r in res.runs)
            done.append(time.perf_counter() - t0)

        await asyncio.gather(*(submit(k) for k in range(batches)))
        return done, batches * tests / (time.perf_counter() - t0)
    finally:
        be._gate = gate


async def main_async(a) -> None:
    be = create_backend(a.backend, selftest=False)
    await be.start()
    try:
        first = await be.run_batch(Batch(program=Source(language="cpp", code=CPP), runs=[RunSpec(id="w")]))
        art = first.compile.artifact
        stats = {True: ([], [], []), False: ([], [], [])}
        for _ in range(a.rounds):
            for gated in (True, False):
                done, rate = await one_round(be, art, a.batches, a.tests, gated)
                stats[gated][0].append(statistics.mean(done))
                stats[gated][1].append(max(done))
                stats[gated][2].append(rate)
    finally:
        await be.close()
    print(f"{a.backend}, {a.batches} batches x {a.tests} C++ A+B runs at once, {a.rounds} rounds, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("| slots handed out | mean batch completion ms | last batch ms | runs/s |\n|---|---:|---:|---:|")
    for gated, name in ((True, "oldest batch first (gate)"), (False, "in turn (per-batch semaphore)")):
        m, x, r = stats[gated]
        print(f"| {name} | {statistics.median(m) * 1e3:.0f} | {statistics.median(x) * 1e3:.0f} | "
              f"{statistics.median(r):.0f} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backend", default="local")
    ap.add_argument("--batches", type=int, default=8)
    ap.add_argument("--tests", type=int, default=10)
    ap.add_argument("--rounds", type=int, default=5)
    asyncio.run(main_async(ap.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
