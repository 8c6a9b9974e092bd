"""LRU of compile results keyed by (language, sha256(code), flags).

RL rollouts resubmit identical programs often (a group of samples that converged, retries of
an IE); compiling C++ costs about a second, so a hit saves most of a small submission's time.
Compile errors are cached too: the same code fails the same way. IE results are not cached
(they say nothing about the code).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict

from sandboxes.types import CompileResult, Status


def cache_key(language: str, code: str, flags: str = "") -> tuple[str, str, str]:
    return (language, hashlib.sha256(code.encode("utf-8", "surrogatepass")).hexdigest(), flags)


class CompileCache:
    def __init__(self, max_entries: int, max_bytes: int = 256 << 20):
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._bytes = 0
        self._entries: OrderedDict[tuple[str, str, str], CompileResult] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: tuple[str, str, str]) -> CompileResult | None:
        result = self._entries.get(key)
        if result is not None:
            self._entries.move_to_end(key)
            self.hits += 1
        else:
            self.misses += 1
        return result

    def put(self, key: tuple[str, str, str], result: CompileResult) -> None:
        if self.max_entries <= 0 or result.status == Status.IE:
            return
        if result.status == Status.OK and result.artifact is None:
            return  # the backend gave nothing reusable
        size = _size(result)
        if size > self.max_bytes // 4:
            return  # one huge binary must not flush the whole cache
        old = self._entries.pop(key, None)
        if old is not None:
            self._bytes -= _size(old)
        self._entries[key] = result
        self._bytes += size
        while len(self._entries) > self.max_entries or self._bytes > self.max_bytes:
            _, evicted = self._entries.popitem(last=False)
            self._bytes -= _size(evicted)


def _size(result: CompileResult) -> int:
    """Bytes an entry holds (the artifact travels inline, so it is the cost)."""
    data = result.artifact.blob.data if result.artifact is not None else None
    return len(result.log) + (len(data) if data else 0)
