"""What a per-run cgroup costs, step by step (root, a host with cgroups).

    .venv/bin/python bench/run_cgroup_cost.py [--runs 200]

For each of ``--runs`` runs: make the run's group with its limits (``RunCgroup``), have a
freshly forked process move itself in (what the spawn shim does before exec), let it exit,
kill the group (empty by then: the reads that prove it), remove it. Prints the median and
90th percentile of each step in ms, and the machine's load average, since the machine
may be shared. Not a test: figures only (see BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandboxes.backends.cgroup_host import CgroupTree  # noqa: E402
from sandboxes.runner.cgroup import RunCgroup  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    a = ap.parse_args()
    tree = CgroupTree.create("oubliette-bench")
    if tree is None:
        print(f"no cgroup: {CgroupTree.reason}")
        return 1
    load0 = os.getloadavg()[0]
    steps: dict[str, list[float]] = {"create + limits": [], "join (in the child)": [], "kill (empty)": [],
                                     "remove": []}
    try:
        slot = tree.slot("slot-0")
        for i in range(a.runs):
            t = time.perf_counter()
            group = RunCgroup(slot, f"run-{i}", memory_bytes=256 << 20, max_pids=64)
            steps["create + limits"].append(time.perf_counter() - t)
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                t = time.perf_counter()
                for path in group.procs_files:
                    fd = os.open(path, os.O_WRONLY)
                    os.write(fd, b"0")
                    os.close(fd)
                os.write(w, json.dumps(time.perf_counter() - t).encode())
                os._exit(0)
            os.close(w)
            steps["join (in the child)"].append(json.loads(os.read(r, 100)))
            os.close(r)
            os.waitpid(pid, 0)
            t = time.perf_counter()
            group.kill()
            steps["kill (empty)"].append(time.perf_counter() - t)
            t = time.perf_counter()
            group.remove()
            steps["remove"].append(time.perf_counter() - t)
    finally:
        tree.close()
    print(f"{tree.label}, {a.runs} runs, load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at the end")
    print("| step | median ms | p90 ms |\n|---|---:|---:|")
    total = 0.0
    for name, xs in steps.items():
        xs.sort()
        med = statistics.median(xs) * 1000
        total += med
        print(f"| {name} | {med:.3f} | {xs[int(len(xs) * 0.9)] * 1000:.3f} |")
    print(f"| sum of medians | {total:.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
