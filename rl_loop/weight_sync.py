"""Weight sync: trainer ranks -> running generator engines, timed. Two paths, one contract.

Both split a sync into `export(v)` (the trainer has version v; it will move on) and
`load(v)` (the producer starts the first step v generates: the engines must hold v now),
because the deterministic schedule (`rl_loop.schedule`) needs them apart.

`GroupWeightSync` (default, `weight_sync.method: group`): in place, through a process group.
Trainer ranks and one worker per engine share a weight-update group (`rl_loop.weight_group`:
NCCL when each member has a GPU of its own, else gloo; same code). `export(v)`: every rank copies its own
FSDP shard rows into a snapshot buffer (no collective, no full-state gather) and a sender
thread streams them, parameter by parameter, to every engine's receiver thread, which
receives each piece in place in a full-size staging tensor (`rl_loop.trainer_sync`,
`rl_loop.weight_receiver`). `load(v)`: each engine copies the staged tensors into its
running model by plain copies (`rl_loop.engine_weights`; vLLM's layer-wise reload where the
model is not covered), then resets the prefix cache. No file, no
serialisation; the trainer is not involved in `load`, so a load never waits for a train step.

`FileWeightSync` (fallback, `weight_sync.method: file`): rank 0 gathers the full state
(FSDP2 full-state dict), writes one safetensors file on /dev/shm, and each engine loads it.
Kept because it needs no network path from the trainer nodes to the generators, and it is
what checkpoints use to restore an engine on resume.
"""
from __future__ import annotations

import asyncio
import os
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


def default_sync_dir() -> Path:
    """/dev/shm when present (memory), else the system temp dir."""
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(os.environ.get("TMPDIR", "/tmp"))


def write_state_dict(state: dict, path: str | os.PathLike, drop_tied_head: bool = True) -> dict:
    """Write a full state dict as safetensors, atomically. Returns bytes and seconds.

    `lm_head.weight` is dropped when tied to the embedding: safetensors refuses shared
    storage, and vLLM's Llama loader ties it again from the embedding.
    """
    from safetensors.torch import save_file

    t0 = time.perf_counter()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tensors = {}
    for k, v in state.items():
        if drop_tied_head and k == "lm_head.weight":
            continue
        tensors[k] = v.detach().to("cpu").contiguous()
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    save_file(tensors, str(tmp), metadata={"format": "pt"})
    os.replace(tmp, path)
    nbytes = sum(t.numel() * t.element_size() for t in tensors.values())
    return {"bytes": nbytes, "tensors": len(tensors), "write_s": time.perf_counter() - t0}


class WeightSource(Protocol):
    """What the sync needs from the trainer (rl_loop.trainer.Trainer implements it)."""

    async def export_weights(self, path: str) -> dict: ...


class WeightSink(Protocol):
    """What the sync needs from a generator (rl_loop.generator.Generator implements it)."""

    async def load_weights(self, path: str, version: int) -> dict: ...


@dataclass
class SyncRecord:
    version: int
    export_s: float
    load_s: float
    total_s: float
    bytes: int


class _ExportThenLoad:
    """`push` = export now + load at once (benchmarks, tests); the controller calls the two
    apart so each version reaches the engines only when the schedule needs it."""

    async def push(self, version: int) -> SyncRecord:
        await self.export(version)
        return await self.load(version)


@dataclass
class FileWeightSync(_ExportThenLoad):
    """Trainer -> safetensors file on /dev/shm -> every generator.

    Export and load are separate steps because the deterministic schedule
    (`rl_loop.schedule`) needs them apart: the trainer exports version v as soon as it has
    it (it will move on), and the generators load it only once they have finished every
    step that older weights generate. One file per exported version, removed once loaded;
    `sweep` removes this run's leftovers (a killed run) at start and `cleanup` at exit.
    """

    trainer: WeightSource
    generators: list
    sync_dir: Path = field(default_factory=default_sync_dir)
    run_tag: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    history: list[SyncRecord] = field(default_factory=list)
    _exported: dict[int, tuple[float, int]] = field(default_factory=dict)

    def path_for(self, version: int) -> Path:
        return Path(self.sync_dir) / f"rl_loop_weights_{self.run_tag}_v{version}.safetensors"

    async def export(self, version: int) -> float:
        t0 = time.perf_counter()
        info = await self.trainer.export_weights(str(self.path_for(version)))
        dt = time.perf_counter() - t0
        self._exported[version] = (dt, int(info.get("bytes", 0)))
        return dt

    def exported(self, version: int) -> bool:
        return version in self._exported

    async def load(self, version: int) -> SyncRecord:
        export_s, nbytes = self._exported.pop(version)
        path = self.path_for(version)
        t0 = time.perf_counter()
        for g in self.generators:
            await g.load_weights(str(path), version)
        load_s = time.perf_counter() - t0
        path.unlink(missing_ok=True)
        rec = SyncRecord(version, export_s, load_s, export_s + load_s, nbytes)
        self.history.append(rec)
        return rec

    def sweep(self) -> int:
        """Remove every weight file of this run tag; returns how many were removed."""
        n = 0
        for p in Path(self.sync_dir).glob(f"rl_loop_weights_{self.run_tag}_v*.safetensors"):
            p.unlink(missing_ok=True)
            n += 1
        for p in Path(self.sync_dir).glob(f".rl_loop_weights_{self.run_tag}_v*.tmp"):
            p.unlink(missing_ok=True)
        return n

    def cleanup(self) -> None:
        self._exported.clear()
        self.sweep()


