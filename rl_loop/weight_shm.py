"""The weight group's same-host transport: a staging buffer both sides map.

Between a trainer rank and an engine on one machine, gloo's messages go through loopback
TCP: the sender's kernel copies every byte in and the receiver's copies it out again, about
0.2 s of CPU per sync for SmolLM2-135M fp32 (513 MB) that the engine's kernel packing needs
on a 2-core machine. Here the engine's staging buffer is an anonymous shared-memory file
(`memfd_create`) instead of private memory; a trainer rank on the same host maps it and
writes its shard rows straight to where the receiver would have put them, then sends only
the version header over the group. Completion of that header's receive is the signal that
the rows are in place (the socket write and read order the memory accesses).

Nothing is named in the file system: the trainer opens the engine's descriptor through
`/proc/<pid>/fd/<fd>` (same uid), and the memory is freed when the last process that maps it
exits, so a killed job leaves nothing behind. The offer carries the host's boot id and a
random nonce written in the buffer's first page: a member on another host, or in another
PID namespace where that pid names a different process, fails the check and keeps gloo's
messages. Either way the bytes that arrive are the same; only the path differs.
"""
from __future__ import annotations

import mmap
import os
import secrets

import torch

_HEADER = mmap.PAGESIZE  # first page: the nonce; the tensors start on the next page
_NONCE_BYTES = 16


def boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return ""


def _map(fd: int, size: int) -> mmap.mmap:
    flags = mmap.MAP_SHARED | getattr(mmap, "MAP_POPULATE", 0)  # no page faults in the first transfer
    return mmap.mmap(fd, size, flags=flags, prot=mmap.PROT_READ | mmap.PROT_WRITE)


class SharedStaging:
    """Engine side: `nbytes` of shared memory, `tensor()` views it, `offer()` describes it."""

    def __init__(self, nbytes: int) -> None:
        self.nbytes = nbytes
        self.fd = os.memfd_create("rl-weight-staging", os.MFD_CLOEXEC)
        try:
            os.ftruncate(self.fd, _HEADER + max(nbytes, 1))
            self._mm = _map(self.fd, _HEADER + max(nbytes, 1))
        except BaseException:
            os.close(self.fd)
            raise
        self.nonce = secrets.token_bytes(_NONCE_BYTES)
        self._mm[:_NONCE_BYTES] = self.nonce

    def tensor(self, dtype: torch.dtype, numel: int) -> torch.Tensor:
        return torch.frombuffer(self._mm, dtype=dtype, count=numel, offset=_HEADER)

    def offer(self, offsets: list[list[int]]) -> dict:
        """What a trainer rank needs to write its rows: where to find the buffer, how to check
        it is the right one, and the byte offset (from the tensors' start) of each piece,
        `offsets[i][r]` for parameter i, rank r."""
        return {"boot_id": boot_id(), "pid": os.getpid(), "fd": self.fd, "size": _HEADER + max(self.nbytes, 1),
                "nonce": self.nonce.hex(), "offsets": offsets}


class SharedTarget:
    """Trainer side: the engine's buffer, mapped here, or `attach` returns None."""

    def __init__(self, mm: mmap.mmap, offsets: list[list[int]]) -> None:
        self._mm, self.offsets = mm, offsets
        self._flat: dict[torch.dtype, torch.Tensor] = {}  # the whole buffer as each dtype written

    @classmethod
    def attach(cls, offer: dict) -> "SharedTarget | None":
        if not offer or offer.get("boot_id") != boot_id() or not boot_id():
            return None
        try:
            fd = os.open(f"/proc/{int(offer['pid'])}/fd/{int(offer['fd'])}", os.O_RDWR | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_size != offer["size"]:
                return None
            mm = _map(fd, offer["size"])
        except OSError:
            return None
        finally:
            os.close(fd)
        if mm[:_NONCE_BYTES] != bytes.fromhex(offer["nonce"]):  # another process's descriptor
            mm.close()
            return None
        return cls(mm, offer["offsets"])

    def write(self, i: int, rank: int, rows: torch.Tensor) -> None:
        """This rank's rows of parameter i (contiguous, CPU) into their place."""
        n = rows.numel()
        if not n:
            return
        flat = self._flat.get(rows.dtype)
        if flat is None:
            size = rows.element_size()
            flat = self._flat[rows.dtype] = torch.frombuffer(
                self._mm, dtype=rows.dtype, count=(len(self._mm) - _HEADER) // size, offset=_HEADER)
        start = self.offsets[i][rank] // rows.element_size()
        flat[start:start + n].copy_(rows.reshape(-1))
