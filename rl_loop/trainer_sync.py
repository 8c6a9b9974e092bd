"""Trainer side of the in-place weight sync: each rank sends its own FSDP shard rows.

`export(v)` copies this rank's local shards of every parameter into a flat snapshot buffer
(a local memory copy, no collective) and returns: the trainer moves on to the next step
while a sender thread streams the snapshot to every generator worker over the weight
group (`rl_loop.weight_group`), parameter by parameter, one message per (parameter, rank,
generator). A generator stages one version at a time, so a send of v + 1 simply waits until
the engine has taken v; snapshots waiting to be sent are bounded (`max_pending`), which
bounds the trainer's extra memory to max_pending x (model size / ranks).
"""
from __future__ import annotations

import queue
import threading
import time

import torch

from rl_loop.weight_receiver import HEADER_TAG_OFFSET


def _local(p: torch.Tensor) -> torch.Tensor:
    """This rank's rows of a parameter (an FSDP2 DTensor sharded on dim 0, or a plain tensor)."""
    return p.to_local() if hasattr(p, "to_local") else p


class ShardSender:
    def __init__(self, model: torch.nn.Module, rank: int, world: int, max_pending: int = 2) -> None:
        self.rank, self.world = rank, world
        # named_parameters() lists a tied head once (under the embedding's name).
        self.params = [(n, p) for n, p in model.named_parameters()]
        self.pg = None
        self.generators: list[int] = []
        self._pool: queue.Queue = queue.Queue()
        self._todo: queue.Queue = queue.Queue()
        self._max_pending = max_pending
        self._made = 0
        self._error: BaseException | None = None
        self.sent: dict[int, float] = {}
        self._transfers = 0

    def local_plan(self) -> list[dict]:
        """Name, full shape, dtype and this rank's row count of each parameter, in send order."""
        out = []
        for n, p in self.params:
            loc = _local(p.data)
            out.append({"name": n, "shape": list(p.shape), "dtype": str(p.dtype).removeprefix("torch."),
                        "rows": int(loc.shape[0]) if loc.dim() else 1})
        return out

    def join(self, pg, store, generator_ranks: list[int]) -> None:
        self.pg, self.store, self.generators = pg, store, list(generator_ranks)
        threading.Thread(target=self._run, name="rl-weight-sender", daemon=True).start()

    def _buffer(self) -> torch.Tensor:
        try:
            return self._pool.get_nowait()
        except queue.Empty:
            pass
        if self._made < self._max_pending:
            self._made += 1
            numel = sum(_local(p.data).numel() for _, p in self.params)
            dev = _local(self.params[0][1].data).device
            return torch.empty(numel, dtype=self.params[0][1].dtype, device=dev)
        return self._pool.get()  # every buffer is queued: wait for the sender to free one

    def export(self, version: int) -> dict:
        """Snapshot this rank's shards of version `version` and queue them for sending."""
        if self._error is not None:
            raise RuntimeError(f"weight sender failed: {self._error!r}")
        t0 = time.perf_counter()
        buf = self._buffer()
        t_wait = time.perf_counter() - t0
        views, off = [], 0
        with torch.no_grad():
            for _, p in self.params:
                loc = _local(p.data)
                n = loc.numel()
                view = buf[off:off + n]
                view.view_as(loc).copy_(loc)
                views.append(view)
                off += n
        self._todo.put((version, buf, views))
        return {"snapshot_s": time.perf_counter() - t0 - t_wait, "buffer_wait_s": t_wait}

    def _run(self) -> None:
        try:
            while True:
                version, buf, views = self._todo.get()
                from rl_loop.weight_group import STARTED, TAKEN, bump, wait_count

                # Every engine must have taken the previous version (one staging buffer each).
                wait_count(self.store, TAKEN, self._transfers * len(self.generators))
                self._transfers += 1
                t0 = time.perf_counter()
                bump(self.store, STARTED)
                header = torch.tensor([version], dtype=torch.int64, device=buf.device)
                works = []
                for g in self.generators:
                    works.append(self.pg.send([header], g, HEADER_TAG_OFFSET))
                    for i, v in enumerate(views):
                        if v.numel():
                            works.append(self.pg.send([v], g, i + 1))
                for w in works:
                    w.wait()
                self.sent[version] = time.perf_counter() - t0
                self._pool.put(buf)
        except BaseException as exc:  # noqa: BLE001 - reported on the next export
            self._error = exc
