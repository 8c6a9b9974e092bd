"""How trainer ranks are launched: torchrun, one launch per node, nothing home-made.

One node (`distributed.nnodes: 1`): the controller runs `torchrun --standalone`.
Several nodes: the controller's machine runs node 0's launch itself and every other node
runs `rl-loop trainer-node --config SAME.yaml distributed.node_rank=N`; all launches join one
c10d rendezvous (`distributed.rdzv_endpoint`) and torchrun numbers the ranks. Whichever rank
torchrun makes rank 0 connects to the controller's command socket
(`distributed.controller_host:controller_port`) with the key in env RL_LOOP_AUTHKEY; the
weight group's store listens on the same host. So a multi-host job and the loopback test
(two launches on 127.0.0.1) go through the same code.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
AUTHKEY_ENV = "RL_LOOP_AUTHKEY"


def torchrun_cmd(world_size: int, nnodes: int, node_rank: int, rdzv_endpoint: str | None,
                 rdzv_id: str) -> list[str]:
    per_node = world_size // nnodes
    cmd = [sys.executable, "-m", "torch.distributed.run", f"--nproc_per_node={per_node}"]
    if nnodes == 1:
        cmd += ["--standalone", "--nnodes=1"]
    else:
        cmd += [f"--nnodes={nnodes}", f"--node-rank={node_rank}", "--rdzv-backend=c10d",
                f"--rdzv-endpoint={rdzv_endpoint}", f"--rdzv-id={rdzv_id}"]
    return cmd + ["-m", "rl_loop.trainer_worker"]


def trainer_env(controller_addr: str, authkey: bytes, cpu_cores: list[int] | None) -> dict[str, str]:
    env = dict(os.environ)
    env["RL_TRAINER_ADDR"] = controller_addr
    env["RL_TRAINER_AUTHKEY"] = authkey.hex()
    env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.setdefault("OMP_NUM_THREADS", "1")
    if cpu_cores is not None:
        env["RL_TRAINER_CPU_CORES"] = ",".join(str(c) for c in cpu_cores)
    else:
        env.pop("RL_TRAINER_CPU_CORES", None)
    return env


def shared_authkey() -> bytes | None:
    """The job's key from the environment (needed by every node of a multi-node job)."""
    raw = os.environ.get(AUTHKEY_ENV)
    if not raw:
        return None
    try:
        return bytes.fromhex(raw)
    except ValueError as exc:
        raise ValueError(f"{AUTHKEY_ENV} must be hex (e.g. `openssl rand -hex 16`)") from exc


def rank_cores(cores: list[int], local_rank: int, local_world: int) -> list[int]:
    """This rank's share of the node's trainer cores (ranks share cores when there are fewer)."""
    if len(cores) < local_world:
        return [cores[local_rank % len(cores)]]
    k = len(cores) // local_world
    return cores[local_rank * k:(local_rank + 1) * k]


# A trainer rank that cannot start prints this, then its reason, on one line; the controller
# quotes it (`rl_loop.trainer.last_error_line`).
FAIL_MARK = "rl-loop trainer rank failed at start:"


def pin_this_rank() -> list[int] | None:
    """Apply RL_TRAINER_CPU_CORES to this process: affinity plus one torch thread per core."""
    raw = os.environ.get("RL_TRAINER_CPU_CORES")
    if not raw:
        return None
    import torch

    cores = rank_cores([int(c) for c in raw.split(",")], int(os.environ.get("LOCAL_RANK", "0")),
                       int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
    os.sched_setaffinity(0, cores)
    torch.set_num_threads(len(cores))
    return cores


def run_trainer_node(cfg) -> int:
    """`rl-loop trainer-node`: this node's torchrun launch of a multi-node job (blocks)."""
    import subprocess

    d = cfg.distributed
    if d.nnodes < 2:
        raise SystemExit("trainer-node is for distributed.nnodes > 1 (with one node the controller launches it)")
    key = shared_authkey()
    if key is None:
        raise SystemExit(f"set {AUTHKEY_ENV} (the same hex key on every node and on the controller)")
    cmd = torchrun_cmd(cfg.trainer.world_size, d.nnodes, d.node_rank, d.rdzv_endpoint, d.rdzv_id)
    env = trainer_env(f"{d.controller_host}:{d.controller_port}", key, cfg.trainer.cpu_cores)
    return subprocess.call(cmd, env=env)
