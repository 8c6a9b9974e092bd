"""What emptying a slot after every run costs, next to a fresh IPC namespace per run.

Prints figures, asserts nothing. Needs root (unshare, the local backend).

1. ``reset.leftovers`` + ``reset.clear_ipc`` on an empty namespace: what every run now pays
   after it ends (a few /proc reads; no fork when there is nothing to remove).
2. ``unshare(CLONE_NEWIPC)`` in a forked child (what a per-run namespace would add on top
   of the spawn; the agent would also need CAP_SYS_ADMIN for it, which it does not hold).
3. Python A+B through the local backend, N runs on one slot: the per-run wall time with
   the reset in place (compare with bench/results for the figure before the change).

    PYTHONPATH=. .venv/bin/python bench/run_reset.py [--runs 200]
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import os
import statistics
import tempfile
import time

CLONE_NEWIPC = 0x08000000


def _per_call_us(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6


def check_cost(n: int) -> None:
    from sandboxes.runner import reset
    root = tempfile.mkdtemp()
    keep = lambda name: False  # noqa: E731
    # In a fresh IPC namespace (as in a slot), so the host's objects do not count.
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None, use_errno=True).unshare(CLONE_NEWIPC)
        us = _per_call_us(lambda: reset.leftovers(ipc=True, empty_dirs=[], scratch_root=root,
                                                  keep_in_scratch=keep), n)
        clr = _per_call_us(lambda: reset.clear_ipc(65533), n)
        print(f"check after a run: {us:.0f} us; "
              f"clear_ipc on an empty namespace: {clr:.1f} us")
        os._exit(0)
    os.waitpid(pid, 0)


def unshare_cost(n: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    times = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if libc.unshare(CLONE_NEWIPC) == 0 else 1)
        _, st = os.waitpid(pid, 0)
        times.append(time.perf_counter() - t)
        assert os.waitstatus_to_exitcode(st) == 0
    base = []
    for _ in range(n):
        t = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        base.append(time.perf_counter() - t)
    print(f"fork+exit: median {statistics.median(base) * 1e3:.2f} ms; fork+unshare(NEWIPC)+exit: "
          f"median {statistics.median(times) * 1e3:.2f} ms (+{(statistics.median(times) - statistics.median(base)) * 1e3:.2f} ms a run)")


async def local_runs(n: int) -> None:
    from sandboxes.backends.local import LocalBackend
    from sandboxes.types import Batch, Blob, RunSpec, Source
    code = "a, b = map(int, input().split())\nprint(a + b)\n"
    async with LocalBackend(capacity=1, selftest=False) as be:
        batch = Batch(program=Source(language="python", code=code),
                      runs=[RunSpec(id=str(i), stdin=Blob(data=b"1 2\n")) for i in range(n)])
        await be.run_batch(batch.model_copy(update={"runs": batch.runs[:5]}))  # warm
        t = time.perf_counter()
        res = await be.run_batch(batch)
        dt = time.perf_counter() - t
    walls = [r.wall_time_s for r in res.runs]
    print(f"local, 1 slot, {n} python A+B runs: {dt / n * 1e3:.1f} ms a run end to end "
          f"(program wall median {statistics.median(walls) * 1e3:.1f} ms)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    check_cost(a.runs)
    unshare_cost(a.runs)
    asyncio.run(local_runs(a.runs))


if __name__ == "__main__":
    main()
