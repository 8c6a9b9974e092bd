"""Why slow math answers go into a cpu.idle cgroup: scheduler wake-up delays beside busy workers.

    python bench/wakeup_latency.py [--probes 300] [--modes none,session-idle,cgroup-idle]

Starts a ``verifier serve`` (local backend, 127.0.0.1) and, for each mode, two CPU-bound
stand-ins for sympy workers (big-integer loops), then sends ``--probes`` code ``/v1/verify``
requests one at a time while recording the kernel's ``sched_wakeup``/``sched_switch``
tracepoints (tracefs; needs root). Prints the probes' p50/p99 and the delay from each
wake-up of any other task to its running (p50/p99/p999/max).

Modes: ``none`` (no stand-ins), ``session-idle`` (each stand-in in its own session at
SCHED_IDLE with autogroup nice 19: the best a task can ask for by itself),
``cgroup-idle`` (each in its own session, nice 10, inside a cpu cgroup with cpu.idle = 1:
what the service does for slow answers).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from service_harness import build_sample_store, load_line, pct, start_server  # noqa: E402

import math_flood  # noqa: E402

TRACE = "/sys/kernel/tracing/"
LOOP = "\nx = []\nwhile True:\n    x.append(3 ** 100000)\n    if len(x) > 50:\n        x.clear()\n"
SETUP = {
    "session-idle": "import os; os.setsid(); os.sched_setscheduler(0, os.SCHED_IDLE, "
                    "os.sched_param(0)); open('/proc/self/autogroup', 'w').write('19')",
    "cgroup-idle": "import os, sys; os.setsid(); os.nice(10); "
                   "open(sys.argv[1] + '/cgroup.procs', 'w').write(str(os.getpid()))",
}
_WAKE = re.compile(r"\s(\d+\.\d+): sched_wakeup(?:_new)?: comm=.* pid=(\d+) prio")
_SWITCH = re.compile(r"\s(\d+\.\d+): sched_switch: .* ==> next_comm=.* next_pid=(\d+)")


def _trace(on: bool) -> None:
    def w(name: str, value: str) -> None:
        with open(TRACE + name, "w") as f:
            f.write(value)
    if on:
        w("tracing_on", "0")
        w("trace", "")
        w("buffer_size_kb", "65536")
        for ev in ("sched_wakeup", "sched_wakeup_new", "sched_switch"):
            w(f"events/sched/{ev}/enable", "1")
    w("tracing_on", "1" if on else "0")
    if not on:
        w("events/sched/enable", "0")


def _delays(skip: set[str]) -> list[float]:
    woke, out = {}, []
    with open(TRACE + "trace") as f:
        for line in f:
            m = _WAKE.search(line)
            if m:
                woke[m.group(2)] = float(m.group(1))
                continue
            m = _SWITCH.search(line)
            if m and m.group(2) in woke:
                t0 = woke.pop(m.group(2))
                if m.group(2) not in skip:
                    out.append(float(m.group(1)) - t0)
    return out


def run_mode(url: str, mode: str, probes: int, group: str) -> None:
    procs = []
    if mode != "none":
        procs = [subprocess.Popen([sys.executable, "-c", SETUP[mode] + LOOP, group])
                 for _ in range(2)]
        time.sleep(3.0)  # the stand-ins are busy, as workers are three seconds into a flood
    _trace(True)
    try:
        code, _ = asyncio.run(math_flood.probe(url, probes, 0))
    finally:
        _trace(False)
        for p in procs:
            p.kill()
            p.wait()
    d = _delays({str(p.pid) for p in procs})
    print(f"{mode}: code /v1/verify p50 {pct(code, .5) * 1e3:.1f} ms p99 {pct(code, .99) * 1e3:.1f} ms; "
          f"wake-up delay of other tasks ({len(d)}): p50 {pct(d, .5) * 1e6:.0f} us, p99 "
          f"{pct(d, .99) * 1e6:.0f} us, p999 {pct(d, .999) * 1e6:.0f} us, max {max(d) * 1e6:.0f} us")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--probes", type=int, default=300)
    ap.add_argument("--modes", default="none,session-idle,cgroup-idle")
    args = ap.parse_args()
    if not os.access(TRACE + "tracing_on", os.W_OK):
        print(f"needs root and tracefs at {TRACE}", file=sys.stderr)
        return 2
    from verifier.math.idle_group import IdleGroup

    group = IdleGroup.create()
    if group is None and "cgroup-idle" in args.modes:
        print(f"no cpu.idle group here: {IdleGroup.reason}", file=sys.stderr)
        return 2
    srv = start_server(build_sample_store(None), max_inflight=2, queue_size=256)
    print(f"# {load_line()} (start)")
    try:
        asyncio.run(math_flood.probe(srv.url, 5, 0))  # warm: compile cache, manifest cache
        for mode in args.modes.split(","):
            run_mode(srv.url, mode, args.probes, group.path if group else "")
    finally:
        srv.stop()
        if group is not None:
            group.remove()
    print(f"# {load_line()} (end)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
