"""One output, one answer: no built-in checker accepts one output for two jury answers it
does not itself hold equal.

A program that printed both of its candidate answers (on two lines, one line, joined by a
separator the checker might skip) and was accepted for either would hedge its way to reward
without solving the problem. Truth by construction: for every checker (ours and testlib's stock
ones), every ordered pair of jury answers the checker tells apart, and every way of joining
them, at most one of the two answers accepts the output.
"""

from __future__ import annotations

import itertools

import pytest

from problem_store.manifest import BuiltinChecker
from verifier.checkers import stock
from verifier.checkers.builtin import check_builtin

NAMES = ["exact", "lines", "tokens", "integers", "unordered", "floats", *sorted(stock.STOCK)]
ANSWERS = [b"5", b"7", b"-5", b"12", b"0", b"5 7", b"7 5", b"1 2 3", b"YES", b"NO", b"yes", b"no",
           b"1.5", b"1.25", b"2.0", b"3.14159", b"abc", b"abd", b"5\n7", b"7\n5", b"1e9",
           b"1000000000", b"hello world", b"hello  world"]
JOINS = [b"\n", b" ", b"", b"\t", b"\r\n", b"\r", b"\x00", b" or ", b"/", b"\n\n", b"|", b"\x0b",
         b"\x0c", b"\xa0", b"\x1c", b"\x85"]


def _hedges(a: bytes, b: bytes):
    for sep in JOINS:
        yield a + sep + b
        yield a + sep + b + b"\n"
        yield b" " + a + sep + b + b" "


def _double_covered(accepts) -> tuple[int, list]:
    """(pairs the checker tells apart, outputs accepted for both answers of a pair)."""
    pairs, both = 0, []
    for a, b in itertools.permutations(ANSWERS, 2):
        if accepts(a + b"\n", b) or accepts(b + b"\n", a):
            continue  # one answer for this checker (e.g. 1e9 and 1000000000 as numbers)
        if accepts(a + b"\n", a) is None or accepts(b + b"\n", b) is None:
            continue  # not a jury answer this checker takes
        pairs += 1
        both += [(a, b, out) for out in _hedges(a, b) if accepts(out, a) and accepts(out, b)]
    return pairs, both


@pytest.mark.parametrize("name", NAMES)
def test_no_output_is_accepted_for_two_different_answers(name):
    spec = BuiltinChecker(name=name)

    def accepts(output: bytes, answer: bytes) -> bool | None:
        verdict = check_builtin(spec, output, answer + b"\n").verdict
        return None if verdict == "IE" else verdict == "AC"

    pairs, both = _double_covered(accepts)
    assert pairs >= 8, pairs  # the checker told answers apart (yes/no checkers: YES and NO only)
    assert not both, both[:10]


def test_the_hedges_catch_a_checker_that_accepts_the_answer_anywhere():
    # Controls: comparators that look for the answer among the output's lines or tokens
    # (classic judge bugs) are caught; one that reads only the first line is wrong but
    # not double-covering (the hedge pays one order only), so it is not expected here.
    def any_line(output: bytes, answer: bytes) -> bool:
        return answer.strip() in [line.strip() for line in output.splitlines()]

    def any_tokens(output: bytes, answer: bytes) -> bool:
        out, ans = output.split(), answer.split()
        return any(out[i:i + len(ans)] == ans for i in range(len(out) - len(ans) + 1))

    assert _double_covered(any_line)[1]
    assert _double_covered(any_tokens)[1]
