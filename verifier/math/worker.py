"""Worker process: reads JSON comparison requests on stdin, answers on stdout.

Started by ``pool.WorkerPool`` as ``python -m verifier.math.worker``. The parent kills it
when a request runs past its timeout, so sympy may block here freely. The address-space
limit turns runaway integers (``10^{10^{10}}``) into a MemoryError rather than memory
pressure on the host.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memory-mb", type=int, default=1024)
    args = ap.parse_args()
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints must not corrupt the protocol stream
    sys.stdout = sys.stderr
    if args.memory_mb > 0:
        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(5000)

    from verifier.math import reference  # noqa: F401 - imported before the first request
    from verifier.math.sympy_backend import decide

    proto.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        try:
            req = json.loads(line)
            res = decide(req)
            res["ok"] = True
        except MemoryError:
            res = {"ok": False, "kind": "memory", "error": "MemoryError"}
        except RecursionError:
            res = {"ok": False, "kind": "memory", "error": "RecursionError"}
        except Exception as exc:  # reported to the caller as an internal error
            res = {"ok": False, "kind": "error", "error": f"{type(exc).__name__}: {exc}"[:500]}
        try:
            out = json.dumps(res)
        except (TypeError, ValueError) as exc:
            out = json.dumps({"ok": False, "kind": "error", "error": f"unserialisable: {exc}"})
        proto.write(out + "\n")


if __name__ == "__main__":
    main()
