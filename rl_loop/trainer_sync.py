"""Trainer side of the in-place weight sync: each rank sends its own FSDP shard rows.

`export(v)` queues version v for a sender thread that streams this rank's shard rows of
every parameter to every generator worker over the weight group (`rl_loop.weight_group`),
parameter by parameter, one message per (parameter, rank, generator). Nothing is gathered
on one rank.

Sent from the live shards, not a copy: the rows are read where the optimizer keeps them, so
an export costs no memory pass (the snapshot copy was 0.05-0.1 s of a 0.5 s sync for
SmolLM2-135M on 2 cores, and CPU the transfer and the engine's packing needed). The only
writer of those rows is the next update, so whoever changes the weights calls
`before_update()` first: it waits for a send that is reading them, and turns a send that
has not started (a generator still holds the previous version: one staging buffer each, so
v + 1 waits until v is taken) into a snapshot in a buffer, as every export used to be. The
trainer is therefore held only when an update would overlap a send in flight, which a
training step's forward/backward normally outlasts. Snapshots waiting to be sent are
bounded (`max_pending`), which bounds the extra memory to max_pending x (model / ranks).
"""
from __future__ import annotations

import json
import queue
import threading
import time

import torch

from rl_loop.weight_receiver import HEADER_TAG_OFFSET


def _local(p: torch.Tensor) -> torch.Tensor:
    """This rank's rows of a parameter (an FSDP2 DTensor sharded on dim 0, or a plain tensor)."""
    return p.to_local() if hasattr(p, "to_local") else p


class _Export:
    """One queued version: `buf` None while it reads the live shards."""

    def __init__(self, version: int, views: list[torch.Tensor], buf: torch.Tensor | None) -> None:
        self.version, self.views, self.buf = version, views, buf
        self.state = "queued"  # -> "copying" (before_update snapshots it) -> "queued"; "sending"; "done"


