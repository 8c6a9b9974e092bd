"""A model of testlib's ``InStream`` reader, so built-in stand-ins read files as testlib does.

Facts this follows (testlib.h 0.9.44, checked against the real header in
tests/verifier/test_stock_differential.py):

- Blanks are exactly space, tab, CR and LF. Vertical tab, form feed, NUL and bytes >= 0x80
  are ordinary token characters.
- A token is a maximal run of non-blanks; reading one at EOF is "unexpected EOF". Tokens
  longer than 32 MiB are rejected.
- ``readLong``: ``-?digits``, at most 20 characters, no ``+``, no leading zero (``0`` alone is
  fine, ``00``, ``05``, ``-0`` are not), within int64. ``readInt`` also needs int32.
- ``readDouble``: only digits, ``.``, ``e``/``E``, ``+``/``-``; parsed as glibc's
  ``sscanf("%lf%s")`` does, which also takes ``1e``, ``1e+``, ``1e-`` as 1 (the exponent
  marker without digits is consumed). ``nan``, ``inf`` and hex are rejected; ``1e400`` reads as
  infinity.
- ``readLine``: up to LF; CRLF ends the line; a lone CR is dropped and the byte after it is
  taken verbatim (at EOF that byte is testlib's EOF marker 0xFF).
- The contestant's output (``ouf``) starts after a UTF-8 byte-order mark, if there is one.

A read error on ``ouf`` is PE; on the jury's answer it is FAIL (our IE): the stream's role
decides, as testlib's ``InStream::quit`` does.
"""

from __future__ import annotations

import re

from verifier.checkers.bounded import TESTLIB_BLANKS, count_tokens, longest_token_over

MAX_TOKEN = 32 * 1024 * 1024
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
_BLANKS = frozenset(b" \t\r\n")
_BLANK_RUN = re.compile(rb"[ \t\r\n]*")
_TOKEN_RUN = re.compile(rb"[^ \t\r\n]*")
_TOKEN_FIND = re.compile(rb"[^ \t\r\n]+")
_DOUBLE_CHARS = re.compile(rb"^[0-9.eE+-]*$")
# What glibc's %lf consumes of a token made of those characters; the rest must be empty.
# Possessive and unambiguous (see builtin._FLOAT_RE): linear in the token's length.
_DOUBLE = re.compile(rb"^([+-]?+(?:[0-9]++(?:\.[0-9]*+)?+|\.[0-9]++))(?:[eE]([+-]?+[0-9]*+))?+$")
_BOM = b"\xef\xbb\xbf"


def _digits_at_most(bound: str) -> str:
    """Regex for digit strings as long as ``bound`` (no leading zero) whose value <= bound."""
    alternatives = []
    for i, d in enumerate(bound):
        low = 1 if i == 0 else 0
        if int(d) > low:
            alternatives.append(f"{bound[:i]}[{low}-{int(d) - 1}][0-9]{{{len(bound) - i - 1}}}")
    return "|".join(alternatives + [bound])


# A whole run of tokens readLong accepts (what parse_long says yes to), blanks around them:
# matched possessively in one pass, so its end is the start of the first rejected token.
_LONG = (f"(?:0|-?+[1-9][0-9]{{0,17}}+|{_digits_at_most(str(INT64_MAX))}"
         f"|-(?:{_digits_at_most(str(-INT64_MIN))}))")
_LONGS = re.compile(rf"(?:[ \t\r\n]*+(?:{_LONG})(?![^ \t\r\n]))*+[ \t\r\n]*+".encode())


class Quit(Exception):
    """A checker's final word: result is OK, WA, PE, FAIL or POINTS (testlib's TResult)."""

    def __init__(self, result: str, message: str = ""):
        super().__init__(f"{result}: {message}")
        self.result = result
        self.message = message


def part(token: bytes) -> str:
    """How messages show a token (testlib shortens long ones the same way)."""
    text = token.replace(b"\0", b"~").decode("utf-8", "replace")
    return text if len(text) <= 64 else text[:30] + "..." + text[-31:]


