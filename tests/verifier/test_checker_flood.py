"""A flood of output costs the checkers C-speed passes over bytes, not Python work per token.

Red team (F5): a wrong C program printing ~60 MB of "1\\n" per test (16x a 4 MB answer + 1 MiB
is still under the output guard) made ``integers`` split and match ~68 M tokens per
submission: 18.6 s holding the service's GIL, correct requests of other clients waited up to
59 s, and the attacker's own requests ran into the deadline (IE, reward null, not WA).

The checkers now read no more of the output than the answer has (+1 token or line) into
Python objects and stop at the first difference; what they still need about the rest (is
there any, how many tokens, is every extra token an int64 for ``ncmp``) is learnt with bytes
methods and possessive regexes. Each fast path is checked against the straightforward reading
it replaced (the specification here), and the floods are judged in a child process whose
traced memory shows that no per-token objects were made.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from problem_store.manifest import BuiltinChecker
from verifier.checkers import bounded, builtin, stock, testlib_stream
from verifier.checkers.testlib_stream import Quit, Stream, TokenStream, parse_long

ROOT = Path(__file__).resolve().parents[2]


def _blobs(seed: int, count: int, alphabet: bytes, longest: int = 12):
    rnd = random.Random(seed)
    for _ in range(count):
        yield bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(0, longest)))


def test_token_counts_and_bounded_splits_agree_with_split():
    for data in _blobs(1, 20_000, b"ab \t\n\r\x0b\x0c"):
        assert bounded.count_tokens(data) == len(data.split()), data
        testlib = [t for t in data.replace(b"\t", b" ").replace(b"\r", b" ").replace(b"\n", b" ")
                   .split(b" ") if t]
        assert bounded.count_tokens(data, bounded.TESTLIB_BLANKS) == len(testlib), data
        for n in range(4):
            head, extra = bounded.split_upto(data, n)
            assert head == data.split()[:n] and extra == max(0, len(data.split()) - n), (data, n)
            lines, rest = bounded.split_lines_upto(data, n)
            assert b"\n".join(lines + ([rest] if len(lines) == n and data.count(b"\n") >= n else [])) \
                == data, (data, n)
        for limit in range(5):
            longest = max((len(t) for t in testlib), default=0)
            assert bounded.longest_token_over(data, limit) == (longest > limit), (data, limit)


def test_first_difference_is_the_first_differing_byte():
    rnd = random.Random(2)
    for _ in range(2_000):
        a = bytes(rnd.choice(b"ab") for _ in range(rnd.randrange(0, 200_000 if rnd.random() < 0.01 else 40)))
        b = bytearray(a[:rnd.randrange(0, len(a) + 1)])
        if b and rnd.random() < 0.7:
            b[rnd.randrange(len(b))] ^= 1
        b = bytes(b)
        want = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        assert bounded.first_difference(a, b) == want


def _skip_rest_spec(reader, kind: str):
    """testlib's way: read each remaining token with the typed read, count them."""
    n = 0
    try:
        while not reader.seek_eof():
            reader.read_long() if kind == "long" else reader.read_word()
            n += 1
    except Quit as q:
        return q.result, q.message
    return n


def _skip_rest(reader, kind: str):
    try:
        return reader.skip_rest(kind)
    except Quit as q:
        return q.result, q.message


def _long_tokens(rnd: random.Random) -> bytes:
    pick = rnd.random()
    if pick < 0.3:  # around the int64 edges and the 18/19/20-character boundaries
        base = rnd.choice([2**63 - 1, 2**63, -(2**63), -(2**63) - 1, 10**18, 10**19, 9 * 10**18,
                           -(10**18), 99999999999999999, 922337203685477580])
        return str(base + rnd.randrange(-3, 4)).encode()
    if pick < 0.5:
        return str(rnd.randrange(-(10**21), 10**21)).encode()
    return bytes(rnd.choice(b"0123456789-+9x") for _ in range(rnd.randrange(1, 22)))


def test_skipping_extra_tokens_rejects_exactly_what_testlib_reads_reject():
    rnd = random.Random(3)
    outcomes = set()
    for _ in range(20_000):
        tokens = [_long_tokens(rnd) for _ in range(rnd.randrange(0, 5))]
        data = b"".join(t + rnd.choice([b" ", b"\n", b"\r\n", b"\t", b"  "]) for t in tokens)
        for cls in (Stream, TokenStream):
            want = _skip_rest_spec(cls(data, "ouf"), "long")
            assert _skip_rest(cls(data, "ouf"), "long") == want, data
            outcomes.add(want if isinstance(want, tuple) else "count")
        for t in tokens:
            assert (testlib_stream._LONGS.match(t).end() == len(t)) == (parse_long(t) is not None), t
    assert "count" in outcomes and any(isinstance(o, tuple) and o[0] == "PE" for o in outcomes)
    # a jury file's bad token is FAIL, as testlib's ans stream says
    assert _skip_rest(Stream(b"1 2 05", "ans"), "long")[0] == "FAIL"
    assert _skip_rest(Stream(b"a b\x0b c", "ouf"), "word") == 3


def _read_line_spec(data: bytes, pos: int) -> tuple[bytes, int]:
    """testlib's readLine character loop (what Stream did before the bytes version)."""
    def cur():
        return data[pos] if pos < len(data) else -1
    out = bytearray()
    while True:
        c = cur()
        if c in (0x0A, -1):
            break
        if c == 0x0D:
            pos += 1
            if cur() == 0x0A:
                pos -= 1
                break
        nxt = cur()
        pos += 1
        out.append(0xFF if nxt == -1 else nxt)
    c = cur()  # eoln
    pos += 1
    if c == 0x0D:
        pos += 1  # the LF of a CRLF (the loop stopped on its CR)
    return bytes(out), pos


