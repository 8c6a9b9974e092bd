"""The blob store contract, run against every backend (file directory, S3 on moto)."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from problem_store.blobs.base import BlobNotFound, CorruptBlob, StoreError, link_for
from problem_store.blobs.file import FileBlobStore
from problem_store.blobs.s3 import S3BlobStore
from problem_store.uri import open_store
from tests.problem_store.store_helpers import corrupt_blob


def test_put_get_roundtrip_and_dedup(blob_store):
    data = b"1 2\n" * 100
    link, newly = blob_store.put(data)
    assert link == link_for(data) and newly
    assert blob_store.put(data) == (link, False)
    assert blob_store.get(link) == data
    assert blob_store.exists(link)
    assert blob_store.size(link) == len(data)
    assert list(blob_store.iter_links()) == [link]
    empty_link, _ = blob_store.put(b"")
    assert blob_store.get(empty_link) == b""


def test_missing_blob_and_delete(blob_store):
    link = link_for(b"never stored")
    assert not blob_store.exists(link)
    with pytest.raises(BlobNotFound) as e:
        blob_store.get(link)
    assert link in str(e.value)
    stored, _ = blob_store.put(b"x")
    blob_store.delete(stored)
    blob_store.delete(stored)  # absent: no error
    assert not blob_store.exists(stored)


def test_bad_link_is_rejected(blob_store):
    with pytest.raises(ValueError):
        blob_store.get("blob://sha256/nothex")


def test_named_objects(blob_store):
    assert blob_store.get_object("problems/a.json") is None
    blob_store.put_object("problems/a.json", b"one")
    blob_store.put_object("problems/a.json", b"two")
    blob_store.put_object("problems/b.json", b"bee")
    blob_store.put_object("transient/1/x", b"t")
    assert blob_store.get_object("problems/a.json") == b"two"
    assert sorted(blob_store.list_objects("problems/")) == ["problems/a.json", "problems/b.json"]
    assert sorted(blob_store.list_objects("problems/a")) == ["problems/a.json"]
    assert len(list(blob_store.list_objects(""))) == 3
    v1 = blob_store.object_version("problems/a.json")
    blob_store.put_object("problems/a.json", b"three!")
    assert blob_store.object_version("problems/a.json") not in (None, v1)
    blob_store.delete_object("problems/a.json")
    blob_store.delete_object("problems/a.json")
    assert blob_store.get_object("problems/a.json") is None
    assert blob_store.object_version("problems/a.json") is None
    with pytest.raises(StoreError):
        blob_store.put_object("../escape", b"x")


def test_corrupted_blob_is_detected_and_named(blob_store):
    link, _ = blob_store.put(b"the jury answer\n")
    where = corrupt_blob(blob_store, link)
    with pytest.raises(CorruptBlob) as e:
        blob_store.get(link)
    assert e.value.link == link and e.value.where == where
    assert link in str(e.value) and where in str(e.value)


def test_threads_writing_same_blobs(blob_store):
    payloads = [bytes([i]) * (1000 + i) for i in range(8)]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(blob_store.put, payloads * 6))
    assert {link for link, _ in results} == {link_for(p) for p in payloads}
    for p in payloads:
        assert blob_store.get(link_for(p)) == p
    if isinstance(blob_store, FileBlobStore):  # exactly one writer wins each blob
        assert sum(newly for _, newly in results) == len(payloads)


def _writer(root: str, seed: int, n: int) -> int:
    store = FileBlobStore(root)
    newly = 0
    for i in range(n):
        newly += store.put(f"blob {i % 20}\n".encode() * 500)[1]
        store.put_object("problems/shared.json", f"writer {seed} round {i}\n".encode() * 200)
    return newly


def test_processes_writing_same_blobs_and_keys(tmp_path):
    root = str(tmp_path / "store")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        newly = pool.starmap(_writer, [(root, s, 40) for s in range(4)])
    store = FileBlobStore(root)
    assert sum(newly) == 20  # each distinct blob written by exactly one process
    for link in store.iter_links():
        store.get(link)  # re-hashes: no torn blob
    final = store.get_object("problems/shared.json")
    first_line = final.split(b"\n")[0] + b"\n"
    assert final == first_line * 200  # one writer's whole bytes, never a mix
    leftovers = [p for p in (tmp_path / "store").rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []


def test_file_layout_fans_out(tmp_path):
    store = FileBlobStore(tmp_path)
    link, _ = store.put(b"abc")
    hexd = link.rsplit("/", 1)[1]
    assert store.local_path(link) == tmp_path / "blobs" / hexd[:2] / hexd[2:4] / hexd
    store.put_object("problems/p.json", b"{}")
    assert (tmp_path / "objects" / "problems" / "p.json").read_bytes() == b"{}"


def test_s3_layout_and_skip_existing(moto_endpoint, s3_bucket):
    store = S3BlobStore(s3_bucket, "layout/x", endpoint_url=moto_endpoint)
    link, newly = store.put(b"abc")
    assert newly
    keys = [o["Key"] for o in store.client.list_objects_v2(Bucket=s3_bucket, Prefix="layout/")["Contents"]]
    assert keys == ["layout/x/blobs/" + link.rsplit("/", 1)[1]]
    assert store.put(b"abc") == (link, False)


def test_open_store_uris(tmp_path, monkeypatch, moto_endpoint, s3_bucket):
    assert isinstance(open_store(str(tmp_path / "a")), FileBlobStore)
    fs = open_store((tmp_path / "b").as_uri())
    assert isinstance(fs, FileBlobStore) and fs.root == tmp_path / "b"
    s3 = open_store(f"s3://{s3_bucket}/some/prefix?endpoint={moto_endpoint}&region=us-east-1")
    assert isinstance(s3, S3BlobStore) and s3.prefix == "some/prefix" and s3.endpoint_url == moto_endpoint
    s3.put(b"reachable")
    monkeypatch.setenv("OUBLIETTE_S3_ENDPOINT", moto_endpoint)
    assert open_store(f"s3://{s3_bucket}/p").endpoint_url == moto_endpoint
    monkeypatch.setenv("OUBLIETTE_STORE", str(tmp_path / "env"))
    assert open_store().root == tmp_path / "env"
    monkeypatch.delenv("OUBLIETTE_STORE")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert open_store().root == tmp_path / "xdg" / "oubliette" / "store"
    for bad in ("ftp://x/y", "s3:///nobucket", "s3://b/p?bogus=1"):
        with pytest.raises(StoreError):
            open_store(bad)
    created = open_store(f"s3://new-bucket-{os.getpid()}/p?endpoint={moto_endpoint}&create=1")
    created.put(b"in a created bucket")
