"""The ``backend`` fixture shared by tests/sandboxes and tests/security.

Params come from env ``SANDBOX_BACKENDS`` (default ``local,docker,lambda,lambda-aws``;
``lambda-aws`` is the Lambda image in one warm non-root execution environment, see
``lambda_aws.py``). A backend
that is listed but cannot be built or started makes its tests FAIL (an error), never
skip: CI runs all three. Each backend is started once per session on a private event
loop thread and handed to tests as a ``Handle`` with a synchronous ``run(batch)``, so the
suites are plain functions, independent of pytest-asyncio's loop scoping.

Every backend gets ``resolver=`` and ``output_store=`` a FileBlobStore in a session temp
dir (``handle.store``) so tests can send inputs by link and read outputs stored by link.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import threading
from dataclasses import dataclass

import pytest

from problem_store.blobs.file import FileBlobStore
from sandboxes.backends.registry import create_backend
from sandboxes.types import Batch, BatchResult, Blob, RunLimits, RunResult, RunSpec, Source
from tests.sandboxes.backend_options import BACKEND_FACTORIES, BACKEND_OPTIONS


# A secret in the service's own environment, set before any backend starts: the security
# suite checks that no sandboxed program can see it.
HOST_SECRET = "oubliette-host-secret-" + secrets.token_hex(8)
os.environ["OUBLIETTE_TEST_HOST_SECRET"] = HOST_SECRET


def backend_names() -> list[str]:
    raw = os.environ.get("SANDBOX_BACKENDS", "local,docker,lambda,lambda-aws")
    return [n.strip() for n in raw.split(",") if n.strip()]


class _LoopThread:
    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="backend-loop", daemon=True)
        self.thread.start()

    def call(self, coro, timeout: float):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def stop(self):
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@dataclass
class Handle:
    name: str
    backend: object
    store: FileBlobStore
    _loop: _LoopThread

    def run(self, batch: Batch, timeout: float = 300) -> BatchResult:
        return self._loop.call(self.backend.run_batch(batch), timeout)

    def run_code(self, language: str, code: str, stdin: bytes | None = b"", **spec) -> RunResult:
        """Compile ``code`` and run it once; asserts it compiled."""
        res = self.run(Batch(program=Source(language=language, code=code),
                             runs=[RunSpec(id="t", stdin=None if stdin is None else Blob(data=stdin), **spec)]))
        assert res.compile is not None and res.compile.status.value == "OK", res.compile
        return res.runs[0]


_HANDLES: dict[str, Handle] = {}
_LOCK = threading.Lock()


def get_handle(name: str, request) -> Handle:
    """Build and start backend ``name`` once per session (shared by both suites)."""
    with _LOCK:
        if name in _HANDLES:
            return _HANDLES[name]
        store_dir = request.getfixturevalue("tmp_path_factory").mktemp(f"store-{name}")
        store = FileBlobStore(store_dir)
        opts = BACKEND_OPTIONS.get(name, {})
        if callable(opts):
            opts = opts(request)
        loop = _LoopThread()
        try:
            factory = BACKEND_FACTORIES.get(name)
            if factory is not None:
                backend = factory(request, resolver=store, output_store=store)
            else:
                backend = create_backend(name, **{"resolver": store, "output_store": store, **opts})
            loop.call(backend.start(), 600)
        except BaseException:
            loop.stop()
            raise
        handle = Handle(name, backend, store, loop)
        _HANDLES[name] = handle

        def _close():
            try:
                loop.call(backend.close(), 120)
            finally:
                loop.stop()
                _HANDLES.pop(name, None)

        request.config.add_cleanup(_close)
        return handle


def quick_limits(**kw) -> RunLimits:
    base = dict(cpu_time_s=2.0, wall_time_s=4.0, memory_mb=256)
    base.update(kw)
    return RunLimits(**base)


def make_backend_fixture():
    @pytest.fixture(scope="session", params=backend_names())
    def backend(request) -> Handle:
        return get_handle(request.param, request)

    return backend
