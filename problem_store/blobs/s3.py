"""Blob store in an S3 bucket (or anything that speaks S3: moto on loopback in tests).

Layout::

    s3://<bucket>/<prefix>/blobs/<64 hex>
    s3://<bucket>/<prefix>/objects/<key>

A single PUT is atomic in S3, so named objects need no temporary copy. ``put`` asks
HEAD first and skips the upload when the blob is there (content addressing makes that
safe); two writers racing on a new blob may both report ``newly_written``, which only
affects the dedup statistics, never the stored bytes. A blob already there is kept only
if it hashes right (see ``_keep_or_repair``), so re-uploading repairs a damaged copy.

The endpoint is chosen, first match wins: the ``endpoint_url`` argument, the
``OUBLIETTE_S3_ENDPOINT`` variable, then ``AWS_ENDPOINT_URL``. Ours comes before AWS's
because moto's Lambda runtime overwrites ``AWS_ENDPOINT_URL`` inside the function.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from typing import Any

from problem_store.blobs.base import (
    LINK_PREFIX,
    BlobNotFound,
    BlobStore,
    CorruptBlob,
    StoreError,
    digest_of,
    digest_of_link,
)


#: Blobs above this size are HEAD-ed before upload; smaller ones go straight to a conditional PUT.
HEAD_FIRST_BYTES = 64 * 1024


def resolve_endpoint(endpoint_url: str | None = None) -> str | None:
    return endpoint_url or os.environ.get("OUBLIETTE_S3_ENDPOINT") or os.environ.get("AWS_ENDPOINT_URL") or None


def make_client(endpoint_url: str | None = None, region: str | None = None, max_pool: int = 32) -> Any:
    import boto3
    from botocore.config import Config

    region = region or os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
    cfg = Config(
        max_pool_connections=max_pool,
        retries={"max_attempts": 5, "mode": "standard"},
        s3={"addressing_style": "path"},
    )
    return boto3.client("s3", endpoint_url=resolve_endpoint(endpoint_url), region_name=region, config=cfg)


def _code(exc: Exception) -> str:
    return str(getattr(exc, "response", {}).get("Error", {}).get("Code", ""))


def _b64_sha256(hexd: str) -> str:
    return base64.b64encode(bytes.fromhex(hexd)).decode()


def _sha256_args(hexd: str) -> dict:
    """Have S3 verify the upload against the digest we already know, and keep it (both
    arguments: with the value alone some S3 implementations, moto among them, keep none)."""
    return {"ChecksumAlgorithm": "SHA256", "ChecksumSHA256": _b64_sha256(hexd)}


def _is_missing(exc: Exception) -> bool:
    return _code(exc) in ("404", "NoSuchKey", "NotFound")


class S3BlobStore(BlobStore):
    """Content-addressed blobs and named objects under ``s3://bucket/prefix``."""

    io_concurrency = 32

    def __init__(
        self,
        bucket: str,
        prefix: str = "",
        endpoint_url: str | None = None,
        client: Any = None,
        *,
        region: str | None = None,
        create_bucket: bool = False,
    ):
        from botocore.exceptions import ClientError

        self._client_error = ClientError
        self.bucket = bucket
        self.prefix = prefix.strip("/")
        self.endpoint_url = resolve_endpoint(endpoint_url)
        self.client = client or make_client(self.endpoint_url, region, max_pool=self.io_concurrency)
        self.uri = f"s3://{bucket}/{self.prefix}" if self.prefix else f"s3://{bucket}"
        if create_bucket:
            self.ensure_bucket()

    def __repr__(self) -> str:
        return f"S3BlobStore({self.uri!r}, endpoint_url={self.endpoint_url!r})"

    def ensure_bucket(self) -> None:
        try:
            self.client.head_bucket(Bucket=self.bucket)
        except self._client_error as e:
            if _code(e) not in ("404", "NoSuchBucket", "NotFound"):
                raise
            self.client.create_bucket(Bucket=self.bucket)

    # -- keys: public so the Lambda backend can hand S3 keys to its handler ---------
    def _join(self, *parts: str) -> str:
        return "/".join(p for p in (self.prefix, *parts) if p)

    def blob_key(self, link: str) -> str:
        return self._join("blobs", digest_of_link(link))

    def object_key(self, key: str) -> str:
        if not key or key.startswith("/") or ".." in key.split("/"):
            raise StoreError(f"invalid object key {key!r}")
        return self._join("objects", key)

    def _where(self, s3_key: str) -> str:
        return f"s3://{self.bucket}/{s3_key}"

    def _head(self, s3_key: str, checksum: bool = False) -> dict | None:
        extra = {"ChecksumMode": "ENABLED"} if checksum else {}
        try:
            return self.client.head_object(Bucket=self.bucket, Key=s3_key, **extra)
        except self._client_error as e:
            if _is_missing(e):
                return None
            raise

    def _get(self, s3_key: str) -> bytes | None:
        try:
            return self.client.get_object(Bucket=self.bucket, Key=s3_key)["Body"].read()
        except self._client_error as e:
            if _is_missing(e):
                return None
            raise

    def _list(self, s3_prefix: str) -> Iterator[dict]:
        pages = self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=s3_prefix)
        for page in pages:
            yield from page.get("Contents", ())

    # -- blobs -----------------------------------------------------------------------
    def put(self, data: bytes) -> tuple[str, bool]:
        hexd = digest_of(data)
        link = LINK_PREFIX + hexd
        key = self.blob_key(link)
        if len(data) > HEAD_FIRST_BYTES:  # large: ask first rather than send the bytes twice
            head = self._head(key, checksum=True)
            if head is not None:
                return link, self._keep_or_repair(key, data, hexd, head)
        # A conditional PUT (If-None-Match: *) writes only if absent: one request for small
        # blobs, and exactly one of several racing writers reports newly_written.
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, IfNoneMatch="*",
                                   **_sha256_args(hexd))
            return link, True
        except self._client_error as e:
            code = _code(e)
            if code == "PreconditionFailed":
                head = self._head(key, checksum=True)
                if head is not None:
                    return link, self._keep_or_repair(key, data, hexd, head)
                self._overwrite(key, data, hexd)  # deleted in between: write it
                return link, True
            if code == "ConditionalRequestConflict":  # another writer's PUT in flight (real S3)
                self._overwrite(key, data, hexd)
                return link, False
            raise

    def _keep_or_repair(self, key: str, data: bytes, hexd: str, head: dict) -> bool:
        """The stored copy stays if it hashes right, else is overwritten; True if written.

        Our writes send ChecksumSHA256, which S3 checks on receipt and keeps: when HEAD
        returns the expected one the stored bytes are ours and no download is needed. An
        object written otherwise (no or another checksum) is fetched and re-hashed.
        """
        if head.get("ChecksumSHA256") == _b64_sha256(hexd):
            return False
        stored = self._get(key)
        if stored is not None and digest_of(stored) == hexd:
            return False
        self._overwrite(key, data, hexd)
        return True

    def _overwrite(self, key: str, data: bytes, hexd: str) -> None:
        self.client.put_object(Bucket=self.bucket, Key=key, Body=data, **_sha256_args(hexd))

    def get(self, link: str) -> bytes:
        key = self.blob_key(link)
        data = self._get(key)
        if data is None:
            raise BlobNotFound(link)
        actual = digest_of(data)
        if actual != digest_of_link(link):
            raise CorruptBlob(link, actual, where=self._where(key))
        return data

    def exists(self, link: str) -> bool:
        return self._head(self.blob_key(link)) is not None

    def delete(self, link: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.blob_key(link))

    def iter_links(self) -> Iterator[str]:
        base = self._join("blobs") + "/"
        for obj in self._list(base):
            name = obj["Key"][len(base):]
            if len(name) == 64 and "/" not in name:
                yield LINK_PREFIX + name

    def size(self, link: str) -> int:
        head = self._head(self.blob_key(link))
        if head is None:
            raise BlobNotFound(link)
        return int(head["ContentLength"])

    def blob_mtime(self, link: str) -> float | None:
        head = self._head(self.blob_key(link))
        return None if head is None else head["LastModified"].timestamp()

    # -- named objects ------------------------------------------------------------------
    def put_object(self, key: str, data: bytes) -> None:
        self.client.put_object(Bucket=self.bucket, Key=self.object_key(key), Body=data)

    def get_object(self, key: str) -> bytes | None:
        return self._get(self.object_key(key))

    def delete_object(self, key: str) -> None:
        self.client.delete_object(Bucket=self.bucket, Key=self.object_key(key))

    def list_objects(self, prefix: str) -> Iterator[str]:
        base = self._join("objects") + "/"
        for obj in self._list(base + prefix):
            yield obj["Key"][len(base):]

    def object_version(self, key: str) -> str | None:
        head = self._head(self.object_key(key))
        if head is None:
            return None
        return f"{head.get('ETag')}:{head.get('LastModified')}:{head.get('ContentLength')}"
