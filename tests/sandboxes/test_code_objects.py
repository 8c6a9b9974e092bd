"""The host's cache of compiled Python code objects (``convert.CodeObjects``): what a
compile reply leaves in it, what a run request carries, and its bound."""

from __future__ import annotations

import hashlib

from sandboxes.runner import convert
from sandboxes.types import Artifact, Blob


def _reply(src: bytes, code: str | None) -> dict:
    reply = {"status": "OK", "artifact": {"language": "python", "sha256": hashlib.sha256(src).hexdigest(),
                                          "data_b64": convert.b64(src)}}
    if code is not None:
        reply["pycode_b64"] = code
    return reply


def _ref(cache, src: bytes, with_data: bool) -> dict:
    art = Artifact(language="python", blob=Blob(data=src))
    return convert.program_ref(art, src, with_data=with_data, code_objects=cache)


def test_the_code_object_travels_only_with_the_source():
    cache = convert.CodeObjects()
    cache.note(_reply(b"print(1)\n", "Y29kZQ=="))
    assert _ref(cache, b"print(1)\n", True)["pycode_b64"] == "Y29kZQ=="
    assert "pycode_b64" not in _ref(cache, b"print(1)\n", False)  # the slot holds both already
    assert "pycode_b64" not in _ref(cache, b"print(2)\n", True)  # another program
    cache.note(_reply(b"print(3)\n", None))  # exec-path compile: nothing to keep
    assert "pycode_b64" not in _ref(cache, b"print(3)\n", True)
    cache.note({"status": "CE", "artifact": None, "pycode_b64": "eA=="})
    assert "pycode_b64" not in _ref(None, b"print(1)\n", True)


def test_bounded_by_bytes_least_recently_used_first():
    cache = convert.CodeObjects(max_bytes=100)
    for i in range(3):
        cache.note(_reply(b"%d" % i, "x" * 40))
    sha = [hashlib.sha256(b"%d" % i).hexdigest() for i in range(3)]
    assert cache.get(sha[0]) is None and cache.get(sha[1]) and cache.get(sha[2])
    cache.get(sha[1])  # now the most recent
    cache.note(_reply(b"3", "y" * 40))
    assert cache.get(sha[2]) is None and cache.get(sha[1]) == "x" * 40
    cache.note(_reply(b"4", "z" * 101))  # larger than the whole bound: not kept
    assert cache.get(hashlib.sha256(b"4").hexdigest()) is None
    cache.note(_reply(b"1", "w" * 10))  # a new code object for the same source replaces it
    assert cache.get(sha[1]) == "w" * 10 and cache._bytes == 50