class _Reader:
    """testlib's typed reads on top of ``seek_eof`` and ``read_word``."""

    role: str

    def seek_eof(self) -> bool:
        raise NotImplementedError

    def read_word(self) -> bytes:
        raise NotImplementedError

    def quit(self, result: str, message: str) -> Quit:
        # A problem found in the jury's files is the jury's, whatever the checker asked for.
        return Quit("FAIL" if self.role == "ans" else result, message)

    def take_rest(self) -> bytes:
        """Everything not read yet, as bytes (the reader is then at EOF)."""
        raise NotImplementedError

    def skip_rest(self, kind: str) -> int:
        """Read every remaining token as ``read_word`` (kind "word") or ``read_long`` ("long")
        would, one after another, and return how many there were; a token those reads reject
        raises the same Quit. Done over the bytes in C, so a flood of extra output costs no
        per-token Python work."""
        rest = self.take_rest()
        if longest_token_over(rest, MAX_TOKEN, TESTLIB_BLANKS):
            raise self.quit("PE", f"Length of token exceeds {MAX_TOKEN}")
        if kind == "long":
            valid = _LONGS.match(rest).end()
            if valid < len(rest):
                token = _TOKEN_RUN.match(rest, valid).group()
                raise self.quit("PE", f'Expected integer, but "{part(token)}" found')
        return count_tokens(rest, TESTLIB_BLANKS)

    def read_long(self, what: str = "integer") -> int:
        if self.seek_eof():
            raise self.quit("PE", "Unexpected end of file - int64 expected")
        token = self.read_word()
        value = parse_long(token)
        if value is None:
            raise self.quit("PE", f'Expected {what}, but "{part(token)}" found')
        return value

    def read_int(self) -> int:
        if self.seek_eof():
            raise self.quit("PE", "Unexpected end of file - int32 expected")
        token = self.read_word()
        value = parse_long(token)
        if value is None or not INT32_MIN <= value <= INT32_MAX:
            raise self.quit("PE", f'Expected int32, but "{part(token)}" found')
        return value

    def read_double(self) -> float:
        if self.seek_eof():
            raise self.quit("PE", "Unexpected end of file - double expected")
        token = self.read_word()
        value = parse_double(token)
        if value is None:
            raise self.quit("PE", f'Expected double, but "{part(token)}" found')
        return value


class TokenStream(_Reader):
    """The same reader for checkers that only ever read tokens: the file is split in C, a
    64 KiB window at a time (never more of it than the checker reads, so a flood of output
    after the answer's last token costs no Python objects); verdicts are the same
    (differential tests run both)."""

    _WINDOW = 1 << 16

    def __init__(self, data: bytes, role: str):
        if role == "ouf" and data.startswith(_BOM):
            data = data[len(_BOM):]
        self.data = data
        self.pos = 0  # bytes before pos are split into self.tokens already
        self.tokens: list[bytes] = []
        self.index = 0
        self.role = role

    def _fill(self) -> bool:
        """Split the next window into tokens; False at the end of the data."""
        data = self.data
        while self.index >= len(self.tokens):
            if self.pos >= len(data):
                return False
            end = self.pos + self._WINDOW
            if end < len(data):  # never cut a token at the window's edge
                end = _TOKEN_RUN.match(data, end).end()
            self.tokens, self.index = _TOKEN_FIND.findall(data, self.pos, end), 0
            self.pos = end
        return True

    def seek_eof(self) -> bool:
        return not self._fill()

    def read_word(self) -> bytes:
        if not self._fill():
            raise self.quit("PE", "Unexpected end of file - token expected")
        token = self.tokens[self.index]
        if len(token) > MAX_TOKEN:
            raise self.quit("PE", f"Length of token exceeds {MAX_TOKEN}")
        self.index += 1
        return token

    def take_rest(self) -> bytes:
        rest = b" ".join(self.tokens[self.index:]) + b" " + self.data[self.pos:]
        self.tokens, self.index, self.pos = [], 0, len(self.data)
        return rest


