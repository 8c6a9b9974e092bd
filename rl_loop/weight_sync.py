"""Weight sync: trainer rank 0 -> running generator engines, timed.

The path used here (CPU and single-host GPU alike):

1. every trainer rank takes part in FSDP2's full-state gather
   (`get_model_state_dict(full_state_dict=True, cpu_offload=True)`); rank 0 ends up with
   the whole model in host memory;
2. rank 0 writes it as one safetensors file, normally under /dev/shm (tmpfs: a memory copy,
   no disk), atomically (temp name + `os.replace`) so a reader never sees half a file;
3. each generator loads it into its *running* vLLM engine through the worker extension
   (`rl_loop.vllm_worker.WeightLoaderExtension.rl_load_weights` via `collective_rpc`) and
   resets its prefix cache (cached KV blocks were computed with the old weights).

GPU hook (not exercised here, no GPU on this machine): `NcclBroadcastSync` documents where
an NCCL broadcast replaces steps 2-3, as in LlamaRL's DDMA / vLLM's RLHF examples: trainer
rank 0 and every generator worker join one extra process group
(`vllm.distributed.utils.StatelessProcessGroup` + `PyNcclCommunicator`), the trainer
broadcasts each full tensor (or each FSDP shard gathered layer by layer), and the worker
extension feeds the received tensors to the same `reload_weights` iterator. The controller
code does not change: it calls `WeightSync.push(version)` either way.
"""
from __future__ import annotations

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


@dataclass
class FileWeightSync:
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

    async def push(self, version: int) -> SyncRecord:
        await self.export(version)
        return await self.load(version)

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


class NcclBroadcastSync:  # pragma: no cover - GPU-only design hook
    """Placeholder for the GPU path (see the module docstring); same `push` contract."""

    def __init__(self, *a, **kw) -> None:
        raise NotImplementedError(
            "NCCL weight broadcast needs GPUs; use FileWeightSync (the /dev/shm path) on CPU"
        )
