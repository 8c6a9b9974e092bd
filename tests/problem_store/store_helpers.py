"""Helpers shared by the problem store tests."""

from __future__ import annotations

from problem_store.blobs.base import BlobStore
from problem_store.blobs.file import FileBlobStore


def snapshot(blobs: BlobStore) -> dict[str, bytes]:
    """Every blob and named object with its bytes: equal snapshots mean an unchanged store."""
    out = {link: blobs.get(link) for link in blobs.iter_links()}
    for key in blobs.list_objects(""):
        out["object:" + key] = blobs.get_object(key)
    return out



def corrupt_blob(blob_store, link: str) -> str:
    """Flip one byte of the stored blob behind the store's back; return where it lives."""
    if isinstance(blob_store, FileBlobStore):
        path = blob_store.local_path(link)
        raw = bytearray(path.read_bytes())
        raw[0] ^= 0xFF
        path.write_bytes(bytes(raw))
        return str(path)
    key = blob_store.blob_key(link)
    raw = bytearray(blob_store.client.get_object(Bucket=blob_store.bucket, Key=key)["Body"].read())
    raw[0] ^= 0xFF
    blob_store.client.put_object(Bucket=blob_store.bucket, Key=key, Body=bytes(raw))
    return f"s3://{blob_store.bucket}/{key}"

