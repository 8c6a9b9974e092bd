"""Table and plot of the staleness-robustness runs (bench/rl_staleness_robustness.sh).

    python bench/rl_robustness_table.py --results bench/results/rl_robustness --runs runs/robustness

Reads ``RESULTS/sft.json`` and ``RESULTS/<preset>_s<staleness>.json`` (``rl-loop eval --out``
files, all with the same seeds) and each run's ``metrics.jsonl``; writes ``table.md`` (final
train reward = mean ``reward/mean`` over the last 10 steps; held-out pass@1 with its bootstrap
95 % CI; the paired difference to the SFT model with its CI and p-values) and
``robustness.png`` (pass@1 with CI against staleness, one line per preset).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rl_loop.eval_stats import paired_comparison, summarise  # noqa: E402
from rl_loop.metrics import read_metrics  # noqa: E402

NAME = re.compile(r"^(?P<preset>[a-z_0-9]+)_s(?P<s>\d+)\.json$")


def final_reward(run: Path, last: int = 10) -> tuple[float | None, int]:
    try:
        rows = [r for r in read_metrics(run) if "reward/mean" in r]
    except FileNotFoundError:
        return None, 0
    if not rows:
        return None, 0
    tail = rows[-last:]
    return sum(r["reward/mean"] for r in tail) / len(tail), int(rows[-1]["step"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    res, runs = Path(args.results), Path(args.runs)
    out = Path(args.out or res)
    sft = json.loads((res / "sft.json").read_text())
    sft_sum = summarise({p: r for p, r in sft["rewards"].items() if r})
    lines = ["| preset | staleness | steps | final train reward | held-out pass@1 [95% CI] | "
             "diff vs SFT [95% CI] | p sign | p bootstrap |", "|---|---|---|---|---|---|---|---|",
             f"| SFT | - | - | - | {sft_sum['pass@1']['mean']:.3f} [{sft_sum['pass@1']['ci95'][0]:.3f}, "
             f"{sft_sum['pass@1']['ci95'][1]:.3f}] | - | - | - |"]
    points: dict[str, list[tuple[int, float, float, float]]] = {}
    for f in sorted(res.glob("*_s*.json")):
        m = NAME.match(f.name)
        if not m:
            continue
        preset, s = m["preset"], int(m["s"])
        ev = json.loads(f.read_text())
        summ = summarise({p: r for p, r in ev["rewards"].items() if r})
        cmp = paired_comparison(sft["rewards"], ev["rewards"])
        reward, steps = final_reward(runs / f.stem)
        p1 = summ["pass@1"]
        lines.append(f"| {preset} | {s} | {steps} | {'-' if reward is None else f'{reward:.3f}'} | "
                     f"{p1['mean']:.3f} [{p1['ci95'][0]:.3f}, {p1['ci95'][1]:.3f}] | {cmp['diff_mean']:+.3f} "
                     f"[{cmp['diff_ci95'][0]:+.3f}, {cmp['diff_ci95'][1]:+.3f}] | {cmp['p_sign']:.3g} | "
                     f"{cmp['p_bootstrap']:.3g} |")
        points.setdefault(preset, []).append((s, p1["mean"], p1["ci95"][0], p1["ci95"][1], reward))
    out.mkdir(parents=True, exist_ok=True)
    (out / "table.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return 0
    fig, (ax, ax_r) = plt.subplots(1, 2, figsize=(10, 4))
    for preset, pts in sorted(points.items()):
        pts.sort()
        xs = [p[0] for p in pts]
        ys = [p[1] for p in pts]
        err = [[p[1] - p[2] for p in pts], [p[3] - p[1] for p in pts]]
        ax.errorbar(xs, ys, yerr=err, marker="o", capsize=3, label=preset)
        rs = [(p[0], p[4]) for p in pts if p[4] is not None]
        ax_r.plot([x for x, _ in rs], [r for _, r in rs], marker="o", label=preset)
    ax.axhline(sft_sum["pass@1"]["mean"], color="grey", linestyle="--", label="SFT")
    ax.set_xlabel("max_staleness")
    ax.set_ylabel("held-out pass@1 (95% CI)")
    ax_r.set_xlabel("max_staleness")
    ax_r.set_ylabel("final train reward (mean of last 10 steps)")
    for a in (ax, ax_r):
        a.legend(fontsize=8)
        a.grid(True, alpha=0.3)
        a.set_xticks(sorted({p[0] for pts in points.values() for p in pts}))
    fig.tight_layout()
    fig.savefig(out / "robustness.png", dpi=100)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
