"""Compile once, then run every run of a batch in parallel up to the backend's capacity.

Shared by the backends (host side): a backend supplies two coroutines, ``compile_fn``
(Source -> CompileResult) and ``run_fn`` (Artifact, program bytes, RunSpec -> RunResult),
and this module applies the batch semantics the same way for all of them:

- a failed compile (CE or IE) marks every run skipped with the compile's status;
- ``stop_on_failure``: once a run is not OK, runs that have not started yet are skipped
  (status copied from the first failure, ``skipped=True``); runs already going finish;
- ``output_to_store``: each stdout goes to the output store and the result carries a link;
- results come back in the order of ``batch.runs``;
- up to ``capacity`` runs of a batch are in flight, and where batches compete for slots
  the older batch's runs get them first (``slot_queue``), so submissions finish one
  after another instead of all together at the end; between owners (clients) the slots
  are shared fairly run by run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from sandboxes.backends.slot_queue import RUN_ORDER, PriorityGate, batch_order, charge_run, forget_batch
from sandboxes.types import (Artifact, Batch, BatchResult, CompileResult, RunResult, RunSpec,
                             Source, Status)

CompileFn = Callable[[Source], Awaitable[CompileResult]]
RunFn = Callable[[Artifact, bytes, RunSpec], Awaitable[RunResult]]


def skipped(spec: RunSpec, status: Status, why: str) -> RunResult:
    return RunResult(id=spec.id, status=status, skipped=True, message=why)


async def run_batch(batch: Batch, *, compile_fn: CompileFn, run_fn: RunFn, capacity: int,
                    program_bytes: Callable[[Artifact], Awaitable[bytes]],
                    output_store=None, backend: str = "", gate: PriorityGate | None = None) -> BatchResult:
    """``gate``: the backend's own ``PriorityGate`` (one per backend, permits = slots), so
    batches share its slots oldest first; None: this batch alone is held to ``capacity``."""
    tag, seq = batch_order(len(batch.runs))  # fair between owners, oldest first within one
    # The compile goes through the backend's gate like a run (it takes a slot too) and its
    # permit then passes to the batch's first run: a batch that waited its turn once does not
    # queue again behind another owner's backlog between its compile and its runs.
    permit = [False]  # held by this batch and not yet handed to a run
    try:
        return await _compile_and_run(batch, compile_fn, run_fn, capacity, program_bytes,
                                      output_store, backend, gate, tag, seq, permit)
    finally:
        forget_batch(seq)
        if permit[0]:
            gate.release()


async def _compile_and_run(batch, compile_fn, run_fn, capacity, program_bytes, output_store,
                           backend, gate, tag, seq, permit) -> BatchResult:
    comp: CompileResult | None = None
    if isinstance(batch.program, Source):
        token = RUN_ORDER.set((tag, seq, -1))  # the compile waits in line as this batch
        try:
            if gate is not None:
                await gate.acquire()
                permit[0] = True
            comp = await compile_fn(batch.program)
        except Exception as exc:  # noqa: BLE001 - as above
            comp = CompileResult(status=Status.IE, log=f"backend failed: {type(exc).__name__}: {exc}")
        finally:
            RUN_ORDER.reset(token)
        if comp.status != Status.OK or comp.artifact is None:
            status = comp.status if comp.status != Status.OK else Status.IE
            return BatchResult(compile=comp, backend=backend,
                               runs=[skipped(s, status, f"not run: compile {status.value}") for s in batch.runs])
        artifact = comp.artifact
    else:
        artifact = batch.program
    try:
        data = await program_bytes(artifact)
    except Exception as exc:  # noqa: BLE001 - could not fetch the artifact: IE for every run
        return BatchResult(compile=comp, backend=backend, runs=[
            RunResult(id=s.id, status=Status.IE, message=f"cannot load program artifact: {exc}")
            for s in batch.runs])

    results: list[RunResult | None] = [None] * len(batch.runs)
    first_failure: list[RunResult] = []
    sem = gate if gate is not None else asyncio.Semaphore(max(1, capacity))

    async def one(i: int, spec: RunSpec) -> None:
        # Slots go to the oldest batch's runs first (sandboxes/backends/slot_queue.py).
        RUN_ORDER.set((tag + i, seq, i))
        inherited = permit[0]
        permit[0] = False  # the compile's permit, if any, is this run's now
        async with (_Inherited(sem) if inherited else sem):
            if batch.stop_on_failure and first_failure:
                f = first_failure[0]
                results[i] = skipped(spec, f.status, f"skipped: run {f.id!r} was {f.status.value}")
                return
            began = time.monotonic()
            try:
                res = await run_fn(artifact, data, spec)
            except Exception as exc:  # noqa: BLE001 - a backend bug is an IE, never a verdict
                res = RunResult(id=spec.id, status=Status.IE, message=f"backend failed: {type(exc).__name__}: {exc}")
            charge_run(seq, time.monotonic() - began)  # slow batches yield to their owner's others
            if batch.output_to_store and res.stdout is not None and res.status != Status.IE:
                res = await _store_output(res, output_store)
            results[i] = res
            if res.status != Status.OK and not first_failure:
                first_failure.append(res)

    if batch.stop_on_failure:
        # In order, so "the first failure" is the first in the batch that ran and failed,
        # with capacity-wide parallelism still used for the runs in flight.
        tasks = []
        for i, spec in enumerate(batch.runs):
            tasks.append(asyncio.create_task(one(i, spec)))
            await asyncio.sleep(0)
        await asyncio.gather(*tasks)
    else:
        await asyncio.gather(*(one(i, s) for i, s in enumerate(batch.runs)))
    return BatchResult(compile=comp, runs=[r for r in results if r is not None], backend=backend)


class _Inherited:
    """A gate permit already held (the batch's compile took it): released on exit only."""

    def __init__(self, gate):
        self.gate = gate

    async def __aenter__(self):
        return self

    async def __aexit__(self, *exc):
        self.gate.release()


async def _store_output(res: RunResult, store) -> RunResult:
    if store is None or not hasattr(store, "put"):
        return res.model_copy(update={"status": Status.IE, "stdout": None,
                                      "message": "output_to_store asked but the backend has no output store"})
    try:
        link, _ = await asyncio.to_thread(store.put, res.stdout)
    except Exception as exc:  # noqa: BLE001 - the store failed, not the submission
        return res.model_copy(update={"status": Status.IE, "stdout": None,
                                      "message": f"could not store output: {exc}"})
    return res.model_copy(update={"stdout": None, "stdout_link": link})
