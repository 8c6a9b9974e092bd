"""The plain-data codec for values crossing the function-call boundary (stdlib only).

Arguments go from the trusted harness to the candidate's process and return values come
back through this codec and nothing else. Why our own format and not pickle/marshal: the
harness decodes bytes written by hostile code, so decoding must never build anything but
None, bool, int, float, complex, str, bytes, list, tuple, dict, set and frozenset, must
never call a method the sender chose, and must stop at fixed size/depth/item limits.
pickle runs code by design; marshal builds code objects and is documented as unsafe on
malicious input; JSON loses tuples, sets, bytes, complex and non-string keys.

Format (little endian): one tag byte, then
  N T F                 None, True, False
  q <i64>               an int in int64 range;  i <u32 n> <n bytes>  any other int
  f <f64>  c <f64 f64>  float, complex
  s <u32 n> <utf-8>     str (surrogatepass: any Python str round-trips);  b <u32 n> bytes
  l t S Z <u32 n> items list, tuple, set, frozenset;   d <u32 n> key value ...   dict
  A <l|t> <u32 n> <n i64>, D <l|t> <u32 n> <n f64>,    fast paths for lists/tuples of only
  W <l|t> <u32 n> <n u32 lengths> <utf-8 bytes>        int64s, only floats, only strs
Encoding accepts subclasses of these types and sends their base value (a ``defaultdict``
goes as a dict, a ``namedtuple`` as a tuple, an ``IntEnum`` as an int), read through the base
type's own C methods; decoding only ever gives the exact base types.

This file is also embedded, as text, in both sandbox programs (``programs.py``): keep it
standard library only and free of package imports.
"""

import struct
from array import array

MAX_BYTES = 32 << 20    # variable-length bytes (str, bytes, big ints) in one message
MAX_DEPTH = 10000       # container nesting
MAX_ITEMS = 1 << 21     # values in one message (every element of every container counts)
_FAST_MIN = 16          # shortest list/tuple worth the array fast path

_U32 = struct.Struct("<I")
_I64 = struct.Struct("<q")
_F64 = struct.Struct("<d")
_C128 = struct.Struct("<dd")
_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


class CodecError(ValueError):
    """The bytes are not a well-formed message within the limits."""


class Unsupported(CodecError):
    """A value of a type that cannot cross the boundary (names the type)."""


class TooLarge(CodecError):
    """The value exceeds the size, depth or item limits."""


def encode(value, max_bytes=MAX_BYTES, max_depth=MAX_DEPTH, max_items=MAX_ITEMS, stats=None) -> bytes:
    """Bytes for ``value``; raises Unsupported (names the type) or TooLarge.

    ``stats``: a dict that receives ``items`` (values encoded one by one) and ``packed``
    (values in the array fast paths), what decoding the message will cost.
    """
    parts = []
    add = parts.append
    # Budgets: values, and variable-length bytes (fixed parts are at most 17 bytes a value,
    # so a message is at most max_bytes + 17 * max_items long: see frame_limit()).
    left = [max_items, max_bytes]
    packed = [0]

    def spend(items, nbytes):
        left[0] -= items
        left[1] -= nbytes
        if left[0] < 0:
            raise TooLarge(f"more than {max_items} values")
        if left[1] < 0:
            raise TooLarge(f"more than {max_bytes} bytes")

    # Iterative (an explicit stack), so nesting is bounded by max_depth, not by recursion.
    work = [(value, 0)]
    pop, push = work.pop, work.extend
    while work:
        v, depth = pop()
        t = type(v)
        if t is int:
            if _I64_MIN <= v <= _I64_MAX:
                add(b"q" + _I64.pack(v))
            else:
                n = v.bit_length() // 8 + 1
                spend(0, n)
                add(b"i" + _U32.pack(n) + v.to_bytes(n, "little", signed=True))
        elif t is str:
            data = v.encode("utf-8", "surrogatepass")
            spend(0, len(data))
            add(b"s" + _U32.pack(len(data)))
            add(data)
        elif t is list or t is tuple:
            if depth >= max_depth:
                raise TooLarge(f"nested deeper than {max_depth}")
            tag = b"l" if t is list else b"t"
            n = len(v)
            if n >= _FAST_MIN:
                kinds = set(map(type, v))
                if kinds == {int}:
                    try:
                        arr = array("q", v)
                    except OverflowError:
                        arr = None
                    if arr is not None:
                        spend(n, 8 * n)
                        packed[0] += n
                        add(b"A" + tag + _U32.pack(n))
                        add(arr.tobytes())
                        continue
                elif kinds == {float}:
                    spend(n, 8 * n)
                    packed[0] += n
                    add(b"D" + tag + _U32.pack(n))
                    add(array("d", v).tobytes())
                    continue
                elif kinds == {str}:
                    data = [x.encode("utf-8", "surrogatepass") for x in v]
                    lengths = array("I", map(len, data))
                    body = b"".join(data)
                    spend(n, 4 * n + len(body))
                    packed[0] += n
                    add(b"W" + tag + _U32.pack(n))
                    add(lengths.tobytes())
                    add(body)
                    continue
            spend(n, 0)
            add(tag + _U32.pack(n))
            d = depth + 1
            push([(x, d) for x in reversed(v)])
        elif t is float:
            add(b"f" + _F64.pack(v))
        elif v is None:
            add(b"N")
        elif t is bool:
            add(b"T" if v else b"F")
        elif t is dict:
            if depth >= max_depth:
                raise TooLarge(f"nested deeper than {max_depth}")
            spend(2 * len(v), 0)
            add(b"d" + _U32.pack(len(v)))
            d = depth + 1
            pairs = []
            for k, x in list(v.items()):
                pairs.append((k, d))
                pairs.append((x, d))
            pairs.reverse()
            push(pairs)
        elif t is set or t is frozenset:
            if depth >= max_depth:
                raise TooLarge(f"nested deeper than {max_depth}")
            members = list(v)
            spend(len(members), 0)
            add((b"S" if t is set else b"Z") + _U32.pack(len(members)))
            d = depth + 1
            push([(x, d) for x in reversed(members)])
        elif t is bytes:
            spend(0, len(v))
            add(b"b" + _U32.pack(len(v)))
            add(v)
        elif t is complex:
            add(b"c" + _C128.pack(v.real, v.imag))
        else:
            work.append((_base_value(v), depth))

    spend(1, 0)
    if stats is not None:
        stats["packed"] = packed[0]
        stats["items"] = max_items - left[0] - packed[0]
    return b"".join(parts)


