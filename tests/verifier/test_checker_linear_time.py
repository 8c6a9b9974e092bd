"""Checkers cost linear time in what a submission prints (hostile review: a 20,000-digit
token ending in a stray character took the float checker's regex 9 s of backtracking, on the
service's event loop, and a correct batch-mate timed out behind it).

Two checks: the number patterns accept exactly what the textbook patterns accept (those are
the specification, and backtrack), and adversarial outputs far longer than any backtracking
pattern could finish are judged, in a child process with a bound of minutes.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

from verifier.checkers import builtin, custom, testlib_stream

ROOT = Path(__file__).resolve().parents[2]

# The specification: what these patterns were before they were made possessive.
SPEC_FLOAT = re.compile(rb"^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|nan|inf|infinity)$",
                        re.IGNORECASE)
SPEC_DOUBLE = re.compile(rb"^([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:[eE]([+-]?[0-9]*))?$")
SPEC_POINTS = re.compile(r"\s*(?:points\s+)?([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(?!\S)")


def _tokens(seed: int, count: int):
    rnd = random.Random(seed)
    alphabet = b"0123456789..eE++--xnaifINF \t"
    for _ in range(count):
        yield bytes(rnd.choice(alphabet) for _ in range(rnd.randrange(0, 9)))


def test_number_patterns_accept_exactly_what_the_specification_accepts():
    accepted = 0
    for token in _tokens(7, 60_000):
        spec, ours = SPEC_FLOAT.match(token), builtin._FLOAT_RE.match(token)
        assert bool(spec) == bool(ours), token
        spec, ours = SPEC_DOUBLE.match(token), testlib_stream._DOUBLE.match(token)
        assert bool(spec) == bool(ours), token
        if spec:
            assert spec.groups() == ours.groups(), token
            accepted += 1
        text = "points " + token.decode() if token[:1] == b"1" else token.decode()
        spec, ours = SPEC_POINTS.match(text), custom._POINTS_RE.match(text)
        assert (spec and spec.group(1)) == (ours and ours.group(1)), text
    assert accepted > 1_000  # the corpus does reach the accepting paths


_PUMPED = r'''
import sys
from problem_store.manifest import BuiltinChecker
from verifier.checkers import builtin, custom, stock
n = 300_000
outputs = [b"1" * n + s for s in (b"x", b"+", b"-", b"e", b"e+", b".x", b"..")]
outputs += [b"1." * (n // 2), b"1" + b"e" * n, b"+" * n + b"1", b"1 " * (n // 2) + b"x"]
floats = BuiltinChecker(name="floats", abs_tol=1e-6, rel_tol=1e-6)
for out in outputs:
    assert builtin.check_builtin(floats, out, b"3.5\n").verdict in ("PE", "WA"), out[-8:]
    for name in ("rcmp4", "rcmp6", "rcmp9", "dcmp"):
        assert stock.judge(name, out, b"3.5\n")[0] in ("PE", "WA"), (name, out[-8:])
    if b" " not in out:
        assert custom.parse_points(out.decode()) is None
print("judged", len(outputs))
'''


def test_pumped_number_tokens_are_judged_in_linear_time():
    """300,000-digit tokens: a quadratic pattern needs hours here, a linear one milliseconds."""
    done = subprocess.run([sys.executable, "-c", _PUMPED], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "judged 11" in done.stdout
