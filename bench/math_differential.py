"""Differential run: our math judge vs math-verify on every pair we have.

Sets: the in-house labelled set (tests/data/math_cases.jsonl, IN-SAMPLE: written while
the judge was built) and the metamorphic corpus from bench/math_corpus.py (truth by
construction, regenerated from a seed; not labelled by anyone). For each pair both judges
run on the same inputs (math-verify as documented: gold wrapped in ``$...$``, bare
predictions wrapped too, whole responses as given) and every disagreement is written out
with the truth, both verdicts and our reason, for triage.

    python bench/math_differential.py [--n 900] [--seed 1]
        -> bench/results/math_differential.md, bench/results/math_disagreements.jsonl
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from math_corpus import generate  # noqa: E402
from math_judge import run_math_verify, stats  # noqa: E402

CASES = ROOT / "tests" / "data" / "math_cases.jsonl"
RESULTS = ROOT / "bench" / "results"


def run_ours(cases: list[dict]) -> tuple[list, list[float], list[str], list[bool]]:
    """Our judge on every case; also which calls used a worker (the rest is the fast path:
    extraction, normalisation, our parser and exact rationals in the calling thread)."""
    import time

    from verifier.math import get_pool, judge
    from verifier.math.pool import WorkerPool

    used = []
    real_call = WorkerPool.call

    def counting_call(self, *args, **kw):
        if used:
            used[-1] = True
        return real_call(self, *args, **kw)

    WorkerPool.call = counting_call
    get_pool().warm_up()
    judge("x+1", "1+x")  # import paths warm
    got, times, notes = [], [], []
    try:
        for c in cases:
            used.append(False)
            t0 = time.perf_counter()
            v = judge(c["gold"], c["prediction"], timeout_s=5.0)
            times.append(time.perf_counter() - t0)
            got.append(None if v.error else v.equivalent)
            notes.append(f"{v.reason}{' ERROR ' + v.error if v.error else ''}")
    finally:
        WorkerPool.call = real_call
    return got, times, notes, used


def _row(name: str, cases: list[dict], got: list, times: list[float]) -> tuple[str, dict]:
    n = len(cases)
    right = sum(g == c["expected"] for g, c in zip(got, cases))
    fp = sum(g is True and not c["expected"] for g, c in zip(got, cases))
    fn = sum(g is not True and c["expected"] for g, c in zip(got, cases))
    s = stats(times)
    line = (f"| {name} | {right}/{n} = {100 * right / n:.1f}% | {fp} | {fn} | "
            f"{s['mean_ms']:.2f} | {s['p50_ms']:.2f} | {s['p99_ms']:.2f} |")
    return line, {"accuracy": right / n, "fp": fp, "fn": fn, **s}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=900, help="generated pairs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(RESULTS / "math_differential.md"))
    ap.add_argument("--judge-root", help="import `verifier` from this checkout instead (e.g. "
                    "/work/main, to measure the previous judge on the same inputs)")
    ap.add_argument("--skip-math-verify", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="time each pair this many times "
                    "and keep the fastest (less noise on a shared machine)")
    a = ap.parse_args()
    if a.judge_root:
        sys.path.insert(0, a.judge_root)
    sets = {
        "in-house (in-sample)": [dict(json.loads(x), group=json.loads(x)["category"])
                                 for x in CASES.read_text().splitlines() if x.strip()],
        f"generated (seed {a.seed})": [dict(c, group=c["family"]) for c in generate(a.n, a.seed)],
    }
    lines = ["# Math judge: differential run against math-verify\n",
             f"Timing: ours, fastest of {a.repeat} run(s) per pair; math-verify one run (it "
             "caches parsed LaTeX, so repeats would time its cache).\n",
             "Same inputs for both judges; timings are wall time per call on the shared "
             "2-core dev machine (other engineers' jobs running), ours with a warm 2-worker "
             "pool, math-verify in-process with its own defaults. FP: judged equivalent "
             "while not; FN: judged not equivalent (or no verdict) while equivalent.\n"]
    disagreements = []
    summary = {}
    for set_name, cases in sets.items():
        ours, ours_t, notes, used = run_ours(cases)
        for _ in range(a.repeat - 1):
            ours_t = [min(x, y) for x, y in zip(ours_t, run_ours(cases)[1])]
        if a.skip_math_verify:
            mv, mv_t = [None] * len(cases), [0.0] * len(cases)
        else:
            # one run only: math-verify caches parsed LaTeX, so a repeat would time its cache
            mv, mv_t, _ = run_math_verify(cases, wrap_bare=True)
        lines += [f"## {set_name}: {len(cases)} pairs ({sum(c['expected'] for c in cases)} "
                  "equivalent)\n", "| judge | accuracy | FP | FN | mean ms | p50 ms | p99 ms |",
                  "|---|---|---|---|---|---|---|"]
        judges = [("ours", ours, ours_t)] + ([] if a.skip_math_verify else [("math-verify", mv, mv_t)])
        for name, got, t in judges:
            line, fig = _row(name, cases, got, t)
            lines.append(line)
            summary[(set_name, name)] = fig
            print(set_name, line)
        fast = [t for t, u in zip(ours_t, used) if not u]
        slow = [t for t, u in zip(ours_t, used) if u]
        for label, ts in (("fast path (no worker)", fast), ("worker (sympy / math-verify)", slow)):
            if ts:
                st = stats(ts)
                lines.append(f"| ours, {label}: {len(ts)} pairs | | | | {st['mean_ms']:.2f} | "
                             f"{st['p50_ms']:.2f} | {st['p99_ms']:.2f} |")
        groups = sorted({c["group"] for c in cases})
        lines += ["", "| family/category | n | ours | math-verify |", "|---|---|---|---|"]
        for g in groups:
            idx = [i for i, c in enumerate(cases) if c["group"] == g]
            acc = [100 * sum(v[i] == cases[i]["expected"] for i in idx) / len(idx) for v in (ours, mv)]
            mv_cell = "-" if a.skip_math_verify else f"{acc[1]:.0f}%"
            lines.append(f"| {g} | {len(idx)} | {acc[0]:.0f}% | {mv_cell} |")
        lines.append("")
        for i, c in enumerate(cases):
            if not a.skip_math_verify and bool(ours[i]) != bool(mv[i]):
                disagreements.append({
                    "set": set_name, "group": c["group"], "gold": c["gold"],
                    "prediction": c["prediction"], "expected": c["expected"],
                    "ours": ours[i], "math_verify": mv[i], "our_reason": notes[i][:160],
                    "right": "ours" if bool(ours[i]) == c["expected"] else "math-verify"})
    count = collections.Counter((d["set"], d["right"]) for d in disagreements)
    lines += ["## Disagreements\n", "| set | ours right | math-verify right |", "|---|---|---|"]
    for set_name in sets:
        lines.append(f"| {set_name} | {count[(set_name, 'ours')]} | "
                     f"{count[(set_name, 'math-verify')]} |")
    lines += ["", "Every disagreement is in `bench/results/math_disagreements.jsonl`; their "
              "triage (classes and decisions) is in `bench/results/math_triage.md`.\n",
              "| set | group | gold | prediction | truth | ours | m-v | our reason |",
              "|---|---|---|---|---|---|---|---|"]

    def cell(s) -> str:
        return "`" + str(s).replace("|", "\\|").replace("\n", " ")[-90:] + "`"

    for d in disagreements:
        lines.append(f"| {d['set'].split()[0]} | {d['group']} | {cell(d['gold'])} | "
                     f"{cell(d['prediction'])} | {d['expected']} | {d['ours']} | "
                     f"{d['math_verify']} | {d['our_reason'][:60].replace('|', '/')} |")
    RESULTS.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n")
    out = Path(a.out)
    name = "math_disagreements.jsonl" if out.name == "math_differential.md" else out.stem + ".jsonl"
    if not a.skip_math_verify:
        (out.parent / name).write_text(
            "".join(json.dumps(d) + "\n" for d in disagreements))
    print(f"{len(disagreements)} disagreements; wrote {a.out}")


if __name__ == "__main__":
    main()
