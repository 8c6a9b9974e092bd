"""Shared driver for the per-problem ``gen.py`` generators.

A generator module defines ``cases(rng)`` (yields input texts, small edge cases first)
and ``solve(text) -> str`` (the reference logic in Python, or a direct answer
computation), then calls :func:`main`. The RNG is seeded from the problem id, so a
generator writes the same bytes on every machine and every run.
"""

from __future__ import annotations

import argparse
import random
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path

CasesFn = Callable[[random.Random], Iterable[str]]
SolveFn = Callable[[str], str]


def seed_for(problem_id: str) -> int:
    """Stable seed: crc32 of the id (Python's hash() is salted per process)."""
    return zlib.crc32(problem_id.encode())


def write_tests(out_dir: Path, problem_id: str, cases: CasesFn, solve: SolveFn) -> int:
    """Write NN.in / NN.ans into ``out_dir`` (stale .in/.ans removed); returns the count."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in list(out_dir.glob("*.in")) + list(out_dir.glob("*.ans")):
        old.unlink()
    rng = random.Random(seed_for(problem_id))
    count = 0
    for count, text in enumerate(cases(rng), 1):
        if not text.endswith("\n"):
            text += "\n"
        answer = solve(text)
        if not answer.endswith("\n"):
            answer += "\n"
        name = f"{count:02d}"
        (out_dir / f"{name}.in").write_bytes(text.encode())
        (out_dir / f"{name}.ans").write_bytes(answer.encode())
    if count == 0:
        raise ValueError(f"{problem_id}: generator produced no tests")
    return count


def main(gen_file: str, cases: CasesFn, solve: SolveFn) -> None:
    """Command line of every gen.py: ``python gen.py [--out TESTS_DIR]``."""
    problem_dir = Path(gen_file).resolve().parent
    parser = argparse.ArgumentParser(description=f"generate tests for {problem_dir.name}")
    parser.add_argument("--out", type=Path, default=problem_dir / "tests", help="tests directory to write")
    args = parser.parse_args()
    n = write_tests(args.out, problem_dir.name, cases, solve)
    print(f"{problem_dir.name}: {n} tests -> {args.out}")


def ints_line(values: Iterable[int]) -> str:
    """Space-separated integers plus a newline."""
    return " ".join(map(str, values)) + "\n"
