"""What handing on a slot permit costs as runs queue up (sandboxes/backends/slot_queue.PriorityGate).

    python bench/gate_scaling.py [--waiting 10,100,1000,5000] [--owners 4] [--repeats 3]
                                 [--baseline CHECKOUT]

N runs wait for a gate of 2 permits (owners take turns submitting batches of 10 runs, as a
verify_batch of N/10 submissions does); each granted run releases at once, so the gate hands
on N permits. Prints the CPU microseconds per hand-on (process time / N, best of --repeats)
for this checkout and, with --baseline, for another checkout's slot_queue module loaded in the
same process (before/after in one run). No sandbox, no I/O: the gate's own cost only.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def load(root: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, root / "sandboxes" / "backends" / "slot_queue.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


async def drain(sq, waiting: int, owners: int) -> float:
    gate = sq.PriorityGate(2)
    hold = asyncio.Event()
    done = [0]

    async def run(owner: str, order):
        sq.SHARE_KEY.set(owner)
        sq.RUN_ORDER.set(order)
        async with gate:
            if order[2] < 0:
                await hold.wait()
            done[0] += 1

    holders = [asyncio.create_task(run("holder", (0, 0, -1))) for _ in range(2)]
    await asyncio.sleep(0)
    tasks = []
    for b in range(waiting // 10):
        tag = sq.CLOCK.start(f"o{b % owners}", 10)
        tasks += [asyncio.create_task(run(f"o{b % owners}", (tag + i, 1000 + b, i))) for i in range(10)]
    await asyncio.sleep(0)  # every run queued
    t0 = time.process_time()
    hold.set()
    await asyncio.gather(*tasks, *holders)
    dt = time.process_time() - t0
    assert done[0] == len(tasks) + 2
    return dt / len(tasks) * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--waiting", default="10,100,1000,5000")
    ap.add_argument("--owners", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--baseline", metavar="CHECKOUT")
    a = ap.parse_args()
    mods = [("this checkout", load(REPO, "sq_this"))]
    if a.baseline:
        mods.append((f"baseline {a.baseline}", load(Path(a.baseline), "sq_base")))
    sizes = [int(x) for x in a.waiting.split(",")]
    print(f"| runs waiting | {' | '.join(name + ' (us/hand-on)' for name, _ in mods)} |")
    print("|---:|" + "---:|" * len(mods))
    for n in sizes:
        cells = []
        for _name, sq in mods:
            cells.append(min(asyncio.run(drain(sq, n, a.owners)) for _ in range(a.repeats)))
        print(f"| {n} | " + " | ".join(f"{c:.1f}" for c in cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
