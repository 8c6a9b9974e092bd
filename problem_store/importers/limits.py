"""Time and memory limits as published, converted to the manifest's units without surprises.

Memory. The manifest's ``memory_mb`` is in MiB (what the sandboxes enforce). Judges and
datasets state limits as their problem setters wrote them, "256 megabytes", and store
that label in bytes with one of two multipliers: Polygon and Codeforces 2^20
(268,435,456), CodeContests 10^6 (256,000,000). Both mean the setter's 256 MB, so both
become ``memory_mb: 256``:

- a whole number of MiB -> that many MiB;
- else a whole number of decimal MB (10^6 bytes) -> that number, read as MiB (at most
  4.9% more than the bytes stated, never less);
- else the bytes rounded up to whole MiB (never below the bytes stated).

Time. Seconds plus nanoseconds (CodeContests) or text such as "2 seconds", "1.5 s",
"1000 ms" (TACO), rounded to the microsecond so 1 s + 5e8 ns is exactly 1.5.
"""

from __future__ import annotations

import math
import re

MIB = 1 << 20
MB = 10**6


def memory_mb_from_bytes(n_bytes: float) -> int:
    """The setter's MB for a limit given in bytes (see the module docstring)."""
    n = int(n_bytes)
    if n != n_bytes or n <= 0:
        return max(1, math.ceil(n_bytes / MIB))
    if n % MIB == 0:
        return n // MIB
    if n % MB == 0:
        return n // MB
    return math.ceil(n / MIB)


_UNITS_BYTES = {
    "b": 1, "byte": 1, "bytes": 1,
    "k": 1024, "kb": 1024, "kib": 1024, "kilobyte": 1024, "kilobytes": 1024,
    "m": MIB, "mb": MIB, "mib": MIB, "megabyte": MIB, "megabytes": MIB,
    "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30, "gigabyte": 1 << 30, "gigabytes": 1 << 30,
}
_AMOUNT = re.compile(r"(\d+(?:\.\d+)?)\s*([A-Za-z]*)")  # the first "<number> <unit>"


def memory_mb_from_text(text: object) -> int | None:
    """"256 megabytes" -> 256; "262144 kilobytes" -> 256; no unit means megabytes. None: unreadable."""
    m = _AMOUNT.search(str(text or ""))
    if not m or float(m.group(1)) <= 0:
        return None
    unit = _UNITS_BYTES.get(m.group(2).lower() or "mb")
    if unit is None:
        return None
    value = float(m.group(1))
    if unit == MIB:  # the setter's own unit: keep the number (ceil a fraction, never below)
        return math.ceil(value)
    return memory_mb_from_bytes(value * unit)


_UNITS_SECONDS = {"": 1.0, "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
                  "ms": 1e-3, "millisecond": 1e-3, "milliseconds": 1e-3}


def seconds(value: float) -> float:
    return round(value, 6)


def time_limit_from_text(text: object) -> float | None:
    """"2 seconds" -> 2.0, "1000 ms" -> 1.0; None: unreadable or not positive."""
    m = _AMOUNT.search(str(text or ""))
    if not m:
        return None
    scale = _UNITS_SECONDS.get(m.group(2).lower())
    value = float(m.group(1)) * scale if scale is not None else 0.0
    return seconds(value) if value > 0 else None
