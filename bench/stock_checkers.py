"""CPU time of one check: testlib-exact built-ins vs our own built-ins vs the compiled testlib
checker (what a package's shipped source costs without a stand-in: one process per test,
sandbox overhead not included).

    PYTHONPATH=. .venv/bin/python bench/stock_checkers.py [--sizes 1000,100000]

Needs g++ and the real testlib (fetched as the differential tests do).
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import tempfile
import time
from pathlib import Path

from problem_store.checker_build import compile_checker
from problem_store.manifest import BuiltinChecker
from tests.verifier import testlib_reference
from verifier.checkers.builtin import check_builtin

PAIRS = [("ncmp", "integers", "ints"), ("wcmp", "tokens", "ints"), ("lcmp", "lines", "lines"),
         ("fcmp", "lines", "lines"), ("rcmp6", "floats", "doubles")]


def corpus(kind: str, n: int) -> bytes:
    rng = random.Random(n)
    if kind == "ints":
        return (" ".join(str(rng.randint(-10**9, 10**9)) for _ in range(n)) + "\n").encode()
    if kind == "doubles":
        return (" ".join(f"{rng.random():.9f}" for _ in range(n)) + "\n").encode()
    return b"".join(f"line {i} with some words\n".encode() for i in range(max(1, n // 5)))


def cpu_ms(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best * 1000


def child_cpu_ms(cmd: list[str], cwd: Path, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, cwd=cwd, capture_output=True, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1000,100000")
    args = ap.parse_args()
    ref = testlib_reference.ensure()
    header = (ref / "testlib.h").read_bytes()
    print("| checker | tokens | bytes | stock built-in ms | own built-in ms | compiled testlib ms (process) |")
    print("|---|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        for stock, own, kind in PAIRS:
            src = ref / f"{stock}.cpp"
            binary = None
            if src.is_file():
                binary = d / stock
                binary.write_bytes(compile_checker(src.read_bytes(), headers={"testlib.h": header}))
                binary.chmod(0o755)
            for n in map(int, args.sizes.split(",")):
                data = corpus(kind, n)
                (d / "in").write_bytes(b"")
                (d / "out").write_bytes(data)
                (d / "ans").write_bytes(data)
                a = cpu_ms(lambda: check_builtin(BuiltinChecker(name=stock), data, data))
                b = cpu_ms(lambda: check_builtin(BuiltinChecker(name=own), data, data))
                c = f"{child_cpu_ms([str(binary), 'in', 'out', 'ans'], d):.1f}" if binary else "n/a"
                print(f"| {stock} (vs {own}) | {n} | {len(data)} | {a:.1f} | {b:.1f} | {c} |")


if __name__ == "__main__":
    main()
