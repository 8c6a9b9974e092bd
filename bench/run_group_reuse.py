"""Run groups reused (v1) vs a new group per run, at the runner (root, a host with cgroups).

    .venv/bin/python bench/run_group_reuse.py [--runs 200] [--rounds 11] [--langs python,cpp]

Two runners side by side in this process, each with its own slot group and run uid, driven
as the agent drives one (run, reset, housekeeping): ``reuse`` (``reuse_cgroups=True``, the
default) and ``fresh`` (a group made and removed per run, the behaviour before). A+B in
Python (through the fork server) and C++ (through the spawn server), ``--runs`` sequential
runs per block, blocks alternated over ``--rounds`` rounds. Per block: wall per run and
machine CPU per run (all processes, busy jiffies of /proc/stat over the block: the runner,
its zygote/spawn server, the runs and the kernel's own work such as tearing groups down).
Prints medians over rounds and the load average before and after. Not a test: figures only
(BENCHMARKS.md).
"""

from __future__ import annotations

import argparse
import base64
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandboxes.backends.cgroup_host import CgroupTree  # noqa: E402
from sandboxes.runner.core import Runner, RunnerConfig  # noqa: E402

PROGRAMS = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "cpp": "#include <cstdio>\nint main(){int a,b;scanf(\"%d %d\",&a,&b);printf(\"%d\\n\",a+b);}\n",
}


def busy_jiffies() -> int:
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:8]]
    return sum(fields) - fields[3]  # all but idle


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=11)
    ap.add_argument("--langs", default="python,cpp")
    a = ap.parse_args()
    tree = CgroupTree.create("oubliette-bench")
    if tree is None:
        print(f"no cgroup: {CgroupTree.reason}")
        return 1
    if tree.label != "cgroup-v1":
        print(f"{tree.label}: run groups are reused on cgroup v1 only")
        return 1
    hz = os.sysconf("SC_CLK_TCK")
    load0 = os.getloadavg()
    roots: list[str] = []
    try:
        runners = {}
        for i, mode in enumerate(("fresh", "reuse")):
            root = tempfile.mkdtemp(prefix="bench-reuse-", dir="/tmp")
            os.chmod(root, 0o755)
            roots.append(root)
            r = Runner(RunnerConfig(scratch_root=os.path.join(root, "s"), uid=61990 + i, gid=61990 + i,
                                    python_fork_server=True, cgroup=tree.slot(f"slot-{i}"),
                                    reuse_cgroups=mode == "reuse"))
            r.defer_reset = True
            runners[mode] = r
        requests = {}
        for mode, r in runners.items():
            for lang in a.langs.split(","):
                c = r.compile({"language": lang, "code": PROGRAMS[lang]})
                assert c["status"] == "OK", c
                r.finish_reset()
                r.housekeeping()
                req = {"program": c["artifact"], "limits": {},
                       "stdin": {"data_b64": base64.b64encode(b"2 3\n").decode()}}
                for _ in range(20):  # warm-up: zygote, spawn server, page cache
                    out = r.run(req)
                    r.finish_reset()
                    r.housekeeping()
                assert out["status"] == "OK" and base64.b64decode(out["stdout_b64"]) == b"5\n", out
                requests[mode, lang] = req
        figures: dict[tuple[str, str], list[tuple[float, float]]] = {k: [] for k in requests}
        for _ in range(a.rounds):
            for (mode, lang), req in requests.items():
                r = runners[mode]
                j0, t0 = busy_jiffies(), time.perf_counter()
                for _ in range(a.runs):
                    r.run(req)
                    r.finish_reset()
                    r.housekeeping()
                wall, busy = time.perf_counter() - t0, (busy_jiffies() - j0) / hz
                figures[mode, lang].append((wall / a.runs * 1e3, busy / a.runs * 1e3))
    finally:
        tree.close()
        for root in roots:
            shutil.rmtree(root, ignore_errors=True)
    load1 = os.getloadavg()
    print(f"load average before {load0[0]:.2f} {load0[1]:.2f}, after {load1[0]:.2f} {load1[1]:.2f}; "
          f"{a.rounds} rounds x {a.runs} runs per block")
    print("| A+B | groups | wall ms/run (median) | machine CPU ms/run (median) | CPU vs fresh |")
    print("|---|---|---:|---:|---:|")
    for lang in a.langs.split(","):
        base = statistics.median(c for _, c in figures["fresh", lang])
        for mode in ("fresh", "reuse"):
            w = statistics.median(x for x, _ in figures[mode, lang])
            c = statistics.median(x for _, x in figures[mode, lang])
            print(f"| {lang} | {mode} | {w:.3f} | {c:.3f} | {c / base:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
