"""Built-in stand-ins for testlib's stock checkers, with their exact verdicts.

Each function follows its stock checker's order of reads, because the order decides the
verdict: ``ncmp`` reads the jury's number before the contestant's (a bad jury token is FAIL even
when the output is also bad), ``yesno`` reads the output before it validates the answer, and
every checker that ends in OK is then subject to testlib's "extra information in the output
file" rule (PE when non-blank output is left unread). The semantics table is in
docs/problem-format.md; the reference they are tested against is testlib's own checkers
compiled with the real testlib.h (tests/verifier/test_stock_differential.py).

Checkers not here (rcmp, acmp, uncmp, rncmp, caseicmp, casencmp, casewcmp, pointscmp,
pointsinfo, ...) are compiled from the source a package ships.
"""

from __future__ import annotations

from typing import Callable

from verifier.checkers.bounded import ASCII_BLANKS
from verifier.checkers.testlib_stream import Quit, Stream, TokenStream, double_compare, part

Reader = Stream | TokenStream
Checker = Callable[[Reader, Reader], str]


def _ending(n: int) -> str:
    if n % 10 == 1 and n % 100 != 11:
        return "st"
    if n % 10 == 2 and n % 100 != 12:
        return "nd"
    if n % 10 == 3 and n % 100 != 13:
        return "rd"
    return "th"


def wcmp(ouf: Reader, ans: Reader) -> str:
    n = 0
    while not ans.seek_eof() and not ouf.seek_eof():
        n += 1
        j, p = ans.read_word(), ouf.read_word()
        if j != p:
            raise Quit("WA", f"{n}{_ending(n)} words differ - expected: '{part(j)}', found: '{part(p)}'")
    if ans.seek_eof() and ouf.seek_eof():
        return f"{n} tokens"
    if ans.seek_eof():
        raise Quit("WA", "Participant output contains extra tokens")
    raise Quit("WA", "Unexpected EOF in the participants output")


def _same_length(ouf: Reader, ans: Reader, n: int, kind: str) -> None:
    """After n equal items: both sides must end here (testlib reads and counts each side's
    remaining items with the same reader, so a malformed extra item is reported as such).
    The jury's are read one by one; the output's in one pass over its bytes (a flood of
    extra output must not cost a Python step per token)."""
    extra_ans = 0
    while not ans.seek_eof():
        ans.read_long() if kind == "long" else ans.read_word()
        extra_ans += 1
    extra_ouf = ouf.skip_rest(kind)
    if extra_ans:
        raise Quit("WA", f"Answer contains longer sequence [length = {n + extra_ans}], "
                         f"but output contains {n} elements")
    if extra_ouf:
        raise Quit("WA", f"Output contains longer sequence [length = {n + extra_ouf}], "
                         f"but answer contains {n} elements")


def ncmp(ouf: Reader, ans: Reader) -> str:
    n = 0
    while not ans.seek_eof() and not ouf.seek_eof():
        n += 1
        j, p = ans.read_long(), ouf.read_long()
        if j != p:
            raise Quit("WA", f"{n}{_ending(n)} numbers differ - expected: '{j}', found: '{p}'")
    _same_length(ouf, ans, n, "long")
    return f"{n} numbers"


def icmp(ouf: Reader, ans: Reader) -> str:
    j = ans.read_int()
    p = ouf.read_int()
    if j != p:
        raise Quit("WA", f"expected {j}, found {p}")
    return f"answer is {j}"


def hcmp(ouf: Reader, ans: Reader) -> str:
    j, p = ans.read_word(), ouf.read_word()
    if not _huge_integer(j):
        raise Quit("FAIL", f"{part(j)} is not valid integer")
    if not ans.seek_eof():
        raise Quit("FAIL", "expected exactly one token in the answer file")
    if not _huge_integer(p):
        raise Quit("PE", f"{part(p)} is not valid integer")
    if j != p:
        raise Quit("WA", f"expected {part(j)}, found {part(p)}")
    return f"answer is {part(j)}"


def _huge_integer(token: bytes) -> bool:
    # hcmp's pattern 0|-?[1-9][0-9]* over the whole token.
    body = token[1:] if token[:1] == b"-" else token
    return token == b"0" or (body[:1] in b"123456789" and body[:1] != b"" and body.isdigit())


def _line_by_line(ouf: Stream, ans: Stream, same) -> str:
    n = 0
    while not ans.eof():
        j = ans.read_line()
        if j == b"" and ans.eof():
            break
        p = ouf.read_line()
        n += 1
        if not same(j, p):
            raise Quit("WA", f"{n}{_ending(n)} lines differ - expected: '{part(j)}', found: '{part(p)}'")
    return f"{n} lines"


