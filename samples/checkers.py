"""Checker semantics used by ``samples.validate`` to judge the references bare.

These mirror the built-in comparators named in ``problem_store.manifest.BuiltinChecker``
(testlib's stock wcmp / ncmp / rcmp / yesno...). This is trusted team tooling, kept
separate from the verifier's own comparators on purpose: the golden suite later checks
that the verifier agrees with the verdicts the team expected.
"""

from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

INT_RE = re.compile(r"^[+-]?\d+$")

Verdict = tuple[str, str]  # ("OK" | "WA" | "PE" | "FAIL", message)


def _tokens(data: bytes, case_sensitive: bool = True) -> list[str]:
    toks = data.decode("utf-8", "replace").split()
    return toks if case_sensitive else [t.lower() for t in toks]


def _lines(data: bytes) -> list[str]:
    lines = [ln.rstrip() for ln in data.decode("utf-8", "replace").split("\n")]
    while lines and lines[-1] == "":
        lines.pop()
    return lines


def _float_close(got: float, want: float, abs_tol: float, rel_tol: float) -> bool:
    # NaN is never equal (as in testlib's rcmp): a NaN answer must not pass by accident.
    if math.isnan(got) or math.isnan(want):
        return False
    if math.isinf(got) or math.isinf(want):
        return got == want
    return abs(got - want) <= abs_tol or abs(got - want) <= rel_tol * abs(want)


def builtin(name: str, out: bytes, ans: bytes, abs_tol: float = 1e-6, rel_tol: float = 1e-6,
            case_sensitive: bool = True) -> Verdict:
    """Judge ``out`` against ``ans`` with a built-in comparator's semantics."""
    if name == "exact":
        return ("OK", "") if out == ans else ("WA", "bytes differ")
    if name == "lines":
        a, b = _lines(out), _lines(ans)
        return ("OK", "") if a == b else ("WA", f"lines differ ({len(a)} vs {len(b)} lines)")
    if name in ("tokens", "unordered"):
        a, b = _tokens(out, case_sensitive), _tokens(ans, case_sensitive)
        if name == "unordered":
            a, b = sorted(a), sorted(b)
        if a == b:
            return ("OK", "")
        return ("WA", f"tokens differ ({len(a)} vs {len(b)} tokens)")
    if name == "integers":
        a, b = _tokens(out), _tokens(ans)
        for i, t in enumerate(a):
            if not INT_RE.match(t):
                return ("PE", f"token {i + 1} is not an integer: {t[:30]!r}")
        if [int(x) for x in a] == [int(x) for x in b]:
            return ("OK", "")
        return ("WA", "integers differ")
    if name == "floats":
        a, b = _tokens(out), _tokens(ans)
        if len(a) != len(b):
            return ("WA", f"expected {len(b)} numbers, got {len(a)}")
        for i, (x, y) in enumerate(zip(a, b)):
            try:
                got = float(x)
            except ValueError:
                return ("PE", f"token {i + 1} is not a number: {x[:30]!r}")
            if not _float_close(got, float(y), abs_tol, rel_tol):
                return ("WA", f"number {i + 1}: expected {y}, got {x}")
        return ("OK", "")
    if name == "yesno":
        a, b = _tokens(out, False), _tokens(ans, False)
        if len(a) != 1 or a[0] not in ("yes", "no"):
            return ("PE", "expected one token YES or NO")
        return ("OK", "") if a == b else ("WA", f"expected {b}, got {a}")
    raise ValueError(f"unknown builtin checker {name!r}")


CUSTOM_EXIT = {0: "OK", 1: "WA", 2: "PE", 3: "FAIL"}


def custom(binary: Path, inp: Path, out: bytes, ans: Path, scratch: Path) -> Verdict:
    """Run a testlib-contract checker binary: ``checker input output answer``."""
    out_path = scratch / "contestant.out"
    out_path.write_bytes(out)
    proc = subprocess.run([str(binary), str(inp), str(out_path), str(ans)],
                          capture_output=True, timeout=60)
    verdict = CUSTOM_EXIT.get(proc.returncode, "FAIL")
    return verdict, proc.stderr.decode("utf-8", "replace").strip()[:200]
