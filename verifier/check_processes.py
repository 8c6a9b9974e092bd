"""Built-in checks of large outputs in worker processes, off the service's GIL.

A built-in checker is pure Python over bytes. On a large output (a correct 4 MB answer read
as 300,000 numbers, or a wrong program's 60 MB flood) it holds the interpreter lock for
0.1-1.7 s (BENCHMARKS.md, "built-in checkers on a flood of output"); in a thread of the
service that is time the event loop and every other request wait for. Outputs over the
inline bound (``verifier.judging.stdio``) are therefore checked in a small pool of worker
processes: the ``request`` work class's thread only waits for the result, without the lock.

The workers come from a fork server that has imported only the checkers (nothing of the
service, not its ``__main__``). A worker that dies is an internal failure (IE for that
check, never a verdict); the pool is rebuilt for the next call.
"""

from __future__ import annotations

import multiprocessing
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool


class CheckWorkerFailed(RuntimeError):
    """A check worker process died or could not start: the service's failure, not a verdict."""


class CheckProcesses:
    def __init__(self, workers: int):
        if workers < 1:
            raise ValueError(f"check workers must be >= 1, got {workers}")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self.failures = 0

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                ctx = multiprocessing.get_context("forkserver")
                ctx.set_forkserver_preload(["verifier.checkers.builtin"])
                self._pool = ProcessPoolExecutor(self.workers, mp_context=ctx)
            return self._pool

    def call(self, fn, *args):
        """Run module-level ``fn(*args)`` in a worker and return its result (blocking: call it
        from a thread). CheckWorkerFailed when the worker died."""
        pool = self._executor()
        try:
            return pool.submit(fn, *args).result()
        except BrokenProcessPool as exc:
            with self._lock:
                self.failures += 1
                if self._pool is pool:
                    self._pool = None
            pool.shutdown(wait=False, cancel_futures=True)
            raise CheckWorkerFailed(f"check worker process died: {exc}") from exc

    def shutdown(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
