"""Damage to a store is mended, never spread: re-upload repairs blobs, `fsck --repair`
restores or removes problems cleanly, a corrupt manifest hides nothing else, and a
closed stdout pipe ends the CLI quietly. Runs on the file and the s3 (moto) store."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from aiohttp.test_utils import TestClient, TestServer

from problem_store.blobs.base import BlobStore, CorruptBlob
from problem_store.blobs.file import FileBlobStore
from problem_store.cli import main
from problem_store.fsck import repair, scan
from problem_store.manifest import MathProblem
from problem_store.problems import CorruptManifest, ProblemStore, manifest_key
from problem_store.upload import upload
from tests.problem_store.store_helpers import corrupt_blob

REPO = Path(__file__).resolve().parents[2]
OWN = REPO / "tests" / "fixtures" / "problem_formats" / "own"


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture
def seeded(problems) -> ProblemStore:
    assert upload(OWN, problems).added == ["add-func", "half-plus-third", "near-equal", "sum-two"]
    return problems


def _test_input(store: ProblemStore, pid: str = "sum-two") -> tuple[str, bytes]:
    link = store.get(pid).tests[0].input
    return link, store.blobs.get(link)


def test_reupload_repairs_a_corrupt_blob(seeded):
    link, good = _test_input(seeded)
    corrupt_blob(seeded.blobs, link)  # same size, one byte flipped: a size check cannot see it
    with pytest.raises(CorruptBlob):
        seeded.blobs.get(link)
    report = upload(OWN / "sum-two", seeded)
    assert report.ok and report.repaired == ["sum-two"] and report.blobs_written == 1
    assert "repaired: sum-two" in report.summary()
    assert seeded.blobs.get(link) == good
    assert upload(OWN / "sum-two", seeded).unchanged == ["sum-two"]  # whole again: nothing to write


def test_reupload_repairs_a_missing_blob(seeded):
    link, good = _test_input(seeded)
    seeded.blobs.delete(link)
    report = upload(OWN / "sum-two", seeded)
    assert report.repaired == ["sum-two"] and seeded.blobs.get(link) == good
    assert scan(seeded).problems_found == 0


def test_fsck_repair_restores_from_a_source_set(capsys, seeded, store_uri):
    blobs = seeded.blobs
    corrupt_blob(blobs, seeded.get("sum-two").tests[1].answer)
    blobs.delete(seeded.get("add-func").tests[0].code)
    corrupt_blob(blobs, seeded.get("near-equal").checker.binary)
    blobs.put_object(manifest_key("half-plus-third"), b'{"kind": "math", "quest')  # truncated
    rc, out, _ = run(capsys, "--store", store_uri, "fsck")
    assert rc == 1 and "4 problem(s)" in out
    rc, out, _ = run(capsys, "--store", store_uri, "fsck", "--repair", "--from", str(OWN))
    assert rc == 0, out
    lines = out.splitlines()
    assert {"repaired: add-func", "repaired: sum-two", "replaced from source: half-plus-third"} <= set(lines)
    # The checker binary comes back by hash when the build reproduces it, else the problem is re-uploaded.
    assert "repaired: near-equal" in lines or "replaced from source: near-equal" in lines
    assert not any(line.startswith("removed") for line in lines)
    rc, out, _ = run(capsys, "--store", store_uri, "fsck")
    assert rc == 0 and "0 problem(s)" in out
    assert seeded.get("half-plus-third").answer == "\\frac{5}{6}"


class Recording(BlobStore):
    """A real store that records the order of deletions."""

    def __init__(self, inner: BlobStore):
        self.inner, self.ops = inner, []
        self.uri, self.io_concurrency = inner.uri, 1

    def delete(self, link):
        self.ops.append(("blob", link))
        return self.inner.delete(link)

    def delete_object(self, key):
        self.ops.append(("object", key))
        return self.inner.delete_object(key)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    put = property(lambda self: self.inner.put)
    get = property(lambda self: self.inner.get)
    exists = property(lambda self: self.inner.exists)
    iter_links = property(lambda self: self.inner.iter_links)
    size = property(lambda self: self.inner.size)
    put_object = property(lambda self: self.inner.put_object)
    get_object = property(lambda self: self.inner.get_object)
    list_objects = property(lambda self: self.inner.list_objects)
    object_version = property(lambda self: self.inner.object_version)
    blob_mtime = property(lambda self: self.inner.blob_mtime)


def test_fsck_repair_without_source_removes_the_broken_problem_manifest_first(seeded):
    link, _ = _test_input(seeded)
    corrupt_blob(seeded.blobs, link)
    seeded.blobs.put_object(manifest_key("zz-garbage"), b"\x00\xff not json")
    store = ProblemStore(Recording(seeded.blobs))
    fixed = repair(store, scan(store))
    assert fixed.removed == ["sum-two", "zz-garbage"] and fixed.corrupt_blobs_deleted == 1
    ops = store.blobs.ops
    assert ops.index(("object", manifest_key("sum-two"))) < ops.index(("blob", link))
    assert scan(seeded).problems_found == 0
    assert [p.id for p in seeded.list()] == ["add-func", "half-plus-third", "near-equal"]
    for p in seeded.list():  # the others are whole
        assert not seeded.missing_links(seeded.get(p.id))


def test_corrupt_manifest_is_skipped_and_reported_by_listing(capsys, seeded, store_uri):
    only_there = seeded.blobs.put(b"data only the damaged manifest names\n")[0]
    # Truncated mid-way: unparseable, but the link it names must survive gc (it may be mended).
    seeded.blobs.put_object(manifest_key("aa-broken"), b'{"id": "aa-broken", "kind": "stdio", "tests": '
                            b'[{"name": "1", "input": "' + only_there.encode() + b'", "ans')
    seeded.blobs.put_object(manifest_key("zz-copy"), seeded.get_bytes("sum-two"))  # valid, but another id
    with pytest.raises(CorruptManifest, match="aa-broken"):
        seeded.get("aa-broken")
    with pytest.raises(CorruptManifest, match="holds problem id 'sum-two'"):
        seeded.get("zz-copy")
    listing = seeded.listing()
    assert listing.broken_ids == ["aa-broken", "zz-copy"]
    assert [p.id for p in listing.problems] == ["add-func", "half-plus-third", "near-equal", "sum-two"]
    assert [p.id for p in seeded.list()] == [p.id for p in listing.problems]
    rc, out, err = run(capsys, "--store", store_uri, "ls")
    assert rc == 1 and len(out.splitlines()) == 4 and "Traceback" not in err
    assert "skipped problem aa-broken: manifest unreadable" in err and "zz-copy" in err
    rc, _, _ = run(capsys, "--store", store_uri, "gc", "--grace-s", "0")
    assert rc == 0 and seeded.blobs.exists(only_there)


async def test_get_problems_lists_the_others_and_the_broken_ids(tmp_path):
    from tests.verifier.conftest import make_config, make_problems
    from tests.verifier.fakes import FakeBackend
    from verifier.app import create_app
    from verifier.service import VerifierService

    blobs = FileBlobStore(tmp_path / "store")
    make_problems(blobs)
    blobs.put_object(manifest_key("bad"), b'{"id": "bad", "kind": "stdio", "schema_version": 99}')
    svc = VerifierService(make_config(self_test=False), FakeBackend(blobs, capacity=2), blobs)
    await svc.start()
    try:
        async with TestClient(TestServer(create_app(svc, manage_service=False), host="127.0.0.1")) as c:
            r = await c.get("/v1/problems")
            assert r.status == 200
            body = await r.json()
            assert body["broken"] == ["bad"]
            assert {p["id"] for p in body["problems"]} == {"sum", "sum-custom", "add-fn", "add-he",
                                                             "half-plus-third"}
            r = await c.get("/v1/problems/sum")  # the others stay reachable one by one too
            assert r.status == 200
            r = await c.get("/v1/problems/bad")  # ours, not the client's: 500, not 404 or 503
            assert r.status == 500 and (await r.json())["error"] == "internal_error"
    finally:
        await svc.close()


def test_closed_stdout_pipe_ends_quietly(tmp_path):
    root = tmp_path / "store"
    store = ProblemStore(FileBlobStore(root, fsync=False))
    for i in range(300):  # ~130 KB of listing: more than a pipe buffers
        store.put(MathProblem(id=f"p{i:03d}", title="t" * 400, question="q", answer="1"))
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen([sys.executable, "-m", "problem_store.cli", "--store", str(root), "ls"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0
    assert first.startswith(b"p000\tmath") and err == ""


def test_s3_reupload_checks_by_stored_checksum_and_repairs_foreign_writes(moto_endpoint, s3_bucket):
    """An intact blob is confirmed by the SHA-256 checksum S3 kept (no download); bytes
    written behind our back, with or without a checksum of their own, are fetched, re-hashed
    and rewritten."""
    import base64
    import hashlib
    import uuid

    from problem_store.blobs.s3 import S3BlobStore

    blobs = S3BlobStore(s3_bucket, f"t-{uuid.uuid4().hex[:12]}", endpoint_url=moto_endpoint)
    store = ProblemStore(blobs)
    assert upload(OWN / "sum-two", store).added == ["sum-two"]
    gets: list[str] = []
    blobs.client.meta.events.register("before-parameter-build.s3.GetObject",
                                      lambda params, **_: gets.append(params["Key"]))
    assert upload(OWN / "sum-two", store).unchanged == ["sum-two"]
    assert gets == [blobs.object_key(manifest_key("sum-two"))]  # the manifest only, no blob
    p = store.get("sum-two")
    plain, checked = p.tests[0].input, p.tests[1].answer
    corrupt_blob(blobs, plain)  # rewritten without a checksum
    bad = b"not the answer\n"
    blobs.client.put_object(Bucket=s3_bucket, Key=blobs.blob_key(checked), Body=bad,
                            ChecksumSHA256=base64.b64encode(hashlib.sha256(bad).digest()).decode())
    gets.clear()
    report = upload(OWN / "sum-two", store)
    assert report.repaired == ["sum-two"] and report.blobs_written == 2
    assert {blobs.blob_key(plain), blobs.blob_key(checked)} <= set(gets)
    assert scan(store).problems_found == 0