@dataclass
class GroupWeightSync(_ExportThenLoad):
    """Trainer shards -> weight group -> every engine's staging buffer -> engine (see top)."""

    trainer: object  # rl_loop.trainer.Trainer
    generators: list
    host: str = "127.0.0.1"
    timeout_s: float = 300.0
    backend: str | None = None
    copy_in: str = "direct"  # or "reload" (vLLM's layer-wise reload; also the automatic fallback)
    same_host: str = "shared_memory"  # or "send" (distributed.weight_group_same_host)
    history: list[SyncRecord] = field(default_factory=list)
    detail: list[dict] = field(default_factory=list)
    _exported: dict[int, tuple[float, int]] = field(default_factory=dict)

    async def setup(self, n_trainer_ranks: int) -> dict:
        """Create the rendezvous store, then join trainer ranks and engines together."""
        from rl_loop.weight_group import GroupSpec, WeightStore, default_backend

        t0 = time.perf_counter()
        self._store = WeightStore(self.host, self.timeout_s)
        spec = GroupSpec(self.host, self._store.port, n_trainer_ranks + len(self.generators),
                         self.backend or default_backend(), timeout_s=self.timeout_s,
                         same_host=self.same_host).to_dict()
        plan = await self.trainer.sync_plan()
        self._bytes = sum(_numel(p["shape"]) * _itemsize(p["dtype"]) for p in plan)
        gen_ranks = [n_trainer_ranks + i for i in range(len(self.generators))]
        res = await asyncio.gather(
            self.trainer.sync_join(spec, gen_ranks),
            *(g.sync_join(spec, r, plan, n_trainer_ranks, self.copy_in) for g, r in zip(self.generators, gen_ranks)))
        return {"join_s": time.perf_counter() - t0, "bytes": self._bytes, "world": spec["world"],
                "copy_in": sorted({r["copy_in"] for r in res[1:]})}

    async def export(self, version: int) -> float:
        t0 = time.perf_counter()
        await self.trainer.sync_export(version)
        dt = time.perf_counter() - t0
        self._exported[version] = (dt, self._bytes)
        return dt

    def exported(self, version: int) -> bool:
        return version in self._exported

    async def load(self, version: int) -> SyncRecord:
        export_s, nbytes = self._exported.pop(version)
        t0 = time.perf_counter()
        res = await asyncio.gather(*(g.sync_apply(version, self.timeout_s) for g in self.generators))
        load_s = time.perf_counter() - t0
        self.detail.append({"version": version, "snapshot_s": export_s,
                            "transfer_wait_s": max(r["wait_s"] for r in res),
                            "recv_s": max(r["recv_s"] for r in res),
                            "copy_in_s": max(r["copy_in_s"] for r in res),
                            "prepack_s": max(r.get("prepack_s", 0.0) for r in res),
                            "receiver_cpu_s": max(r.get("receiver_cpu_s", 0.0) for r in res),
                            "receiver_minflt": max(r.get("receiver_minflt", 0) for r in res),
                            "pack_cpu_s": max(r.get("pack_cpu_s", 0.0) for r in res),
                            "pack_minflt": max(r.get("pack_minflt", 0) for r in res),
                            # trainer ranks that wrote into the engines' shared buffers (fewest)
                            "ranks_in_place": min(r.get("ranks_in_place", 0) for r in res)})
        rec = SyncRecord(version, export_s, load_s, export_s + load_s, nbytes)
        self.history.append(rec)
        return rec

    def sweep(self) -> int:
        return 0  # nothing on disk

    def cleanup(self) -> None:
        self._exported.clear()


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _itemsize(dtype: str) -> int:
    import torch

    return torch.empty(0, dtype=getattr(torch, dtype)).element_size()
