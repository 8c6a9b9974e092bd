"""CPU time a built-in checker spends on a flood of output: a wrong program printing up to
the output budget (16x the answer + 1 MiB, the most the service lets a checker read) after
or instead of the answer, compared with the same checker on the correct output.

    PYTHONPATH=. .venv/bin/python bench/checker_flood.py [--tokens 300000]

The answer is ``--tokens`` integers of up to 12 digits (300,000 -> about 3.9 MB, budget about
63 MB, like the range-sum-queries sample's largest test). CPU ms, best of 3.
"""

from __future__ import annotations

import argparse
import random
import time

from problem_store.manifest import BuiltinChecker
from verifier.checkers import builtin, stock

NAMES = ["exact", "lines", "tokens", "integers", "unordered", "floats"] + sorted(stock.STOCK)


def outputs(answer: bytes) -> dict[str, bytes]:
    budget = 16 * len(answer) + (1 << 20)
    rest = budget - len(answer)
    return {"correct": answer,
            "ones": b"1\n" * (budget // 2),
            "answer+ones": answer + b"1\n" * (rest // 2),
            "answer+int64s": answer + b"9223372036854775807 " * (rest // 20),
            "lone CRs": b"\r1" * (budget // 2)}


def cpu_ms(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best * 1000


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=300_000)
    args = ap.parse_args()
    rnd = random.Random(1)
    answer = b"\n".join(str(rnd.randrange(10 ** 12)).encode() for _ in range(args.tokens)) + b"\n"
    outs = outputs(answer)
    print(f"answer {len(answer) / 1e6:.1f} MB, {args.tokens} tokens; flood outputs "
          f"{len(outs['ones']) / 1e6:.0f} MB; CPU ms, best of 3")
    print("| checker | " + " | ".join(outs) + " |")
    print("|---|" + "---:|" * len(outs))
    for name in NAMES:
        row = []
        for out in outs.values():
            if name in stock.STOCK:
                row.append(cpu_ms(lambda: stock.judge(name, out, answer)))
            else:
                spec = BuiltinChecker(name=name)
                row.append(cpu_ms(lambda: builtin.check_builtin(spec, out, answer)))
        print(f"| {name} | " + " | ".join(f"{ms:,.0f}" for ms in row) + " |", flush=True)


if __name__ == "__main__":
    main()