def lcmp(ouf: Stream, ans: Stream) -> str:
    # Lines compared as token lists; the tokens come from std::stringstream, so here (unlike
    # testlib's own reader) vertical tab and form feed do separate tokens.
    return _line_by_line(ouf, ans, _same_words)


def _same_words(j: bytes, p: bytes) -> bool:
    # Equal token lists have equally many non-blank bytes; checking that first (in C) means an
    # output line is split into no more tokens than the jury's line has bytes.
    if len(p) > len(j) and len(p.translate(None, ASCII_BLANKS)) != len(j.translate(None, ASCII_BLANKS)):
        return False
    return j.split() == p.split()


def fcmp(ouf: Stream, ans: Stream) -> str:
    return _line_by_line(ouf, ans, lambda j, p: j == p)


def _upper(token: bytes) -> bytes:
    return bytes(c - 32 if 0x61 <= c <= 0x7A else c for c in token)  # ASCII only, as testlib


def yesno(ouf: Reader, ans: Reader) -> str:
    j = _upper(ans.read_word())
    p = _upper(ouf.read_word())
    if j not in (b"YES", b"NO"):
        raise Quit("FAIL", f"YES or NO expected in answer, but {part(j)} found")
    if p not in (b"YES", b"NO"):
        raise Quit("PE", f"YES or NO expected, but {part(p)} found")
    if j != p:
        raise Quit("WA", f"expected {part(j)}, found {part(p)}")
    return f"answer is {part(j)}"


def nyesno(ouf: Reader, ans: Reader) -> str:
    n = 0
    while not ans.seek_eof() and not ouf.seek_eof():
        n += 1
        j = _upper(ans.read_word())
        p = _upper(ouf.read_word())
        if j not in (b"YES", b"NO"):
            raise Quit("FAIL", f"YES or NO expected in answer, but {part(j)} found [{n}{_ending(n)} token]")
        if p not in (b"YES", b"NO"):
            raise Quit("PE", f"YES or NO expected, but {part(p)} found [{n}{_ending(n)} token]")
        if j != p:
            raise Quit("WA", f"expected {part(j)}, found {part(p)} [{n}{_ending(n)} token]")
    _same_length(ouf, ans, n, "word")
    return f"{n} token(s)"


def _doubles(eps: float) -> Checker:
    def check(ouf: Reader, ans: Reader) -> str:
        n = 0
        while not ans.seek_eof():
            n += 1
            j, p = ans.read_double(), ouf.read_double()
            if not double_compare(j, p, eps):
                raise Quit("WA", f"{n}{_ending(n)} numbers differ - expected: '{j:.10f}', found: '{p:.10f}'")
        return f"{n} numbers"
    return check


def dcmp(ouf: Reader, ans: Reader) -> str:
    j, p = ans.read_double(), ouf.read_double()
    if not double_compare(j, p, 1e-6):
        raise Quit("WA", f"expected {j:.10f}, found {p:.10f}")
    return f"answer is {j:.10f}"


STOCK: dict[str, Checker] = {
    "wcmp": wcmp,
    "ncmp": ncmp,
    "icmp": icmp,
    "hcmp": hcmp,
    "lcmp": lcmp,
    "fcmp": fcmp,
    "yesno": yesno,
    "nyesno": nyesno,
    "rcmp4": _doubles(1e-4),
    "rcmp6": _doubles(1e-6),
    "rcmp9": _doubles(1e-9),
    "dcmp": dcmp,
}

# Checkers that read lines need the byte-level reader; the others read tokens only.
LINE_CHECKERS = frozenset({"lcmp", "fcmp"})
_VERDICT = {"OK": "AC", "WA": "WA", "PE": "PE", "FAIL": "IE"}


def judge(name: str, output: bytes, answer: bytes, *, reader: type | None = None) -> tuple[str, str]:
    """(verdict, message) of stock checker ``name`` on one output: AC, WA, PE or IE.

    ``reader`` forces a reader class (tests check both give the same verdicts)."""
    cls = reader or (Stream if name in LINE_CHECKERS else TokenStream)
    ouf, ans = cls(output, "ouf"), cls(answer, "ans")
    try:
        message = STOCK[name](ouf, ans)
        # testlib's quit(_ok): output left unread makes it PE ("dirt").
        if not ouf.seek_eof():
            raise Quit("PE", "Extra information in the output file")
        return "AC", message
    except Quit as q:
        verdict = _VERDICT[q.result]
        return verdict, (f"checker FAIL: {q.message}" if verdict == "IE" else q.message)