def frame_limit(max_bytes=MAX_BYTES, max_items=MAX_ITEMS) -> int:
    """The longest message ``encode`` can produce within these budgets."""
    return max_bytes + 17 * max_items + 64


def _base_value(v):
    """The exact-type value under a subclass instance, read with the base type's own methods."""
    # Order matters: bool is final, so int subclasses are IntEnum-like; check int before float.
    if isinstance(v, int):
        return int.__index__(v)
    if isinstance(v, float):
        return float.__float__(v)
    if isinstance(v, complex):
        return complex(complex.real.__get__(v), complex.imag.__get__(v))
    if isinstance(v, str):
        return str.__str__(v)
    if isinstance(v, bytes):
        return bytes.__getitem__(v, slice(None))
    if isinstance(v, dict):
        return dict(dict.items(v))
    if isinstance(v, list):
        return list(list.__iter__(v))
    if isinstance(v, tuple):
        return tuple(tuple.__iter__(v))
    if isinstance(v, frozenset):
        return frozenset(frozenset.__iter__(v))
    if isinstance(v, set):
        return set(set.__iter__(v))
    raise Unsupported(type_name(v))


def type_name(v) -> str:
    t = type(v)
    mod = getattr(t, "__module__", "") or ""
    name = getattr(t, "__qualname__", "") or "?"
    if not isinstance(mod, str) or not isinstance(name, str):
        return "?"
    return name if mod == "builtins" else f"{mod}.{name}"


