"""The backend seam: one async interface that local, docker and lambda implement.

A backend owns its warm capacity (prepared namespaces, warm containers, concurrent
Lambda invocations). ``run_batch`` compiles once and runs every run of the batch,
in parallel up to ``capacity``, and returns results in the order of ``batch.runs``.
A failure of the backend itself is reported as ``Status.IE`` results (or raised as
``SandboxError`` when nothing could run at all), never as a verdict on the code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from sandboxes.types import Batch, BatchResult


class SandboxError(Exception):
    """The sandbox could not do its job (an internal error, reported as IE)."""


class SandboxBackend(ABC):
    name: str = "base"

    @property
    @abstractmethod
    def capacity(self) -> int:
        """How many runs this backend executes at once."""

    @abstractmethod
    async def start(self) -> None:
        """Prepare warm capacity and run every language's self-test; raise SandboxError if broken."""

    @abstractmethod
    async def run_batch(self, batch: Batch) -> BatchResult: ...

    @abstractmethod
    async def close(self) -> None: ...

    async def __aenter__(self) -> "SandboxBackend":
        await self.start()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
