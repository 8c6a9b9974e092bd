"""ProblemStore and TransientStore over every backend."""

from __future__ import annotations

import pytest

from problem_store.blobs.base import link_for
from problem_store.manifest import MathProblem, StdioProblem, TestCase, dump_problem
from problem_store.problems import MissingBlobs, ProblemNotFound, ProblemStore
from problem_store.transient import TransientNotFound, TransientStore, object_key_of


def _stdio(pid: str, pairs: list[tuple[bytes, bytes]], title: str = "") -> tuple[StdioProblem, dict[str, bytes]]:
    blobs: dict[str, bytes] = {}
    tests = []
    for i, (inp, ans) in enumerate(pairs):
        blobs[link_for(inp)], blobs[link_for(ans)] = inp, ans
        tests.append(TestCase(name=f"{i:02d}", input=link_for(inp), answer=link_for(ans)))
    return StdioProblem(id=pid, title=title, tests=tuple(tests)), blobs


def test_put_get_list_delete(problems: ProblemStore):
    p, blobs = _stdio("p1", [(b"1 2\n", b"3\n"), (b"2 2\n", b"4\n")])
    res = problems.put(p, blobs)
    assert res.previous is None and len(res.new_links) == 4
    assert problems.get("p1") == p
    assert problems.get_bytes("p1") == dump_problem(p)
    assert problems.exists("p1") and not problems.exists("nope")
    problems.put(MathProblem(id="m1", question="1+1?", answer="2", split="heldout"))
    assert [s.id for s in problems.list()] == ["m1", "p1"]
    assert [s.id for s in problems.list(kind="math")] == ["m1"]
    assert [s.id for s in problems.list(split="heldout")] == ["m1"]
    assert problems.list(kind="stdio")[0].n_tests == 2
    problems.delete("p1")
    with pytest.raises(ProblemNotFound):
        problems.get("p1")
    with pytest.raises(ProblemNotFound):
        problems.delete("p1")


def test_manifest_never_written_before_its_blobs(problems: ProblemStore):
    p, blobs = _stdio("p2", [(b"in\n", b"out\n")])
    with pytest.raises(MissingBlobs):
        problems.put(p, {})  # no blobs given, none stored
    assert not problems.exists("p2")


def test_get_sees_updates_through_the_cache(problems: ProblemStore, blob_store):
    p, blobs = _stdio("p3", [(b"a\n", b"b\n")], title="first")
    problems.put(p, blobs)
    assert problems.get("p3").title == "first"
    assert problems.get("p3") is problems.get("p3")  # cached while unchanged
    other = ProblemStore(blob_store)  # another process (e.g. a second verifier replica)
    other.put(p.model_copy(update={"title": "second"}))
    assert problems.get("p3").title == "second"
    other.delete("p3")
    with pytest.raises(ProblemNotFound):
        problems.get("p3")


def test_gc_keeps_referenced_and_young_blobs(problems: ProblemStore, blob_store):
    p1, b1 = _stdio("keep", [(b"shared\n", b"one\n")])
    p2, b2 = _stdio("drop", [(b"shared\n", b"two\n")])
    problems.put(p1, b1)
    problems.put(p2, b2)
    problems.delete("drop")
    assert problems.gc(grace_s=3600) == []  # the orphan is too young to be collected
    removed = problems.gc(grace_s=0)
    assert removed == [link_for(b"two\n")]
    assert blob_store.exists(link_for(b"shared\n")) and blob_store.exists(link_for(b"one\n"))
    assert problems.get("keep") == p1


def test_transient_ttl_and_gc(blob_store):
    ts = TransientStore(blob_store, ttl_s=60)
    now = 1_000_000.0
    short = ts.put(b"old output", ttl_s=10, now=now)
    long = ts.put(b"new output", now=now)
    assert short.startswith("transient://")
    assert ts.get(short, now=now + 5) == b"old output"
    assert blob_store.get_object(object_key_of(long)) == b"new output"
    with pytest.raises(TransientNotFound) as e:
        ts.get(short, now=now + 11)
    assert e.value.expired
    assert ts.gc(now=now + 30) == 1
    assert blob_store.get_object(object_key_of(short)) is None
    assert ts.get(long, now=now + 30) == b"new output"
    assert ts.gc(now=now + 61) == 1
    with pytest.raises(TransientNotFound):
        ts.get(long, now=now + 30)
    with pytest.raises(ValueError):
        ts.get("transient://../x")
