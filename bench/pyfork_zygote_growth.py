"""The slot zygote's anonymous memory before/after N trivial runs, and their wall time.

Prints figures, asserts nothing. Needs root (runs switch to a run uid). Usage:
    PYTHONPATH=$PWD python bench/pyfork_zygote_growth.py [N]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time

from sandboxes.runner.core import Runner, RunnerConfig


def rss_anon_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(line for line in f if line.startswith("RssAnon")).split()[1])


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    root = tempfile.mkdtemp(prefix="pyfork-bench-", dir="/tmp")
    os.chmod(root, 0o755)
    r = Runner(RunnerConfig(scratch_root=root + "/scratch", uid=61977, gid=61977, python_fork_server=True))
    art = r.compile({"language": "python", "code": "pass\n"})["artifact"]
    req = {"program": {"language": "python", "sha256": art["sha256"]}, "stdin": {"data_b64": ""}, "limits": {}}
    r.run(req)
    r.pyfork.max_runs = n + 10  # one generation for the whole measurement
    before, t = rss_anon_kb(r.pyfork.pid), time.monotonic()
    for _ in range(n):
        r.run(req)
    took = time.monotonic() - t
    print(f"zygote RssAnon {before} kB -> {rss_anon_kb(r.pyfork.pid)} kB after {n} runs; "
          f"{took / n * 1e3:.2f} ms/run (load: {os.getloadavg()[0]:.2f})")
    r.pyfork.stop()


if __name__ == "__main__":
    main()
