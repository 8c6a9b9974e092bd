"""The FSDP trainer's loss path for real (one gloo rank, the tiny Llama): several PPO updates
per batch with a recomputed pi_start, behaviour log-probs replaced by recomputed ones, and
an online DPO step against a frozen reference."""
from __future__ import annotations

import asyncio
import math

import pytest

from tests.rl_loop.rl_fixtures import TINY, need_ml

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(600)]


def run(coro):
    return asyncio.new_event_loop().run_until_complete(coro)


def _trainer(tmp_path, name, **kw):
    from rl_loop.algorithms import AlgorithmConfig, resolve_algorithm
    from rl_loop.models import prepare_tiny
    from rl_loop.trainer import Trainer, TrainerSettings

    prepare_tiny(TINY)
    over = kw.pop("algo", {})
    spec = resolve_algorithm(AlgorithmConfig(name=name, **over), 8).to_dict()
    return Trainer(TrainerSettings(model_path=str(TINY), world_size=1, lr=kw.pop("lr", 1e-2), micro_batch_size_seqs=2,
                                   spec=spec, log_path=str(tmp_path / "trainer.log"), **kw))


def _seqs(trainer, version=0):
    from rl_loop.trainer import Sequence

    good, bad = [5, 6, 7], [8, 9, 10]
    base = [Sequence([1, 2, 3, 4], good, [0.0] * 3, [version] * 3, advantage=1.0),
            Sequence([1, 2, 3, 4], bad, [0.0] * 3, [version] * 3, advantage=-1.0)]
    lps = run(trainer.logprobs(base))
    for s, lp in zip(base, lps):
        s.behaviour_logprobs = [x - 0.01 for x in lp]  # generator numerics differ a little
    return base * 2


def test_ppo_epochs_and_mini_batches_with_recomputed_behaviour(tmp_path):
    need_ml()
    t = _trainer(tmp_path, "decoupled_ppo", ppo_epochs=2, mini_batches=2, behaviour_logprobs="recomputed")
    t.start()
    try:
        seqs = _seqs(t)
        before = run(t.logprobs(seqs[:2]))
        stats = run(t.train(seqs, 0, recompute_logprobs=True))
        after = run(t.logprobs(seqs[:2]))
    finally:
        t.stop()
    assert stats["ppo_updates"] == 4 and t.version == 1
    # every token was sampled by the trainer's version: all behaviour log-probs replaced, so the
    # decoupled weight pi_prox/mu is exactly 1 (pi_prox = pi_start = the recomputed mu) and the
    # generator gap (0.01) is still reported
    assert stats["behaviour_replaced_fraction"] == 1.0
    assert stats["recompute_gap_mean"] == pytest.approx(0.01, abs=1e-4)
    assert stats["importance_weight_min"] == pytest.approx(1.0, abs=1e-5)
    assert stats["importance_weight_max"] == pytest.approx(1.0, abs=1e-5)
    # the first pass's second mini-batch and the last epoch see a moved policy: the ratio against
    # pi_start leaves 1 and (lr 1e-2 moves a lot) the clip binds
    assert stats["ratio_max"] > 1.0 + 1e-4 or stats["ratio_min"] < 1.0 - 1e-4
    assert stats["last_update_clip_fraction"] > 0
    assert math.isfinite(stats["loss"])
    # the good completion gains on the bad one (each alone may move either way at this lr)
    assert sum(after[0]) - sum(after[1]) > sum(before[0]) - sum(before[1])


def test_online_dpo_step_moves_chosen_up_against_rejected(tmp_path):
    need_ml()
    from rl_loop.trainer import Sequence

    t = _trainer(tmp_path, "online_dpo", ref_path=str(TINY), lr=1e-2, algo={"beta": 0.5})
    t.start()
    try:
        chosen = Sequence([1, 2, 3, 4], [5, 6, 7], [0.0] * 3, [0] * 3, dpo_role=1)
        rejected = Sequence([1, 2, 3, 4], [8, 9], [0.0] * 2, [2] * 2, dpo_role=-1)  # stale: DPO does not care
        before = run(t.logprobs([chosen, rejected]))
        stats = run(t.train([chosen, rejected] * 2, 2, recompute_logprobs=False))
        after = run(t.logprobs([chosen, rejected]))
        empty = run(t.train([], 3, recompute_logprobs=False))  # every group tied: nothing to learn
    finally:
        t.stop()
    # policy == reference at the start: margin 0, loss log 2, accuracy 0 (margin not > 0)
    assert stats["loss"] == pytest.approx(math.log(2), abs=1e-5)
    assert stats["dpo_margin_mean"] == pytest.approx(0.0, abs=1e-5) and stats["num_pairs"] == 2
    margin_before = sum(before[0]) - sum(before[1])
    margin_after = sum(after[0]) - sum(after[1])
    assert margin_after > margin_before
    assert t.version == 4 and empty.get("ppo_updates") == 0
