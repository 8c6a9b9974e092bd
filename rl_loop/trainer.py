"""Controller-side handle on the FSDP trainer ranks (rl_loop/trainer_worker.py under torchrun).

The controller owns this object; the ranks only answer it. The channel is one
authenticated `multiprocessing.connection` socket (127.0.0.1, or
`distributed.controller_host` with several nodes) to rank 0 (pickled dicts;
rank 0 broadcasts each command to the other ranks). Commands run one at a time (a lock),
each in a thread so the controller's event loop keeps generating and judging meanwhile.

If the controller dies (even SIGKILL) the socket closes, rank 0's `recv` fails and torchrun
tears the group down; the ranks are also started with PR_SET_PDEATHSIG so they never
outlive the controller.
"""
from __future__ import annotations

import asyncio
import ctypes
import os
import secrets
import signal
import subprocess
import time
from dataclasses import asdict, dataclass, field
from multiprocessing.connection import Listener

from rl_loop.config import DistributedConfig, ModelConfig, TrainerConfig
from rl_loop.launch import FAIL_MARK, shared_authkey, torchrun_cmd, trainer_env



class TrainerError(RuntimeError):
    """A trainer rank failed a command or the trainer group died."""


@dataclass
class Sequence:
    """One completion as the trainer sees it (all lists are per completion token)."""

    prompt_ids: list[int]
    completion_ids: list[int]
    behaviour_logprobs: list[float]
    versions: list[int]
    advantage: float = 0.0
    weight: float = 1.0  # 0: padding, contributes nothing
    dpo_role: int = 0  # online DPO: +1 chosen, -1 rejected (the next sequence), 0 not in a pair

    def to_msg(self) -> dict:
        return asdict(self)


def _die_with_parent() -> None:  # runs in the child before exec
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def last_error_line(log_path: str | None, tail_bytes: int = 65536) -> str | None:
    """The last `SomethingError: message` line of a log (a rank's reason for dying), if any."""
    import re

    if not log_path:
        return None
    try:
        with open(log_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - tail_bytes))
            text = f.read().decode(errors="replace")
    except OSError:
        return None
    marked = [ln for ln in text.splitlines() if ln.startswith(FAIL_MARK)]
    if marked:  # a rank's own reason beats the errors of the ranks that died after it
        return marked[0][len(FAIL_MARK):].strip()
    hits = re.findall(r"^\s*((?:[\w.]+\.)?\w*(?:Error|Exception): .+)$", text, re.M)
    return hits[-1].strip() if hits else None


def _default(section, name: str):
    """The one default of a setting: the pydantic config's (rl_loop.config)."""
    return section.model_fields[name].default


@dataclass
class TrainerSettings:
    """What the trainer group needs; defaults are the RL config's own (no second set)."""

    model_path: str
    world_size: int = _default(TrainerConfig, "world_size")
    dtype: str = _default(ModelConfig, "dtype")
    lr: float = _default(TrainerConfig, "lr")
    betas: tuple[float, float] = _default(TrainerConfig, "betas")
    weight_decay: float = _default(TrainerConfig, "weight_decay")
    grad_clip: float | None = _default(TrainerConfig, "grad_clip")
    micro_batch_size_seqs: int = _default(TrainerConfig, "micro_batch_size_seqs")
    seed: int = _default(TrainerConfig, "seed")
    ppo_epochs: int = _default(TrainerConfig, "ppo_epochs")
    mini_batches: int = _default(TrainerConfig, "mini_batches")
    behaviour_logprobs: str = _default(TrainerConfig, "behaviour_logprobs")
    ref_path: str | None = None
    spec: dict = field(default_factory=dict)
    log_path: str | None = None
    start_timeout_s: float = _default(TrainerConfig, "start_timeout_s")
    cpu_cores: list[int] | None = None  # this node's trainer cores (rl_loop.launch.pin_this_rank)
    nnodes: int = _default(DistributedConfig, "nnodes")
    rdzv_endpoint: str | None = None
    rdzv_id: str = _default(DistributedConfig, "rdzv_id")
    controller_host: str = _default(DistributedConfig, "controller_host")
    controller_port: int = _default(DistributedConfig, "controller_port")


