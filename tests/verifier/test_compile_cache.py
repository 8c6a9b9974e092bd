"""The compile cache: LRU by entries and by bytes; IE is never cached."""

from sandboxes.types import Artifact, Blob, CompileResult, Status
from verifier.judging.compile_cache import CompileCache, cache_key


def ok(n: int) -> CompileResult:
    return CompileResult(status=Status.OK, artifact=Artifact(language="binary", blob=Blob(data=b"x" * n)))


def test_lru_by_entries_and_bytes():
    c = CompileCache(max_entries=2, max_bytes=1000)
    a, b, d = (cache_key("cpp", s) for s in ("a", "b", "d"))
    c.put(a, ok(10))
    c.put(b, ok(10))
    assert c.get(a) is not None  # a is now most recent
    c.put(d, ok(10))
    assert c.get(b) is None and c.get(a) is not None and c.get(d) is not None
    c.put(cache_key("cpp", "big"), ok(200))
    c.put(cache_key("cpp", "big2"), ok(200))
    assert c._bytes <= 1000 and len(c) <= 2
    c.put(cache_key("cpp", "huge"), ok(600))  # over a quarter of the budget: not kept
    assert c.get(cache_key("cpp", "huge")) is None


def test_ie_and_artifactless_ok_not_cached_ce_cached():
    c = CompileCache(max_entries=8)
    c.put(cache_key("cpp", "x"), CompileResult(status=Status.IE, log="sandbox died"))
    c.put(cache_key("cpp", "y"), CompileResult(status=Status.OK))
    c.put(cache_key("cpp", "z"), CompileResult(status=Status.CE, log="error: expected ';'"))
    assert c.get(cache_key("cpp", "x")) is None and c.get(cache_key("cpp", "y")) is None
    assert c.get(cache_key("cpp", "z")).status == Status.CE
    assert cache_key("cpp", "z") != cache_key("c", "z")  # language is part of the key
