"""A fake sandbox backend for unit tests of the judging logic (httpx-MockTransport style).

It runs Python programs in a plain subprocess on the host (trusted test code only; no
isolation), resolves ``Blob`` links from a real blob store, and implements the contract of
``sandboxes.backends.base.SandboxBackend``: compile once (a syntax check, artifact = source),
runs in parallel up to ``capacity``, results in order, ``stop_on_failure`` skips later runs.
'binary' artifacts (checkers) are Python scripts too. ``fail`` makes it raise like a broken
backend; ``compiles`` counts compile steps (to test the compile cache).
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
import time

from sandboxes.backends.base import SandboxBackend, SandboxError
from sandboxes.types import (Artifact, Batch, BatchResult, Blob, CompileResult, RunResult, RunSpec,
                             Source, Status)


class FakeBackend(SandboxBackend):
    name = "fake"

    def __init__(self, blobs=None, capacity: int = 4):
        self.blobs = blobs
        self._capacity = capacity
        self.started = False
        self.fail: Exception | None = None
        self.compiles = 0
        self.batches = 0
        self.ran: list[str] = []
        self.specs: list[RunSpec] = []  # every run's spec, as the service sent it

    @property
    def capacity(self) -> int:
        return self._capacity

    async def start(self) -> None:
        self.started = True

    async def close(self) -> None:
        self.started = False

    def _data(self, blob: Blob | None) -> bytes:
        if blob is None:
            return b""
        if blob.data is not None:
            return blob.data
        return self.blobs.get(blob.link)

    async def run_batch(self, batch: Batch) -> BatchResult:
        self.batches += 1
        if self.fail is not None:
            raise self.fail
        compile_result = None
        program = batch.program
        if isinstance(program, Source):
            self.compiles += 1
            if program.language not in ("python", "cpp", "c"):
                raise SandboxError(f"fake backend cannot compile {program.language}")
            try:
                compile(program.code, "main.py", "exec")
            except SyntaxError as exc:
                return BatchResult(compile=CompileResult(status=Status.CE, log=f"SyntaxError: {exc}"),
                                   backend=self.name)
            art = Artifact(language="python", blob=Blob(data=program.code.encode()))
            compile_result = CompileResult(status=Status.OK, artifact=art)
            code = program.code.encode()
        else:
            code = self._data(program.blob)
        sem = asyncio.Semaphore(self._capacity)
        stop = asyncio.Event()

        async def one(spec: RunSpec) -> RunResult:
            async with sem:
                if batch.stop_on_failure and stop.is_set():
                    return RunResult(id=spec.id, status=Status.OK, skipped=True)
                res = await self._run(code, spec)
                if res.status != Status.OK:
                    stop.set()
                return res

        if batch.stop_on_failure:
            runs = [await one(s) for s in batch.runs]
        else:
            runs = list(await asyncio.gather(*(one(s) for s in batch.runs)))
        return BatchResult(compile=compile_result, runs=runs, backend=self.name)

    async def _run(self, code: bytes, spec: RunSpec) -> RunResult:
        self.ran.append(spec.id)
        self.specs.append(spec)
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "main.py"), "wb") as fh:
                fh.write(code)
            for name, blob in spec.files.items():
                with open(os.path.join(tmp, name), "wb") as fh:
                    fh.write(self._data(blob))
            t0 = time.perf_counter()
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-S", "main.py", *spec.args, cwd=tmp,
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
            try:
                out, err = await asyncio.wait_for(proc.communicate(self._data(spec.stdin)),
                                                  timeout=spec.limits.wall_time_s)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
                return RunResult(id=spec.id, status=Status.TLE, message="wall time limit",
                                 wall_time_s=time.perf_counter() - t0)
            except asyncio.CancelledError:
                proc.kill()
                await proc.wait()
                raise
            wall = time.perf_counter() - t0
            if len(out) > spec.limits.output_bytes:
                return RunResult(id=spec.id, status=Status.OLE, wall_time_s=wall)
            status = Status.OK if proc.returncode == 0 else Status.RE
            signal = -proc.returncode if proc.returncode < 0 else None
            return RunResult(id=spec.id, status=status, stdout=out, stderr=err[-4096:],
                             exit_code=None if signal else proc.returncode, signal=signal,
                             wall_time_s=wall, cpu_time_s=wall, output_bytes=len(out))