class Trainer:
    """Start, command and stop the torchrun trainer group."""

    def __init__(self, settings: TrainerSettings) -> None:
        self.s = settings
        self.proc: subprocess.Popen | None = None
        self.conn = None
        self._lock = asyncio.Lock()
        self.version = 0

    # ---- lifecycle ---------------------------------------------------------------------
    def start(self) -> dict:
        """Launch this node's torchrun (node 0), accept rank 0's connection, send `init`. Blocking.

        With several nodes the other launches (`rl-loop trainer-node`) join the same
        rendezvous; rank 0 may be on any of them, so the key is the job's shared one.
        """
        s = self.s
        authkey = (shared_authkey() if s.nnodes > 1 else None) or secrets.token_bytes(16)
        if s.nnodes > 1 and shared_authkey() is None:
            raise TrainerError("distributed.nnodes > 1 needs the job's key in env RL_LOOP_AUTHKEY on every node")
        listener = Listener((s.controller_host, s.controller_port), authkey=authkey)
        host, port = listener.address
        env = trainer_env(f"{host}:{port}", authkey, s.cpu_cores)
        cmd = torchrun_cmd(s.world_size, s.nnodes, 0, s.rdzv_endpoint, s.rdzv_id)
        log = open(self.s.log_path, "ab") if self.s.log_path else subprocess.DEVNULL
        self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, preexec_fn=_die_with_parent)
        # Accept with a deadline: a trainer that crashes at import never connects.
        deadline = time.monotonic() + self.s.start_timeout_s
        listener._listener._socket.settimeout(5.0)
        while True:
            try:
                self.conn = listener.accept()
                break
            except (TimeoutError, OSError) as exc:
                if self.proc.poll() is not None:
                    why = last_error_line(self.s.log_path)
                    raise TrainerError(f"trainer exited with {self.proc.returncode} before connecting"
                                       f"{': ' + why if why else ''} (log: {self.s.log_path})") from exc
                if time.monotonic() > deadline:
                    self.stop()
                    raise TrainerError("trainer did not connect in time") from exc
        listener.close()
        launch_only = ("log_path", "start_timeout_s", "cpu_cores", "nnodes", "rdzv_endpoint", "rdzv_id",
                       "controller_host", "controller_port")
        msg = {"cmd": "init", **{k: v for k, v in asdict(self.s).items() if k not in launch_only}}
        return self._call_sync(msg)

    def stop(self) -> None:
        if self.conn is not None:
            try:
                self.conn.send({"cmd": "shutdown"})
                self.conn.recv()
            except (OSError, EOFError):
                pass
            self.conn.close()
            self.conn = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    # ---- commands ----------------------------------------------------------------------
    def _call_sync(self, msg: dict) -> dict:
        if self.conn is None:
            raise TrainerError("trainer is not running")
        try:
            self.conn.send(msg)
            reply = self.conn.recv()
        except (OSError, EOFError) as exc:
            why = last_error_line(self.s.log_path)
            raise TrainerError(f"trainer connection lost during {msg['cmd']!r}: {exc}"
                               f"{' (' + why + ')' if why else ''} (log: {self.s.log_path})") from exc
        if not reply.get("ok"):
            raise TrainerError(f"trainer failed {msg['cmd']!r}: {reply.get('error')}\n{reply.get('trace', '')}")
        return reply

    async def call(self, msg: dict) -> dict:
        async with self._lock:
            return await asyncio.to_thread(self._call_sync, msg)

    async def train(self, seqs: list[Sequence], trainer_version: int, recompute_logprobs: bool) -> dict:
        reply = await self.call({
            "cmd": "train", "seqs": [s.to_msg() for s in seqs],
            "trainer_version": trainer_version, "recompute_logprobs": recompute_logprobs,
        })
        self.version = reply["version"]
        return reply["stats"]

    async def logprobs(self, seqs: list[Sequence]) -> list[list[float]]:
        return (await self.call({"cmd": "logprobs", "seqs": [s.to_msg() for s in seqs]}))["logprobs"]

    async def export_weights(self, path: str) -> dict:
        return await self.call({"cmd": "export_weights", "path": path})

    # in-place weight sync (rl_loop.weight_sync.GroupWeightSync)
    async def sync_plan(self) -> list[dict]:
        return (await self.call({"cmd": "sync_plan"}))["plan"]

    async def sync_join(self, spec: dict, generator_ranks: list[int]) -> dict:
        return await self.call({"cmd": "sync_join", "spec": spec, "generator_ranks": generator_ranks})

    async def sync_export(self, version: int) -> dict:
        return await self.call({"cmd": "sync_export", "version": version})

    async def save(self, directory: str) -> dict:
        return await self.call({"cmd": "save", "dir": directory})

    async def load(self, directory: str) -> int:
        self.version = (await self.call({"cmd": "load", "dir": directory}))["version"]
        return self.version
