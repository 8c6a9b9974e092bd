"""Same RL workload with max_staleness=0 (synchronous on-policy) and max_staleness=1 (async).

    python bench/rl_async_vs_sync.py [--store URI] [--steps 4] [--config rl_loop/configs/tiny_cpu.yaml]

Out of the box (no --store, no --model) it builds what the tiny config needs locally, as the
RL tests do: a store with the two sample problems and the tiny fine-tuned model under
models/. It never reaches the network (HF_HUB_OFFLINE=1).

Runs `rl-loop train` twice (fresh run dirs, no resume), reads metrics.jsonl, and prints
the mean step time (first step excluded: it includes the first generation from cold),
the time the trainer waited for data, and the sync/async ratio. Generation and training
overlap only in the async run, so the ratio is what overlap buys on this machine.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(config: str, store: str, staleness: int, steps: int, model: str | None, extra: list[str]) -> dict:
    sys.path.insert(0, str(REPO))
    from rl_loop.metrics import read_metrics

    d = Path(tempfile.mkdtemp(prefix=f"rl_bench_s{staleness}_"))
    cmd = [sys.executable, "-m", "rl_loop.cli", "train", "--config", config, f"data.store_uri={store}",
           f"logging.run_dir={d}", f"checkpoint.dir={d}/ckpt", f"staleness.max_staleness={staleness}",
           f"trainer.total_steps={steps}", "checkpoint.every_steps=1000", *extra]
    if model:
        cmd.append(f"model.path={model}")
    env = dict(os.environ, PYTHONPATH=str(REPO), RL_LOOP_NO_TQDM="1", HF_HUB_OFFLINE="1",
               TRANSFORMERS_OFFLINE="1")
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    print(f"max_staleness={staleness}: {' '.join(x for x in cmd if 'cpu_cores' in x)}", file=sys.stderr)
    wall = time.perf_counter() - t0
    if p.returncode:
        raise SystemExit(p.stderr[-3000:])
    rows = read_metrics(d)[1:] or read_metrics(d)
    return {
        "max_staleness": staleness, "wall_s": wall, "steps": len(rows) + 1,
        "step_s": statistics.mean(r["time/step_s"] for r in rows),
        "wait_for_data_s": statistics.mean(r["time/wait_for_data_s"] for r in rows),
        "train_s": statistics.mean(r["time/train_s"] for r in rows),
        "sync_s": statistics.mean(r["time/weight_sync_s"] for r in rows),
        "gen_s": statistics.mean(r["time/generation_s"] for r in rows),
        "staleness_mean": rows[-1]["staleness/mean"], "run_dir": str(d),
    }


def core_overrides(spec: str | None) -> tuple[list[str], list[str]]:
    """Config overrides pinning the sync run (shared cores) and the async run (disjoint cores)."""
    if spec == "none":
        return [], []
    if spec is None:
        mine = sorted(os.sched_getaffinity(0))
        if len(mine) < 2:
            return [], []
        half = len(mine) // 2
        gen, train = mine[:half], mine[half:]
    else:
        g, t = spec.split("|")
        gen, train = [int(x) for x in g.split(",")], [int(x) for x in t.split(",")]
    both = sorted(set(gen) | set(train))
    return ([f"generation.cpu_cores={both}", f"trainer.cpu_cores={both}"],
            [f"generation.cpu_cores={gen}", f"trainer.cpu_cores={train}"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", default=None, help="problem store (default: a fresh one with the tiny set)")
    ap.add_argument("--config", default=str(REPO / "rl_loop/configs/tiny_cpu.yaml"))
    ap.add_argument("--model", default=None)
    ap.add_argument("--steps", type=int, default=4)
    ap.add_argument("--cores", default=None,
                    help="GEN|TRAIN core lists for the async run, e.g. '0|1' (default: this process's cores "
                    "split in two halves); the sync run gets the union for both (same total cores, taking turns). "
                    "'none' pins nothing.")
    ap.add_argument("overrides", nargs="*")
    a = ap.parse_args()
    pin_sync, pin_async = core_overrides(a.cores)
    if a.store is None or a.model is None:
        sys.path.insert(0, str(REPO))
        from tests.rl_loop.rl_fixtures import make_store, tiny_sft_model

        store = make_store(Path(tempfile.mkdtemp(prefix="rl_bench_store_")))
        a.store = a.store or store
        a.model = a.model or str(tiny_sft_model(store))
    sync = run(a.config, a.store, 0, a.steps, a.model, [*pin_sync, *a.overrides])
    asyn = run(a.config, a.store, 1, a.steps, a.model, [*pin_async, *a.overrides])
    for r in (sync, asyn):
        print(json.dumps(r))
    print(f"mean step time: sync {sync['step_s']:.2f} s, async {asyn['step_s']:.2f} s, "
          f"ratio sync/async {sync['step_s'] / asyn['step_s']:.2f}x")


if __name__ == "__main__":
    main()
