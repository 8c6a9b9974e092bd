"""A byte-bounded LRU over the blob store for jury answers and test code.

The RL loop judges the same problems thousands of times; re-reading (and re-hashing) each
answer from S3 per submission would dominate small submissions. Blobs are immutable
(content-addressed), so caching them can never serve stale data.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict

from problem_store.blobs.base import BlobStore


class BlobCache:
    def __init__(self, blobs: BlobStore, max_bytes: int = 64 << 20, run=None):
        self.blobs = blobs
        self.run = run or asyncio.to_thread  # the service passes its store work class
        self.max_bytes = max_bytes
        self._entries: OrderedDict[str, bytes] = OrderedDict()
        self._bytes = 0

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
