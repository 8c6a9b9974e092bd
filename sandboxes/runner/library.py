"""``execute_batch``: the runner as a library call (the Lambda handler, tests).

Same engine and same batch semantics as the agent-based backends: requests are built by
``convert``, run by ``core.Runner`` in this process, one at a time, and the results go
through ``batching``. Runs execute as the calling uid unless ``run_uid`` is given
(Lambda cannot setuid; the function's own sandbox is the outer wall there).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os

from sandboxes.runner import convert
from sandboxes.runner.batching import run_batch
from sandboxes.runner.core import ArtifactMissing, RequestError, Runner, RunnerConfig
from sandboxes.runner.process import set_not_dumpable
from sandboxes.types import Artifact, Batch, BatchResult, RunSpec, Source


def execute_batch(batch: Batch, resolver, workdir: str, *, run_uid: int | None = None,
                  output_store=None, backend: str = "library", spawn: str = "auto",
                  wipe_new_in: list[str] | None = None, protect_caller: bool = True,
                  own_namespace: bool = False, on_leftover=None) -> BatchResult:
    """Compile and run ``batch`` here; ``resolver.get(link)`` supplies linked blobs.

    ``spawn``: "auto" builds the C spawn shim once per process (a few hundred ms on a cold
    start, then ~1 ms a run and exact peak memory); "fork" needs no compiler.
    ``wipe_new_in``: dirs (e.g. ["/tmp"] in a Lambda) whose new entries are removed after
    every run, so no state passes between runs that share our uid. Opt-in: on a shared
    host it would delete other processes' new files too.
    ``protect_caller``: without a run uid, runs share our uid and could read our
    /proc/<pid>/environ (cloud credentials) and memory; PR_SET_DUMPABLE=0 makes those
    files root-only for this process.
    ``own_namespace``: this process is alone in its machine (a Lambda function): after
    every run its IPC namespace is emptied and, without a run uid, every other process of
    our uid but our ancestors is killed (``sandboxes.runner.reset``). Never on a shared host.
    ``on_leftover(list[str])``: called when a run's clean-up left something behind; the
    caller must not run anything more in this environment.
    """
    if isinstance(batch, dict):
        batch = Batch.model_validate(batch)
    os.makedirs(workdir, exist_ok=True)
    if run_uid is None and protect_caller:
        set_not_dumpable()
    runner = Runner(RunnerConfig(scratch_root=workdir, uid=run_uid, gid=run_uid, spawn=spawn,
                                 wipe_new_in=list(wipe_new_in or []), clear_ipc=own_namespace,
                                 sweep_own_uid=own_namespace and run_uid is None,
                                 pch_root=os.environ.get("OUBLIETTE_PCH_ROOT") or None))
    blobs = convert.BlobResolver(resolver)

    def call(fn, *args):
        try:
            reply = fn(*args)
        except (RequestError, ArtifactMissing) as exc:
            return {"error": str(exc)}
        if reply.get("leftover") and on_leftover is not None:
            on_leftover(reply["leftover"])
        return reply

    async def compile_fn(src: Source):
        return convert.compile_result(call(runner.compile, convert.compile_request(src)))

    async def program_bytes(art: Artifact) -> bytes:
        return blobs.data(art.blob)

    async def run_fn(art: Artifact, data: bytes, spec: RunSpec):
        try:
            req = convert.run_request(spec, convert.program_ref(art, data, with_data=True), blobs, [])
        except Exception as exc:  # noqa: BLE001 - a missing/corrupt input blob is our failure
            return convert.ie_result(spec.id, f"cannot resolve run inputs: {exc}")
        return convert.run_result(spec.id, call(runner.run, req))

    coro = run_batch(batch, compile_fn=compile_fn, run_fn=run_fn, capacity=1,
                     program_bytes=program_bytes, output_store=output_store, backend=backend)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:  # called from inside a loop
        return pool.submit(asyncio.run, coro).result()
