"""``rl-loop plot RUN_DIR``: PNG training curves from ``RUN_DIR/metrics.jsonl``.

One PNG per panel (written only when the run logged any of its metrics) and an
``overview.png`` grid of all of them, in ``RUN_DIR/plots`` by default. Panels follow the
key conventions in metrics.py; the step-time breakdown takes every ``time/*_s`` key, so
a new phase shows up without touching this file.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Sequence

from rl_loop.metrics import read_metrics, series

# (file stem, title, y label, metric keys); a trailing '*' matches a prefix.
PANELS: list[tuple[str, str, str, list[str]]] = [
    ("reward", "Reward", "reward", ["reward/mean", "reward/pass_rate", "reward/heldout_pass_rate"]),
    ("heldout", "Held-out pass@1 (95% CI)", "pass@1",
     ["eval/pass_at_1", "eval/pass_at_1_ci_low", "eval/pass_at_1_ci_high"]),
    ("filtering", "Filtered fraction", "fraction", ["filter/dropped_fraction", "staleness/discarded_fraction"]),
    ("loss", "Loss", "loss", ["loss/loss", "loss/policy_loss", "loss/kl_loss"]),
    ("grad_norm", "Gradient norm (before clipping)", "norm", ["loss/grad_norm"]),
    ("logprob_gap", "Trainer vs generator log-prob gap", "|log pi - log mu|",
     ["loss/logprob_gap_mean", "loss/logprob_gap_p95", "loss/recompute_gap_mean", "loss/recompute_gap_p95"]),
    ("importance_weight", "Importance weight", "weight",
     ["loss/importance_weight_mean", "loss/importance_weight_max", "loss/importance_weight_min"]),
    ("clip_fraction", "Clipped / truncated tokens", "fraction", ["loss/clip_fraction", "loss/truncated_fraction"]),
    ("entropy", "Entropy", "nats/token", ["loss/entropy_mean"]),
    ("kl", "KL to reference (k3)", "nats/token", ["loss/kl_mean"]),
    ("staleness", "Staleness of accepted rollouts", "versions", ["staleness/mean", "staleness/max"]),
    ("tokens_per_s", "Throughput", "tokens/s", ["perf/*"]),
    ("weight_sync", "Weight sync", "s", ["time/weight_sync_s"]),
    ("step_time", "Step time breakdown", "s", ["time/*"]),
]


def _keys(records: list[dict[str, Any]], patterns: list[str]) -> list[str]:
    present: dict[str, None] = {}
    for r in records:
        for k in r:
            present.setdefault(k, None)
    out = []
    for p in patterns:
        if p.endswith("*"):
            out.extend(sorted(k for k in present if k.startswith(p[:-1]) and k.endswith("_s")))
        elif p in present:
            out.append(p)
    return list(dict.fromkeys(out))


def _draw(ax: Any, records: list[dict[str, Any]], title: str, ylabel: str, keys: list[str]) -> bool:
    drawn = False
    for key in keys:
        steps, values = series(records, key)
        if steps:
            ax.plot(steps, values, label=key, marker="." if len(steps) < 50 else None)
            drawn = True
    ax.set_title(title)
    ax.set_xlabel("step")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if drawn:
        ax.legend(fontsize=7)
    return drawn


def plot_run(run_dir: str | Path, out_dir: str | Path | None = None) -> list[Path]:
    """Write the PNGs; returns their paths (overview last)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    records = read_metrics(run_dir)
    out = Path(out_dir) if out_dir is not None else Path(run_dir) / "plots"
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    panels = [(stem, title, ylabel, _keys(records, pats)) for stem, title, ylabel, pats in PANELS]
    panels = [p for p in panels if p[3]]
    for stem, title, ylabel, keys in panels:
        fig, ax = plt.subplots(figsize=(6, 4))
        if _draw(ax, records, title, ylabel, keys):
            fig.tight_layout()
            path = out / f"{stem}.png"
            fig.savefig(path, dpi=100)
            written.append(path)
        plt.close(fig)
    if panels:
        cols = 3
        rows = (len(panels) + cols - 1) // cols
        fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.5 * rows), squeeze=False)
        for ax, (stem, title, ylabel, keys) in zip(axes.flat, panels):
            _draw(ax, records, title, ylabel, keys)
        for ax in list(axes.flat)[len(panels):]:
            ax.axis("off")
        fig.tight_layout()
        path = out / "overview.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="rl-loop plot", description="Plot an RL run's metrics.jsonl as PNG curves.")
    parser.add_argument("run_dir", help="Run directory holding metrics.jsonl")
    parser.add_argument("--out", default=None, help="Output directory (default RUN_DIR/plots)")
    args = parser.parse_args(argv)
    try:
        paths = plot_run(args.run_dir, args.out)
    except FileNotFoundError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if not paths:
        print(f"no known metrics in {args.run_dir}/metrics.jsonl; nothing plotted", file=sys.stderr)
        return 1
    for p in paths:
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