class ShardSender:
    def __init__(self, model: torch.nn.Module, rank: int, world: int, max_pending: int = 2,
                 live: bool = True) -> None:
        self.rank, self.world = rank, world
        # named_parameters() lists a tied head once (under the embedding's name).
        self.params = [(n, p) for n, p in model.named_parameters()]
        self.live = live  # False: snapshot at every export (the behaviour before live sends)
        self.pg = None
        self.generators: list[int] = []
        self._pool: queue.Queue = queue.Queue()
        self._todo: queue.Queue = queue.Queue()
        self._max_pending = max_pending
        self._made = 0
        self._error: BaseException | None = None
        self._cond = threading.Condition()
        self._live_items: list[_Export] = []  # exports that still read the live shards
        self.sent: dict[int, float] = {}
        self.update_wait_s = 0.0  # seconds `before_update` held the trainer (all calls)
        self.update_snapshots = 0  # exports `before_update` turned into snapshots
        self._transfers = 0
        self._targets: dict | None = None  # generator rank -> SharedTarget or None (set at transfer 1)
        self.stage_device: torch.device | None = None  # snapshot buffers' device (None: the shards')

    def local_plan(self) -> list[dict]:
        """Name, full shape, dtype and this rank's row count of each parameter, in send order."""
        out = []
        for n, p in self.params:
            loc = _local(p.data)
            out.append({"name": n, "shape": list(p.shape), "dtype": str(p.dtype).removeprefix("torch."),
                        "rows": int(loc.shape[0]) if loc.dim() else 1})
        return out

    def join(self, pg, store, generator_ranks: list[int]) -> None:
        from rl_loop.weight_group import backend_name

        self.pg, self.store, self.generators = pg, store, list(generator_ranks)
        if backend_name(pg) == "gloo" and _local(self.params[0][1].data).is_cuda:
            # gloo sends host memory: GPU shards go through a CPU snapshot at every export.
            self.live, self.stage_device = False, torch.device("cpu")
        threading.Thread(target=self._run, name="rl-weight-sender", daemon=True).start()

    def _buffer(self) -> torch.Tensor:
        try:
            return self._pool.get_nowait()
        except queue.Empty:
            pass
        if self._made < self._max_pending:
            self._made += 1
            numel = sum(_local(p.data).numel() for _, p in self.params)
            dev = self.stage_device or _local(self.params[0][1].data).device
            return torch.empty(numel, dtype=self.params[0][1].dtype, device=dev,
                               pin_memory=dev.type == "cpu" and torch.cuda.is_available())
        return self._pool.get()  # every buffer is queued: wait for the sender to free one

    @torch.no_grad()
    def _snapshot(self) -> tuple[torch.Tensor, list[torch.Tensor], float]:
        """Copy this rank's shards into a free buffer; returns (buffer, views, buffer wait s)."""
        t0 = time.perf_counter()
        buf = self._buffer()
        t_wait = time.perf_counter() - t0
        views, off = [], 0
        for _, p in self.params:
            loc = _local(p.data)
            n = loc.numel()
            view = buf[off:off + n]
            view.view_as(loc).copy_(loc)
            views.append(view)
            off += n
        return buf, views, t_wait

    def export(self, version: int) -> dict:
        """Queue this rank's shards of version `version` for sending (see the module doc)."""
        if self._error is not None:
            raise RuntimeError(f"weight sender failed: {self._error!r}")
        t0 = time.perf_counter()
        # gloo and NCCL send contiguous tensors only; a shard that is not gets the copy path.
        views = [_local(p.data).detach().reshape(-1) for _, p in self.params]
        if self.live and all(_local(p.data).is_contiguous() for _, p in self.params):
            item = _Export(version, views, None)
            with self._cond:
                self._live_items.append(item)
            self._todo.put(item)
            return {"snapshot_s": time.perf_counter() - t0, "buffer_wait_s": 0.0, "live": True}
        buf, views, t_wait = self._snapshot()
        self._todo.put(_Export(version, views, buf))
        return {"snapshot_s": time.perf_counter() - t0 - t_wait, "buffer_wait_s": t_wait, "live": False}

    def before_update(self) -> float:
        """Call before anything writes the parameters (optimizer step, checkpoint load): no
        queued export may read them afterwards. Returns the seconds it held the caller."""
        t0 = time.perf_counter()
        while True:
            with self._cond:
                if self._error is not None:
                    self._live_items.clear()  # the thread is gone: nothing reads the shards
                item = next((it for it in self._live_items if it.state != "copying"), None)
                if item is None:
                    break
                if item.state == "sending":  # reading the shards now: let it finish
                    self._cond.wait_for(lambda: item.state == "done" or self._error is not None)
                    continue
                item.state = "copying"  # not started: the sender waits until it is a snapshot
            buf, views, _ = self._snapshot()  # outside the lock: it may wait for a free buffer
            with self._cond:
                item.buf, item.views, item.state = buf, views, "queued"
                self._live_items.remove(item)
                self.update_snapshots += 1
                self._cond.notify_all()
        dt = time.perf_counter() - t0
        self.update_wait_s += dt
        return dt

    def _attach(self, device: torch.device) -> None:
        """Map each engine's staging buffer that this rank can reach on its host (gloo, CPU
        rows; `rl_loop.weight_shm`) and tell the engine which way this rank's rows come."""
        from rl_loop.weight_group import backend_name
        from rl_loop.weight_receiver import SHM_OFFER, SHM_USED
        from rl_loop.weight_shm import SharedTarget

        self._targets = {}
        for g in self.generators:
            offer = json.loads(self.store.get(f"{SHM_OFFER}/{g}"))
            target = None
            if offer and device.type == "cpu" and backend_name(self.pg) == "gloo":
                target = SharedTarget.attach(offer)
            self._targets[g] = target
            self.store.set(f"{SHM_USED}/{g}/{self.rank}", "1" if target is not None else "0")

    def _run(self) -> None:
        try:
            while True:
                item = self._todo.get()
                from rl_loop.weight_group import STARTED, TAKEN, bump, wait_count

                # Every engine must have taken the previous version (one staging buffer each).
                wait_count(self.store, TAKEN, self._transfers * len(self.generators))
                with self._cond:
                    self._cond.wait_for(lambda: item.state != "copying")
                    item.state = "sending"
                if self._targets is None:
                    self._attach(item.views[0].device)
                self._transfers += 1
                t0 = time.perf_counter()
                bump(self.store, STARTED)
                header = torch.tensor([item.version], dtype=torch.int64, device=item.views[0].device)
                works = []
                for g in self.generators:
                    target = self._targets.get(g)
                    if target is not None:  # same host: rows straight into its buffer, then the header
                        for i, v in enumerate(item.views):
                            target.write(i, self.rank, v)
                        works.append(self.pg.send([header], g, HEADER_TAG_OFFSET))
                        continue
                    works.append(self.pg.send([header], g, HEADER_TAG_OFFSET))
                    for i, v in enumerate(item.views):
                        if v.numel():
                            works.append(self.pg.send([v], g, i + 1))
                for w in works:
                    w.wait()
                if header.is_cuda:  # pragma: no cover - GPU only
                    # NCCL's wait orders streams, not the host: the shards may change only
                    # once the sends have really read them.
                    torch.cuda.synchronize(header.device)
                self.sent[item.version] = time.perf_counter() - t0
                with self._cond:
                    item.state = "done"
                    if item in self._live_items:
                        self._live_items.remove(item)
                    self._cond.notify_all()
                if item.buf is not None:
                    self._pool.put(item.buf)
        except BaseException as exc:  # noqa: BLE001 - reported on the next export
            with self._cond:
                self._error = exc
                self._cond.notify_all()
