"""Time per function-call problem: every sample in samples/function, its reference solution.

    python bench/function_judging.py [--rounds 3] [--concurrency 1] [--backend local]

Uploads samples/function into a temporary store, then judges each problem's ``ref.py``
through the embedded verifier (no HTTP) on the chosen backend, ``--rounds`` times. Every
submission is made unique (a trailing comment) so no cache short-cuts the work. Prints the
median seconds per problem and per test, and the total wall time, so a change to the
function harness can be compared side by side with the code before it (run this script
from each worktree under the same load).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# With PYTHONPATH set, benchmark that tree's code (e.g. main, for a before/after comparison).
if not os.environ.get("PYTHONPATH"):
    sys.path.insert(0, str(ROOT))

from verifier.client import VerifierClient  # noqa: E402

SAMPLES = ROOT / "samples" / "function"


async def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=1)
    ap.add_argument("--backend", default="local")
    args = ap.parse_args()
    problems = sorted(p.name for p in SAMPLES.iterdir() if (p / "solutions" / "ref.py").exists())
    with tempfile.TemporaryDirectory() as tmp:
        store = os.path.join(tmp, "store")
        subprocess.run([sys.executable, "-m", "problem_store.cli", "--store", store, "upload",
                        str(SAMPLES)], check=True, stdout=subprocess.DEVNULL,
                       env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH") or str(ROOT)})
        per_problem: dict[str, list[float]] = {p: [] for p in problems}
        tests: dict[str, int] = {}
        sem = asyncio.Semaphore(args.concurrency)
        async with VerifierClient.embedded(store_uri=store, backend=args.backend) as client:
            # One warm-up submission: backend start-up and the harness compile are not per problem.
            await client.verify(problems[0], "python", (SAMPLES / problems[0] / "solutions" / "ref.py").read_text())

            async def one(pid: str, rnd: int) -> None:
                code = (SAMPLES / pid / "solutions" / "ref.py").read_text() + f"\n# round {rnd}\n"
                async with sem:
                    t0 = time.perf_counter()
                    r = await client.verify(pid, "python", code)
                    per_problem[pid].append(time.perf_counter() - t0)
                if r.verdict.value != "AC":
                    bad = [(t.name, t.verdict.value, t.message[:300]) for t in r.tests if t.verdict.value != "AC"]
                    raise SystemExit(f"{pid}: reference solution got {r.verdict.value}: {bad}")
                tests[pid] = len(r.tests)

            t0 = time.perf_counter()
            for rnd in range(args.rounds):
                await asyncio.gather(*(one(p, rnd) for p in problems))
            wall = time.perf_counter() - t0
    print(f"backend={args.backend} rounds={args.rounds} concurrency={args.concurrency} "
          f"cpus={os.cpu_count()} loadavg={os.getloadavg()[0]:.2f}")
    print(f"{'problem':24} {'tests':>5} {'median_s':>9} {'per_test_s':>10}")
    meds = []
    for p in problems:
        med = statistics.median(per_problem[p])
        meds.append(med)
        print(f"{p:24} {tests[p]:5d} {med:9.3f} {med / tests[p]:10.3f}")
    total_tests = sum(tests.values()) * args.rounds
    print(f"median per problem: {statistics.median(meds):.3f} s; mean per problem: "
          f"{statistics.mean(meds):.3f} s; {total_tests / wall:.1f} tests/s; wall {wall:.1f} s")


if __name__ == "__main__":
    asyncio.run(main())
