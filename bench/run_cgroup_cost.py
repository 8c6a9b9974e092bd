"""What a per-run cgroup costs, step by step (root, a host with cgroups).

    .venv/bin/python bench/run_cgroup_cost.py [--runs 200]

For each of ``--runs`` runs: make the run's group with its limits (``RunCgroup``), have a
freshly forked process move itself in (what the spawn shim does before exec), let it exit,
kill the group (empty by then: the reads that prove it), remove it. With ``--reuse`` the
same runs are also made with one group reset and used again after each run (v1,
``RunCgroup.recycle``), alternated with the fresh-group runs in one invocation, so the two
are compared under the same load. Prints the median and 90th percentile of each step in
ms, the agent-side CPU time per run (ours, not the child's), and the machine's load
average, since the machine may be shared. Not a test: figures only (see BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandboxes.backends.cgroup_host import CgroupTree  # noqa: E402
from sandboxes.runner.cgroup import RunCgroup  # noqa: E402


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--reuse", action="store_true", help="also one group reset and used again (v1)")
    a = ap.parse_args()
    tree = CgroupTree.create("oubliette-bench")
    if tree is None:
        print(f"no cgroup: {CgroupTree.reason}")
        return 1
    load0 = os.getloadavg()[0]
    modes = ["fresh", "reuse"] if a.reuse else ["fresh"]
    steps = {m: {"create + limits" if m == "fresh" else "reset (recycle)": [], "join (in the child)": [],
                 "kill (empty)": [], "remove": []} for m in modes}
    cpu = {m: 0.0 for m in modes}
    kept = None
    try:
        slot = tree.slot("slot-0")
        for i in range(a.runs):
            for mode in modes:
                st = steps[mode]
                c0 = _cpu()
                t = time.perf_counter()
                if mode == "fresh":
                    group = RunCgroup(slot, f"run-{i}", memory_bytes=256 << 20, max_pids=64)
                    st["create + limits"].append(time.perf_counter() - t)
                else:
                    if kept is not None and not kept.recycle():
                        if tree.version != 1:
                            print("groups are reused on cgroup v1 only")
                            return 1
                        kept.remove()  # used MAX_USES times (or too much left charged): a new one,
                        kept = None    # as the runner does
                    if kept is None:
                        kept = RunCgroup(slot, f"run-kept-{i}", memory_bytes=256 << 20, max_pids=64)
                    group = kept
                    st["reset (recycle)"].append(time.perf_counter() - t)
                c_mid = _cpu()
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
                st["join (in the child)"].append(json.loads(os.read(r, 100)))
                os.close(r)
                os.waitpid(pid, 0)
                c1 = _cpu()
                t = time.perf_counter()
                group.kill()
                st["kill (empty)"].append(time.perf_counter() - t)
                t = time.perf_counter()
                if mode == "fresh":
                    group.remove()
                st["remove"].append(time.perf_counter() - t)
                cpu[mode] += (c_mid - c0) + (_cpu() - c1)  # the fork and wait are not the group's
        if kept is not None:
            kept.remove()
    finally:
        tree.close()
    print(f"{tree.label}, {a.runs} runs per mode, load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at the end")
    for mode in modes:
        print(f"\n{mode} group per run: CPU {cpu[mode] / a.runs * 1e6:.0f} us per run (ours: make/reset, kill, remove)")
        print("| step | median ms | p90 ms |\n|---|---:|---:|")
        total = 0.0
        for name, xs in steps[mode].items():
            xs.sort()
            med = statistics.median(xs) * 1000
            total += med
            print(f"| {name} | {med:.3f} | {xs[int(len(xs) * 0.9)] * 1000:.3f} |")
        print(f"| sum of medians | {total:.3f} | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
