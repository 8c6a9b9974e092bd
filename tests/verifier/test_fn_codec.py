"""The boundary's plain-data codec: round trips of a generated corpus (truth by construction:
decode(encode(v)) must equal v with the same exact types), and hostile bytes (every
truncation and random corruption of valid messages) that may only ever give plain values
or a CodecError."""

from __future__ import annotations

import math
import random
from collections import Counter, OrderedDict, defaultdict, namedtuple

import pytest

from verifier.judging.boundary.codec import (CodecError, TooLarge, Unsupported, changed, decode,
                                             encode, fingerprint)

PLAIN = (type(None), bool, int, float, complex, str, bytes, list, tuple, dict, set, frozenset)


def _value(rng: random.Random, depth: int = 0):
    kinds = ["none", "bool", "int", "bigint", "float", "complex", "str", "bytes"]
    if depth < 4:
        kinds += ["list", "tuple", "dict", "set", "frozenset", "intlist", "floatlist", "strlist"]
    k = rng.choice(kinds)
    if k == "none":
        return None
    if k == "bool":
        return rng.random() < 0.5
    if k == "int":
        return rng.randint(-2**63, 2**63 - 1)
    if k == "bigint":
        return rng.choice([-1, 1]) * rng.getrandbits(rng.randint(64, 700))
    if k == "float":
        return rng.choice([rng.uniform(-1e300, 1e300), 0.0, -0.0, math.inf, -math.inf, 5e-324])
    if k == "complex":
        return complex(rng.uniform(-9, 9), rng.uniform(-9, 9))
    if k == "str":
        return "".join(chr(rng.choice([rng.randint(32, 126), rng.randint(0xD800, 0xDFFF),
                                       rng.randint(0x100, 0x10FFFF)])) for _ in range(rng.randint(0, 12)))
    if k == "bytes":
        return rng.randbytes(rng.randint(0, 20))
    n = rng.randint(0, 20)
    if k == "intlist":
        return [rng.randint(-10**12, 10**12) for _ in range(16 + n)]
    if k == "floatlist":
        return tuple(rng.uniform(-1, 1) for _ in range(16 + n))
    if k == "strlist":
        return [str(rng.random()) for _ in range(16 + n)]
    if k == "list":
        return [_value(rng, depth + 1) for _ in range(n)]
    if k == "tuple":
        return tuple(_value(rng, depth + 1) for _ in range(n))
    hashables = [_hashable(rng) for _ in range(n)]
    if k == "dict":
        return {h: _value(rng, depth + 1) for h in hashables}
    return set(hashables) if k == "set" else frozenset(hashables)


def _hashable(rng: random.Random):
    return rng.choice([rng.randint(-99, 99), str(rng.random()), (rng.randint(0, 9), "t"),
                       frozenset({rng.randint(0, 5)}), None, True, rng.random(), b"k"])


def _same(a, b) -> bool:
    """Equal with identical exact types all the way down (NaN-free corpus)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and a == 0.0:
        return math.copysign(1, a) == math.copysign(1, b)
    return a == b


def _only_plain(v) -> bool:
    if type(v) not in PLAIN:
        return False
    if isinstance(v, (list, tuple, set, frozenset)):
        return all(_only_plain(x) for x in v)
    if isinstance(v, dict):
        return all(_only_plain(k) and _only_plain(x) for k, x in v.items())
    return True


def test_generated_corpus_round_trips_with_exact_types():
    rng = random.Random(20261125)
    for _ in range(300):
        v = _value(rng)
        assert _same(decode(encode(v)), v), v


def test_subclasses_cross_as_their_base_value():
    P = namedtuple("P", "x y")
    for given, want in [(defaultdict(int, a=1), {"a": 1}), (Counter("aab"), {"a": 2, "b": 1}),
                        (OrderedDict(z=1), {"z": 1}), (P(1, 2), (1, 2))]:
        got = decode(encode(given))
        assert _same(got, want), (given, got)

    class Liar(str):
        def __eq__(self, other):
            return True
        __hash__ = str.__hash__
    got = decode(encode(Liar("no")))
    assert type(got) is str and got == "no" and got != "yes"


def test_what_cannot_cross():
    for v in (object(), (x for x in ()), print, type, range(3), bytearray(b"x"), [object()]):
        with pytest.raises(Unsupported):
            encode(v)
    deep = []
    for _ in range(20000):
        deep = [deep]
    with pytest.raises(TooLarge):
        encode(deep)
    with pytest.raises(TooLarge):
        encode([None] * 10, max_items=5)


def test_hostile_bytes_give_plain_values_or_codec_errors():
    rng = random.Random(7)
    corpus = [encode(_value(rng)) for _ in range(80)]
    for data in corpus:
        for cut in sorted(rng.sample(range(len(data)), min(len(data), 40))):
            try:
                decode(data[:cut])
            except CodecError:
                continue
            # A strict prefix can only decode if it is itself a whole message.
            assert cut == len(encode(decode(data[:cut])))
        for _ in range(20):
            buf = bytearray(data)
            for _ in range(rng.randint(1, 4)):
                buf[rng.randrange(len(buf))] = rng.randrange(256)
            try:
                v = decode(bytes(buf))
            except CodecError:
                continue
            assert _only_plain(v)


def test_huge_claimed_lengths_are_refused_before_allocating():
    for data in (b"l\xff\xff\xff\x7f", b"s\xff\xff\xff\xff", b"Al\xff\xff\xff\x0f", b"Wt\xff\xff\xff\x0f"):
        with pytest.raises(CodecError):
            decode(data)


def test_fingerprints_notice_every_in_place_change():
    rng = random.Random(3)
    for _ in range(200):
        v = [_value(rng, 2) for _ in range(5)] + [[1, [2]], {"k": [3]}]
        mark = fingerprint(v)
        assert not changed(v, mark)
        target = rng.choice([v, v[-2], v[-2][1], v[-1]["k"]])
        if isinstance(target, dict):
            target["new"] = 1
        else:
            target.append(0)
        assert changed(v, mark)
    deep = [0]
    for _ in range(5000):  # too deep for a snapshot: falls back to the encoding
        deep = [deep]
    mark = fingerprint(deep)
    assert not changed(deep, mark)
    deep.append(1)
    assert changed(deep, mark)
