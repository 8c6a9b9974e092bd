"""A byte-bounded LRU over the blob store for jury answers and test code.

The RL loop judges the same problems thousands of times; re-reading (and re-hashing) each
answer from S3 per submission would dominate small submissions. Blobs are immutable
(content-addressed), so caching them can never serve stale data.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from problem_store.blobs.base import BlobStore


_MAX_SIZES = 1 << 16


class BlobCache:
    def __init__(self, blobs: BlobStore, max_bytes: int = 64 << 20, run=None):
        self.blobs = blobs
        self.run = run or asyncio.to_thread  # the service passes its store work class
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0
        self._sizes: OrderedDict[str, int] = OrderedDict()  # link -> size, for blobs not kept

    async def size(self, link: str) -> int:
        """The blob's size in bytes (from the store's metadata, not its bytes: a size used to
        bound work, not to judge; the content is hash-checked when it is read)."""
        data = self._entries.get(link)
        if data is not None:
            return len(data)
        n = self._sizes.get(link)
        if n is None:
            n = await self.run(self.blobs.size, link)
            self._sizes[link] = n
            if len(self._sizes) > _MAX_SIZES:
                self._sizes.popitem(last=False)
        return n

    async def get(self, link: str) -> bytes:
        data = self._entries.get(link)
        if data is not None:
            self._entries.move_to_end(link)
            return data
        data = await self.run(self.blobs.get, link)
        if len(data) <= self.max_bytes // 8:
            self._entries[link] = data
            self._bytes += len(data)
            while self._bytes > self.max_bytes:
                _, old = self._entries.popitem(last=False)
                self._bytes -= len(old)
        return data
