"""Checkpoints: model + optimizer (written by trainer rank 0) plus the controller snapshot.

Layout under the checkpoint dir:

    step_000010/model.safetensors   full policy weights (HF names, tied head dropped)
    step_000010/optimizer.pt        full AdamW state (FSDP2 full_state_dict) + version
    step_000010/controller.json     the controller snapshot (RLAX principle #2)
    LATEST                          name of the newest complete checkpoint

Atomicity: a checkpoint is built in `step_N.tmp/`, renamed to `step_N/` only when every
file is in place, then LATEST is replaced with `os.replace` (atomic on POSIX). A SIGKILL at
any moment therefore leaves LATEST naming a complete checkpoint (or none). Leftover
`.tmp` directories are removed on the next start.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

LATEST = "LATEST"
SNAPSHOT = "controller.json"


def _fsync_write(path: Path, data: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


class CheckpointManager:
    def __init__(self, directory: str | os.PathLike, keep: int = 2) -> None:
        self.dir = Path(directory)
        self.keep = keep
        self.dir.mkdir(parents=True, exist_ok=True)
        for leftover in self.dir.glob("*.tmp"):
            shutil.rmtree(leftover, ignore_errors=True) if leftover.is_dir() else leftover.unlink()

    @staticmethod
    def name(step: int) -> str:
        return f"step_{step:06d}"

    def staging_dir(self, step: int) -> Path:
        """Where the trainer writes this step's model/optimizer before `commit`."""
        d = self.dir / (self.name(step) + ".tmp")
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        return d

    def commit(self, step: int, snapshot: dict[str, Any]) -> Path:
        """Add the controller snapshot, publish the directory, point LATEST at it, prune."""
        staging = self.dir / (self.name(step) + ".tmp")
        for need in ("model.safetensors", "optimizer.pt"):
            if not (staging / need).is_file():
                raise FileNotFoundError(f"checkpoint {staging} lacks {need}")
        _fsync_write(staging / SNAPSHOT, json.dumps(snapshot))
        final = self.dir / self.name(step)
        if final.exists():
            shutil.rmtree(final)
        os.replace(staging, final)
        _fsync_write(self.dir / LATEST, final.name)
        self._prune()
        return final

    def _prune(self) -> None:
        done = sorted(p for p in self.dir.glob("step_*") if p.is_dir() and not p.name.endswith(".tmp"))
        for old in done[: -self.keep]:
            shutil.rmtree(old, ignore_errors=True)

    def latest(self) -> Path | None:
        """The newest complete checkpoint directory, or None."""
        ptr = self.dir / LATEST
        if not ptr.is_file():
            return None
        d = self.dir / ptr.read_text().strip()
        return d if (d / SNAPSHOT).is_file() else None

    @staticmethod
    def read_snapshot(ckpt: Path) -> dict[str, Any]:
        return json.loads((Path(ckpt) / SNAPSHOT).read_text())
