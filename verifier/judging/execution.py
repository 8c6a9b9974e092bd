"""Compile once (through the cache), run a batch in the sandbox, and say which phase failed.

This is the only module that talks to the sandbox backend for submissions. A backend
exception is our failure, reported as IE with the reason; cancellation (client gone,
deadline) propagates so the backend can kill the runs.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from sandboxes.backends.base import SandboxBackend
from sandboxes.types import Artifact, Batch, BatchResult, RunResult, RunSpec, Source, Status
from verifier.judging.compile_cache import CompileCache, cache_key
from verifier.models import CompileInfo

log = logging.getLogger("verifier.execution")


@dataclass
class ExecOutcome:
    compile: CompileInfo
    runs: list[RunResult] = field(default_factory=list)
    sandbox_s: float = 0.0

    @property
    def compile_failed(self) -> bool:
        return self.compile.status == "CE"

    @property
    def internal_error(self) -> bool:
        return self.compile.status == "IE"


class Executor:
    def __init__(self, backend: SandboxBackend, cache: CompileCache, metrics=None):
        self.backend = backend
        self.cache = cache
        self.metrics = metrics

    async def run(self, language: str, code: str, runs: list[RunSpec], *,
                  stop_on_failure: bool = False, output_to_store: bool = False) -> ExecOutcome:
        key = cache_key(language, code)
        cached = self.cache.get(key)
        if cached is not None and cached.status == Status.CE:
            return ExecOutcome(CompileInfo(status="CE", log=cached.log))
        program: Source | Artifact
        program = cached.artifact if cached is not None else Source(language=language, code=code)
        batch = Batch(program=program, runs=runs, stop_on_failure=stop_on_failure,
                      output_to_store=output_to_store)
        result = await self._submit(batch)
        if result is None or isinstance(result, str):
            return ExecOutcome(CompileInfo(status="IE", log=result or "sandbox failed"))
        sandbox_s = sum(r.wall_time_s for r in result.runs)
        if result.compile is not None:
            sandbox_s += result.compile.wall_time_s
        if self.metrics is not None:
            self.metrics.sandbox_seconds.inc(sandbox_s)
        if cached is not None:
            info = CompileInfo(status="CACHED", log=cached.log)
        elif result.compile is None:
            info = CompileInfo(status="OK")
        else:
            c = result.compile
            self.cache.put(key, c)
            if c.status == Status.CE:
                return ExecOutcome(CompileInfo(status="CE", log=c.log, wall_time_s=c.wall_time_s),
                                   sandbox_s=sandbox_s)
            if c.status != Status.OK:
                return ExecOutcome(CompileInfo(status="IE", log=c.log or "compile step failed",
                                               wall_time_s=c.wall_time_s), sandbox_s=sandbox_s)
            info = CompileInfo(status="OK", log=c.log, wall_time_s=c.wall_time_s)
        got = [r.id for r in result.runs]
        want = [r.id for r in runs]
        if got != want:
            return ExecOutcome(CompileInfo(status="IE", log=f"backend returned runs {got[:5]}..., "
                                           f"expected {want[:5]}..."), sandbox_s=sandbox_s)
        return ExecOutcome(info, list(result.runs), sandbox_s)

    async def _submit(self, batch: Batch) -> BatchResult | str:
        t0 = time.perf_counter()
        try:
            return await self.backend.run_batch(batch)
        except Exception as exc:  # noqa: BLE001 - a backend failure of any kind is IE
            log.warning("sandbox backend failed: %r", exc, exc_info=True)
            return f"sandbox backend failed after {time.perf_counter() - t0:.2f}s: {exc!r}"
