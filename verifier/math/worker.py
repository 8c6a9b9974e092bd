"""Worker process: reads JSON comparison requests on stdin, answers on stdout.

Started by ``pool.WorkerPool`` as ``python -m verifier.math.worker``. The parent kills it
when a request runs past its timeout, so sympy may block here freely. The address-space
limit turns runaway integers (``10^{10^{10}}``) into a MemoryError rather than memory
pressure on the host. ``--nice``/``--sched-idle``: the worker lowers its own CPU priority
before importing sympy (``priority``). Each request carries its budget (``cpu_budget_s``):
a CPU-time limit of that much more makes a worker whose parent is gone (the pool never
killed it) stop on its own instead of computing an endless answer in its own session.
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
    ap.add_argument("--nice", type=int, default=0)
    ap.add_argument("--sched-idle", action="store_true")
    args = ap.parse_args()
    from verifier.math.priority import lower

    prio = lower(args.nice, args.sched_idle)  # before the imports below: they are most of a start
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # stray prints must not corrupt the protocol stream
    sys.stdout = sys.stderr
    if args.memory_mb > 0:
        limit = args.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    sys.setrecursionlimit(5000)
    # sympy and math-verify load here, once per worker and after stdout is redirected
    # (never in the service process)
    import verifier.math.reference  # noqa: F401
    import verifier.math.sympy_backend  # noqa: F401

    proto.write(json.dumps({"ready": True, "pid": os.getpid(), "priority": prio}) + "\n")
    for line in sys.stdin:
        try:
            req = json.loads(line)
            _cpu_guard(req.pop("cpu_budget_s", None))
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


def _cpu_guard(budget_s) -> None:
    """Soft CPU limit: the CPU used so far plus this request's budget plus 2 s (SIGXCPU
    kills). The pool kills at the wall-clock budget first (CPU time <= wall time in this
    one thread), so the limit fires only for a worker nobody is waiting on any more."""
    if not budget_s:
        return
    r = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(r.ru_utime + r.ru_stime + float(budget_s)) + 2
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def decide(req: dict) -> dict:
    """Worker entry point for a judge request: our comparison, else math-verify's.

    ``req``: ``gold``/``pred`` (our ASTs, None where our parser found LaTeX it does not
    support) and ``gold_tex``/``pred_tex`` (the normalised answers). When our parser
    read both sides its verdict stands (math-verify is lenient with malformed answers:
    it reads ``5 +`` as 5); otherwise, or when sympy cannot handle our gold AST,
    math-verify decides. An error only when neither parser can read the gold."""
    from verifier.math.reference import reference_compare
    from verifier.math.sympy_backend import compare_nodes

    ours, ours_exc = None, None
    if req.get("gold") is not None and req.get("pred") is not None:
        try:
            ours = compare_nodes(req["gold"], req["pred"], bool(req.get("approx")))
        except (MemoryError, RecursionError):
            raise
        except Exception as exc:  # the gold is what sympy cannot handle
            ours_exc = exc
        if ours is not None:  # our parser read both sides: its verdict stands
            return ours
    if "gold_tex" not in req:  # a request built by our parser alone
        if ours_exc is not None:
            raise ours_exc
        return ours
    ref = reference_compare(req["gold_tex"], req["pred_tex"])
    parsed = {"gold_parsed": ref.get("gold_parsed"), "prediction_parsed": ref.get("prediction_parsed")}
    if ref["equal"]:
        return {"equal": True, "reason": "equal (math-verify)", **parsed}
    if ref["gold_ok"] or (req.get("gold") is not None and ours_exc is None):
        why = (ref.get("why") or "not equal (math-verify)") if ref["pred_ok"] else "prediction unparsable"
        return {"equal": False, "reason": why, **parsed}
    if ours_exc is not None:
        raise ours_exc
    raise ValueError("gold answer could not be parsed by either parser")


if __name__ == "__main__":
    main()