class Stream(_Reader):
    """One of the checker's files; ``role`` is "ouf" (the contestant's) or "ans" (the jury's)."""

    def __init__(self, data: bytes, role: str):
        if role == "ouf" and data.startswith(_BOM):
            data = data[len(_BOM):]
        self.data = data
        self.role = role
        self.pos = 0  # may pass len(data): testlib's reads at EOF still move

    # -- testlib's reading primitives ------------------------------------------------------
    def skip_blanks(self) -> None:
        if self.pos < len(self.data):
            self.pos = _BLANK_RUN.match(self.data, self.pos).end()

    def eof(self) -> bool:
        return self.pos >= len(self.data)

    def seek_eof(self) -> bool:
        self.skip_blanks()
        return self.eof()

    def read_word(self) -> bytes:
        self.skip_blanks()
        if self.eof():
            raise self.quit("PE", "Unexpected end of file - token expected")
        end = _TOKEN_RUN.match(self.data, self.pos).end()
        if end - self.pos > MAX_TOKEN:
            raise self.quit("PE", f"Length of token exceeds {MAX_TOKEN}")
        token = self.data[self.pos:end]
        self.pos = end
        return token

    def take_rest(self) -> bytes:
        rest = self.data[self.pos:]
        self.pos = max(self.pos, len(self.data))
        return rest

    def read_line(self) -> bytes:
        # Fast path: no CR in the line except one just before its LF.
        data, pos = self.data, self.pos
        if pos <= len(data):
            lf = data.find(b"\n", pos)
            end = lf if lf >= 0 else len(data)
            line = data[pos:end]
            if lf >= 0 and line.endswith(b"\r"):
                line = line[:-1]
            if b"\r" not in line and not (lf < 0 and data.endswith(b"\r", pos)):
                self.pos = end + 1  # past the LF, or one past EOF as testlib's character loop leaves it
                return line
        return self._read_line_slowly()

    def _read_line_slowly(self) -> bytes:
        """testlib's readLine where lone CRs occur, over the bytes in C (a character loop was
        0.15 s per MB of "\\r1", which a wrong program can print by the ten megabytes).

        testlib drops a CR and takes the byte after it verbatim (a CR too); an LF always ends
        the line. So a run of k CRs inside a line leaves k // 2 of them, and a run with an odd
        length that ends at EOF also leaves the EOF marker 0xFF."""
        data, pos = self.data, self.pos
        if pos >= len(data):
            self.pos = pos + 1
            return b""
        lf = data.find(b"\n", pos)
        segment = data[pos:lf if lf >= 0 else len(data)]
        line = _halve_cr_runs(segment)
        if lf >= 0:
            self.pos = lf + 1
            return line
        odd_tail = (len(segment) - len(segment.rstrip(b"\r"))) % 2 == 1
        self.pos = len(data) + 1 + odd_tail
        return line + b"\xff" if odd_tail else line


def _halve_cr_runs(segment: bytes) -> bytes:
    """Every maximal run of k CRs becomes k // 2 CRs (bytes replaces only, no loop: NUL is
    escaped first so that NUL + STX can stand for a kept CR)."""
    if b"\r" not in segment:
        return segment
    escaped = segment.replace(b"\0", b"\0\1").replace(b"\r\r", b"\0\2").replace(b"\r", b"")
    return escaped.replace(b"\0\2", b"\r").replace(b"\0\1", b"\0")


def parse_long(token: bytes) -> int | None:
    """testlib's stringToLongLong, or None where it reports a format error."""
    if not token or len(token) > 20:
        return None
    negative = len(token) > 1 and token[:1] == b"-"
    digits = token[1:] if negative else token
    if not digits.isdigit():
        return None
    if digits[:1] == b"0" and (len(digits) > 1 or negative):
        return None  # a leading zero, or "-0"
    value = int(token)
    return value if INT64_MIN <= value <= INT64_MAX else None


def parse_double(token: bytes) -> float | None:
    """testlib's stringToDouble (glibc sscanf underneath), or None on a format error."""
    if not _DOUBLE_CHARS.match(token):
        return None
    m = _DOUBLE.match(token)
    if m is None:
        return None
    mantissa, exponent = m.group(1), m.group(2)
    text = mantissa + (b"e" + exponent if exponent and exponent.lstrip(b"+-") else b"")
    return float(text)


def double_compare(expected: float, result: float, eps: float) -> bool:
    """testlib's doubleCompare: absolute OR relative error within eps (both widened by 1e-15)."""
    eps += 1e-15
    if expected != expected:
        return result != result
    if is_infinite(expected):
        return is_infinite(result) and (result > 0) == (expected > 0)
    if result != result or is_infinite(result):
        return False
    if abs(result - expected) <= eps:
        return True
    lo, hi = expected * (1.0 - eps), expected * (1.0 + eps)
    return min(lo, hi) <= result <= max(lo, hi)


def is_infinite(x: float) -> bool:
    # testlib calls anything beyond 1e300 infinite, not only IEEE infinity.
    return x > 1e300 or x < -1e300