def test_lines_with_lone_carriage_returns_read_as_testlib_reads_them():
    for data in _blobs(4, 30_000, b"a\r\r\n\0\1\2", longest=14):
        stream, pos = Stream(data, "ans"), 0
        for _ in range(4):
            want, pos = _read_line_spec(data, pos)
            assert stream.read_line() == want, data
            assert stream.pos == pos, data


@pytest.mark.parametrize("name", sorted(stock.STOCK))
def test_a_token_window_of_any_size_gives_the_same_verdicts(name, monkeypatch):
    """The windowed token reader against the byte-level one, windows cutting every token."""
    rnd = random.Random(hash(name) & 0xFFFF)
    for window in (1, 2, 3, 5, 8):
        monkeypatch.setattr(TokenStream, "_WINDOW", window)
        for _ in range(300):
            answer = b" ".join(_long_tokens(rnd) if rnd.random() < 0.8 else rnd.choice([b"YES", b"no"])
                               for _ in range(rnd.randrange(1, 4)))
            output = bytearray(answer + b" " * rnd.randrange(0, 3))
            for _ in range(rnd.randrange(0, 3)):
                i = rnd.randrange(len(output) + 1)
                output[i:i] = rnd.choice([b" 7", b"\r\n8", b"x", b"1.5", b"  ", b"\x0b", b"-"])
            output = bytes(output)
            if name in stock.LINE_CHECKERS:
                continue
            assert stock.judge(name, output, answer) == stock.judge(name, output, answer, reader=Stream), \
                (window, output, answer)


def _integers_spec(output: bytes, answer: bytes) -> bool:
    out, ans = output.split(), answer.split()
    return (len(out) == len(ans) and all(re.fullmatch(rb"[+-]?[0-9]+", o) for o in out)
            and [int(o) for o in out] == [int(a) for a in ans])


def test_own_checkers_accept_exactly_what_the_whole_split_accepts():
    rnd = random.Random(5)
    verdicts = set()
    for _ in range(6_000):
        answer = b" ".join(str(rnd.randrange(-20, 20)).encode() for _ in range(rnd.randrange(1, 5)))
        output = bytearray(answer)
        for _ in range(rnd.randrange(0, 3)):
            i = rnd.randrange(len(output) + 1)
            output[i:i] = rnd.choice([b" 7", b"\n", b"x", b"0", b"+", b" ", b"\r\n", b"-1 "])
        output = bytes(output)
        got = builtin.check_builtin(BuiltinChecker(name="integers"), output, answer).verdict
        verdicts.add(got)
        assert (got == "AC") == _integers_spec(output, answer), (output, answer)
        got = builtin.check_builtin(BuiltinChecker(name="tokens"), output, answer).verdict
        assert (got == "AC") == (output.split() == answer.split()), (output, answer)
        got = builtin.check_builtin(BuiltinChecker(name="unordered"), output, answer).verdict
        assert (got == "AC") == (sorted(output.split()) == sorted(answer.split())), (output, answer)
        lines = [ln.rstrip() for ln in output.split(b"\n")]
        want = [ln.rstrip() for ln in answer.split(b"\n")]
        while lines and not lines[-1]:
            lines.pop()
        while want and not want[-1]:
            want.pop()
        got = builtin.check_builtin(BuiltinChecker(name="lines"), output, answer).verdict
        assert (got == "AC") == (lines == want), (output, answer)
    assert {"AC", "WA", "PE"} <= verdicts


_FLOOD = r'''
import random, tracemalloc
from problem_store.manifest import BuiltinChecker
from verifier.checkers import builtin, stock
rnd = random.Random(1)
answer = b"\n".join(str(rnd.randrange(10**12)).encode() for _ in range(50_000)) + b"\n"
budget = 16 * len(answer) + (1 << 20)  # the most the service lets a checker read
floods = [b"1\n" * (budget // 2), answer + b"1\n" * ((budget - len(answer)) // 2),
          b"\r1" * (budget // 2), answer + b"9223372036854775807 " * ((budget - len(answer)) // 20),
          answer + b"5 " * ((budget - len(answer)) // 2 - 1) + b"x"]
names = ["exact", "lines", "tokens", "integers", "unordered", "floats"] + sorted(stock.STOCK)
worst = 0.0
for out in floods:
    for name in names:
        tracemalloc.start()
        if name in stock.STOCK:
            verdict = stock.judge(name, out, answer)[0]
        else:
            verdict = builtin.check_builtin(BuiltinChecker(name=name), out, answer).verdict
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert verdict != "AC", (name, out[-20:])
        worst = max(worst, peak / len(out))
        # Python objects for the answer's tokens (twice over) are fine; per output token not:
        # "1\n" as objects would be ~17x the output's size.
        assert peak < 3 * len(out) + 40 * len(answer), (name, out[-20:], peak, len(out))
print("judged", len(floods) * len(names), "worst peak %.2fx" % worst)
'''


def test_floods_of_output_are_judged_without_per_token_objects():
    done = subprocess.run([sys.executable, "-c", _FLOOD], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "judged 90" in done.stdout, done.stdout