def decode(data: bytes, max_depth=MAX_DEPTH, max_items=MAX_ITEMS, max_bytes=MAX_BYTES):
    """Rebuild a value from ``data``; raises CodecError for anything malformed or too big
    (the same budgets as ``encode``: a hand-written 33 MiB string is refused here, not when
    the harness sends it back).

    Iterative: each open container is a frame [tag, values still to read, values read]."""
    if not isinstance(data, bytes):
        raise CodecError("not bytes")
    if len(data) > frame_limit():
        raise TooLarge(f"message of {len(data)} bytes exceeds {frame_limit()}")
    n = len(data)
    pos = 0
    items = max_items
    left_bytes = max_bytes
    root = [None, 1, []]
    frames = [root]
    while True:
        frame = frames[-1]
        while frame[1] == 0:
            if frame is root:
                if pos != n:
                    raise CodecError(f"{n - pos} trailing bytes")
                return root[2][0]
            frames.pop()
            value = _finish(frame[0], frame[2])
            frame = frames[-1]
            frame[2].append(value)
            frame[1] -= 1
        if pos >= n:
            raise CodecError("truncated message")
        items -= 1
        if items < 0:
            raise TooLarge(f"more than {max_items} values")
        tag = data[pos]
        pos += 1
        if tag == 0x71:  # q
            if pos + 8 > n:
                raise CodecError("truncated message")
            value = _I64.unpack_from(data, pos)[0]
            pos += 8
        elif tag == 0x73 or tag == 0x62 or tag == 0x69:  # s b i
            if pos + 4 > n:
                raise CodecError("truncated message")
            k = _U32.unpack_from(data, pos)[0]
            pos += 4
            if pos + k > n:
                raise CodecError("truncated message")
            left_bytes -= k
            if left_bytes < 0:
                raise TooLarge(f"more than {max_bytes} bytes")
            chunk = data[pos:pos + k]
            pos += k
            if tag == 0x73:
                try:
                    value = chunk.decode("utf-8", "surrogatepass")
                except UnicodeDecodeError:
                    raise CodecError("invalid UTF-8 in a string") from None
            elif tag == 0x62:
                value = chunk
            else:
                value = int.from_bytes(chunk, "little", signed=True)
        elif tag == 0x4E:  # N
            value = None
        elif tag == 0x54:  # T
            value = True
        elif tag == 0x46:  # F
            value = False
        elif tag == 0x66:  # f
            if pos + 8 > n:
                raise CodecError("truncated message")
            value = _F64.unpack_from(data, pos)[0]
            pos += 8
        elif tag == 0x63:  # c
            if pos + 16 > n:
                raise CodecError("truncated message")
            re_, im = _C128.unpack_from(data, pos)
            pos += 16
            value = complex(re_, im)
        elif tag in _OPENERS:
            if len(frames) > max_depth:
                raise TooLarge(f"nested deeper than {max_depth}")
            if pos + 4 > n:
                raise CodecError("truncated message")
            k = _U32.unpack_from(data, pos)[0]
            pos += 4
            want = 2 * k if tag == 0x64 else k
            if want > n - pos:  # every value takes at least one byte: reject before allocating
                raise CodecError("truncated message")
            if want:
                frames.append([tag, want, []])
                continue
            value = _finish(tag, [])
        elif tag == 0x41 or tag == 0x44 or tag == 0x57:  # A D W
            if len(frames) > max_depth:
                raise TooLarge(f"nested deeper than {max_depth}")
            if pos + 5 > n:
                raise CodecError("truncated message")
            kind = data[pos]
            if kind not in (0x6C, 0x74):
                raise CodecError("bad array kind")
            k = _U32.unpack_from(data, pos + 1)[0]
            pos += 5
            items -= k
            if items < 0:
                raise TooLarge(f"more than {max_items} values")
            width = 4 if tag == 0x57 else 8
            if pos + width * k > n:
                raise CodecError("truncated message")
            left_bytes -= width * k
            if left_bytes < 0:
                raise TooLarge(f"more than {max_bytes} bytes")
            arr = array("I" if tag == 0x57 else "q" if tag == 0x41 else "d")
            arr.frombytes(data[pos:pos + width * k])
            pos += width * k
            if tag == 0x57:
                total = sum(arr)
                if pos + total > n:
                    raise CodecError("truncated message")
                left_bytes -= total
                if left_bytes < 0:
                    raise TooLarge(f"more than {max_bytes} bytes")
                out = []
                try:
                    for length in arr:
                        out.append(data[pos:pos + length].decode("utf-8", "surrogatepass"))
                        pos += length
                except UnicodeDecodeError:
                    raise CodecError("invalid UTF-8 in a string") from None
            else:
                out = arr.tolist()
            value = out if kind == 0x6C else tuple(out)
        else:
            raise CodecError(f"unknown tag byte {tag}")
        frame[2].append(value)
        frame[1] -= 1


_OPENERS = {0x6C, 0x74, 0x64, 0x53, 0x5A}  # l t d S Z


def _finish(tag, values):
    """The container for a frame's values (only ever an exact builtin type)."""
    if tag == 0x6C:
        return values
    if tag == 0x74:
        return tuple(values)
    try:
        if tag == 0x64:
            return dict(zip(values[::2], values[1::2]))
        if tag == 0x53:
            return set(values)
        return frozenset(values)
    except TypeError:  # an unhashable key or member (a list inside a set)
        raise CodecError("unhashable dict key or set member") from None


_CONTAINERS = {list, tuple, dict, set}


def snapshot(value):
    """Every list/tuple/dict/set inside ``value`` copied, everything else shared.

    ``value == snapshot(value)`` holds until something inside ``value`` is changed in
    place, and the comparison runs in C (identical elements compare by identity), which is
    how both sides notice in-place changes to arguments without re-encoding them.
    """
    t = type(value)
    if t is list or t is tuple:
        if not _CONTAINERS.intersection(map(type, value)):
            return list(value) if t is list else value
        out = [snapshot(x) for x in value]
        return out if t is list else tuple(out)
    if t is dict:
        if not _CONTAINERS.intersection(map(type, value.values())):
            return dict(value)
        return {k: snapshot(x) for k, x in value.items()}
    if t is set:
        return set(value)
    return value


def fingerprint(value):
    """What to compare ``value`` with later to notice in-place changes (see ``changed``):
    a snapshot (cheap to compare), or for structures nested too deep for that, its encoding."""
    try:
        return ("s", snapshot(value))
    except RecursionError:
        return ("b", encode(value))


def changed(value, mark) -> bool:
    if mark[0] == "s":
        try:
            return bool(value != mark[1])
        except RecursionError:
            return encode(value) != encode(mark[1])
    return encode(value) != mark[1]
