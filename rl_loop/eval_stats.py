"""Evaluation statistics: unbiased pass@k, bootstrap confidence intervals, paired comparisons.

Why these: with a handful of samples per problem and a few dozen problems, a pass@1 of
0.077 vs 0.019 can be noise. The unit of replication is the *problem* (samples of one
problem are correlated), so intervals resample problems, and checkpoints are compared
*paired*: the same problems with the same sampling seeds, so the per-problem difference
removes problem difficulty from the noise.

* ``pass_at_k(n, c, k)``: Chen et al. 2021 (Codex), eq. 1: 1 - C(n-c, k) / C(n, k),
  evaluated as a product to stay exact for large n.
* ``bootstrap_ci``: percentile bootstrap of the mean over problems (seeded).
* ``paired_comparison``: mean per-problem difference B - A, its paired bootstrap 95 %
  interval, a two-sided paired bootstrap p-value (how often the recentred resampled mean
  difference is at least as extreme as the observed one) and the exact two-sided sign-test
  p-value over problems whose pass@1 changed.
"""
from __future__ import annotations

import math
import random
from typing import Mapping, Sequence


def pass_at_k(n: int, c: int, k: int) -> float:
    """Probability that at least one of k samples drawn without replacement from n (c correct) passes."""
    if not 0 <= c <= n or k < 1 or k > n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    if n - c < k:
        return 1.0
    prod = 1.0
    for i in range(n - c + 1, n + 1):
        prod *= 1.0 - k / i
    return 1.0 - prod


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def bootstrap_ci(values: Sequence[float], n_boot: int = 10_000, seed: int = 0,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (one value per problem)."""
    if not values:
        raise ValueError("bootstrap of an empty sample")
    rng = random.Random(f"rl_loop-bootstrap:{seed}")
    n = len(values)
    means = sorted(_mean([values[rng.randrange(n)] for _ in range(n)]) for _ in range(n_boot))
    lo = means[int(math.floor((1 - level) / 2 * n_boot))]
    hi = means[min(n_boot - 1, int(math.ceil((1 + level) / 2 * n_boot)) - 1)]
    return lo, hi


def sign_test_p(wins: int, losses: int) -> float:
    """Exact two-sided binomial sign test (ties excluded by the caller)."""
    n = wins + losses
    if n == 0:
        return 1.0
    k = min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def summarise(per_problem: Mapping[str, Sequence[float]], ks: Sequence[int] = (1,), n_boot: int = 10_000,
              seed: int = 0) -> dict:
    """pass@1 (mean reward) and pass@k (correct = reward >= 1) with 95 % CIs over problems, plus a table."""
    rows = []
    for pid in sorted(per_problem):
        rewards = list(per_problem[pid])
        if not rewards:
            continue
        n, c = len(rewards), sum(r >= 1.0 for r in rewards)
        row = {"problem_id": pid, "n": n, "correct": c, "mean_reward": _mean(rewards)}
        for k in ks:
            if k <= n:
                row[f"pass@{k}"] = pass_at_k(n, c, k)
        rows.append(row)
    out: dict = {"problems": len(rows), "table": rows}
    if not rows:
        return out
    metrics = {"pass@1": [r["mean_reward"] for r in rows]}
    for k in ks:
        if k > 1 and all(f"pass@{k}" in r for r in rows):
            metrics[f"pass@{k}"] = [r[f"pass@{k}"] for r in rows]
    for name, vals in metrics.items():
        lo, hi = bootstrap_ci(vals, n_boot, seed)
        out[name] = {"mean": _mean(vals), "ci95": [lo, hi]}
    return out


def paired_comparison(a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]], n_boot: int = 10_000,
                      seed: int = 0) -> dict:
    """B vs A on the problems both scored: per-problem pass@1 differences, paired."""
    common = sorted(p for p in a if p in b and a[p] and b[p])
    if not common:
        raise ValueError("the two evaluations share no scored problem")
    diffs = [_mean(b[p]) - _mean(a[p]) for p in common]
    observed = _mean(diffs)
    lo, hi = bootstrap_ci(diffs, n_boot, seed)
    rng = random.Random(f"rl_loop-paired:{seed}")
    n = len(diffs)
    centred = [d - observed for d in diffs]  # the null: no mean difference
    extreme = sum(abs(_mean([centred[rng.randrange(n)] for _ in range(n)])) >= abs(observed) - 1e-15
                  for _ in range(n_boot))
    wins, losses = sum(d > 0 for d in diffs), sum(d < 0 for d in diffs)
    return {
        "problems": n, "pass@1_a": _mean([_mean(a[p]) for p in common]), "pass@1_b": _mean([_mean(b[p]) for p in common]),
        "diff_mean": observed, "diff_ci95": [lo, hi], "p_bootstrap": (extreme + 1) / (n_boot + 1),
        "wins": wins, "losses": losses, "ties": n - wins - losses, "p_sign": sign_test_p(wins, losses),
        "per_problem": [{"problem_id": p, "a": _mean(a[p]), "b": _mean(b[p]), "diff": d} for p, d in zip(common, diffs)],
    }


def format_table(summary: dict, ks: Sequence[int] = (1,)) -> str:
    """Plain-text per-problem table plus the summary line(s)."""
    cols = ["problem_id", "n", "correct", "mean_reward"] + [f"pass@{k}" for k in ks if k > 1]
    width = max([len("problem_id")] + [len(r["problem_id"]) for r in summary["table"]])
    lines = [f"{'problem_id':<{width}}  " + "  ".join(f"{c:>11}" for c in cols[1:])]
    for r in summary["table"]:
        cells = [f"{r.get(c, float('nan')):>11.3f}" if isinstance(r.get(c), float) else f"{r.get(c, '-'):>11}"
                 for c in cols[1:]]
        lines.append(f"{r['problem_id']:<{width}}  " + "  ".join(cells))
    for name in [c for c in summary if c.startswith("pass@")]:
        s = summary[name]
        lines.append(f"{name} = {s['mean']:.4f}  (95% CI {s['ci95'][0]:.4f} .. {s['ci95'][1]:.4f}, "
                     f"{summary['problems']} problems)")
    return "\n".join(lines)
