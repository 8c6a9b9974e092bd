"""Short-lived objects: program outputs written by /v1/execute and the Lambda handler.

They are not content-addressed (an output is read once, by the checker, and then is
garbage), so they are named objects ``transient/<expiry epoch s>/<uuid hex>`` in the
same blob store. The expiry sits in the key, so ``gc`` decides from a listing alone,
without reading or HEAD-ing anything. Keys handed out look like
``transient://<expiry>/<uuid>``.
"""

from __future__ import annotations

import math
import re
import time
import uuid

from problem_store.blobs.base import BlobStore, StoreError

TRANSIENT_SCHEME = "transient://"
OBJECT_PREFIX = "transient/"
_KEY_RE = re.compile(r"^transient://(\d{1,12})/([0-9a-f]{32})$")


class TransientNotFound(StoreError, KeyError):
    def __init__(self, key: str, expired: bool = False):
        super().__init__(key)
        self.key, self.expired = key, expired

    def __str__(self) -> str:
        return f"transient object {'expired' if self.expired else 'not found'}: {self.key}"


def parse_transient_key(key: str) -> tuple[int, str]:
    """(expiry epoch seconds, uuid hex) of a ``transient://`` key; ValueError if malformed."""
    m = _KEY_RE.match(key)
    if not m:
        raise ValueError(f"not a transient key (expected transient://<expiry>/<32 hex>): {key!r}")
    return int(m.group(1)), m.group(2)


def object_key_of(key: str) -> str:
    """The blob-store object key behind a ``transient://`` key (for S3 handlers)."""
    expiry, uid = parse_transient_key(key)
    return f"{OBJECT_PREFIX}{expiry}/{uid}"


class TransientStore:
    """put / get / gc of objects that live ``ttl_s`` seconds."""

    def __init__(self, blobs: BlobStore, ttl_s: float = 3600.0):
        if ttl_s <= 0:
            raise ValueError("ttl_s must be positive")
        self.blobs = blobs
        self.ttl_s = ttl_s

    def new_key(self, ttl_s: float | None = None, now: float | None = None) -> str:
        """A fresh key (without writing), for writers that upload by themselves."""
        now = time.time() if now is None else now
        expiry = math.ceil(now + (self.ttl_s if ttl_s is None else ttl_s))
        return f"{TRANSIENT_SCHEME}{expiry}/{uuid.uuid4().hex}"

    def put(self, data: bytes, ttl_s: float | None = None, now: float | None = None) -> str:
        key = self.new_key(ttl_s, now)
        self.blobs.put_object(object_key_of(key), data)
        return key

    def get(self, key: str, now: float | None = None) -> bytes:
        """The object's bytes; TransientNotFound if absent or past its expiry."""
        expiry, _ = parse_transient_key(key)
        now = time.time() if now is None else now
        if now >= expiry:
            raise TransientNotFound(key, expired=True)
        data = self.blobs.get_object(object_key_of(key))
        if data is None:
            raise TransientNotFound(key)
        return data

    def delete(self, key: str) -> None:
        self.blobs.delete_object(object_key_of(key))

    def gc(self, now: float | None = None) -> int:
        """Delete every expired object; return how many."""
        now = time.time() if now is None else now
        removed = 0
        for okey in list(self.blobs.list_objects(OBJECT_PREFIX)):
            parts = okey[len(OBJECT_PREFIX):].split("/")
            if len(parts) != 2 or not parts[0].isdigit():
                continue
            if int(parts[0]) <= now:
                self.blobs.delete_object(okey)
                removed += 1
        return removed
