"""The host side's blob resolver: what it keeps in memory and when it may skip a re-check.

Both shortcuts let a run's request be built on the event loop (no thread hop): the docker
backend sends small inputs from memory, the local backend opens a store file it has
already hash-checked. Neither may ever serve bytes other than the link's content.
"""

from __future__ import annotations

import os

import pytest

from problem_store.blobs.file import FileBlobStore
from sandboxes.runner.convert import BlobResolver
from sandboxes.types import Blob


@pytest.fixture
def store(tmp_path):
    return FileBlobStore(tmp_path / "store", fsync=False)


def test_small_blobs_are_read_once_and_kept(store):
    link, _ = store.put(b"3 4\n")
    res = BlobResolver(store)
    assert not res.all_kept([link])
    assert res.data(Blob(link=link)) == b"3 4\n"
    assert res.all_kept([link])
    os.unlink(store.local_path(link))  # the store loses it: the content is still the link's
    assert res.data(Blob(link=link)) == b"3 4\n"


def test_a_corrupt_blob_is_refused_and_not_kept(store):
    link, _ = store.put(b"10 20\n")
    path = store.local_path(link)
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(b"99 99\n")
    res = BlobResolver(store)
    with pytest.raises(Exception, match="(?i)corrupt"):
        res.data(Blob(link=link))
    assert not res.all_kept([link])


def test_large_blobs_are_not_kept_and_the_total_is_bounded(store, monkeypatch):
    big, _ = store.put(b"x" * (BlobResolver.SMALL_BLOB_BYTES + 1))
    res = BlobResolver(store)
    res.data(Blob(link=big))
    assert not res.all_kept([big])
    monkeypatch.setattr(BlobResolver, "SMALL_CACHE_BYTES", 10)
    small = [store.put(b"%05d" % i)[0] for i in range(3)]  # 5 bytes each: room for two
    for link in small:
        res.data(Blob(link=link))
    assert res.all_kept(small[1:]) and not res.all_kept(small[:1])


def test_a_store_file_counts_as_checked_only_as_it_was_when_checked(store):
    link, _ = store.put(b"1 2\n")
    res = BlobResolver(store, pass_fds=True)
    assert not res.all_verified([link])
    fd = res._open_verified(link)
    os.close(fd)
    assert res.all_verified([link])
    path = store.local_path(link)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))  # rewritten in place
    assert not res.all_verified([link])
    assert not BlobResolver(store).all_verified([link])  # no fd passing: never


def test_a_blob_that_leaves_the_store_after_its_first_use_is_never_served_stale(store):
    # The resolver remembers where a link's file is, not that it is there: a blob the store
    # lost (collected, or a symlink or directory put in its place) is seen at the next use.
    link, _ = store.put(b"5 6\n")
    path = store.local_path(link)
    res = BlobResolver(store, pass_fds=True)
    fds: list[int] = []
    assert res.source(Blob(link=link), fds) == {"fd": 0}
    os.close(fds.pop())
    assert res.all_verified([link])
    os.unlink(path)
    assert not res.all_verified([link])
    with pytest.raises(Exception):  # no file and no kept bytes: the store's own error
        res.source(Blob(link=link), fds)
    assert fds == []
    os.mkdir(path)  # a directory where the file was: not a regular file, never verified
    assert not res.all_verified([link])
    os.rmdir(path)
    os.symlink("/etc/hostname", path)  # a symlink: never followed
    assert not res.all_verified([link])
    with pytest.raises(OSError):
        res._open_verified(link)
    os.unlink(path)
    link2, _ = store.put(b"5 6\n")  # put back: checked again from scratch, then served
    assert link2 == link and not res.all_verified([link])
    assert res.source(Blob(link=link), fds) == {"fd": 0}
    assert os.read(fds[0], 100) == b"5 6\n"
    os.close(fds.pop())
