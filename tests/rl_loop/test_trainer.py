"""The FSDP2 trainer group for real: two torchrun ranks on gloo, the tiny Llama.

One group is started for the module (about 20 s) and driven through its commands:
train (loss finite, weights move in the direction of the advantage), export weights
(full state gathered on rank 0), save/load (model + optimizer round trip).
"""
from __future__ import annotations

import asyncio
import math

import pytest

from tests.rl_loop.rl_fixtures import TINY, need_ml

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def trainer(tmp_path_factory):
    need_ml()
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.models import prepare_tiny
    from rl_loop.trainer import Trainer, TrainerSettings

    prepare_tiny(TINY)
    log = tmp_path_factory.mktemp("trainer") / "trainer.log"
    t = Trainer(TrainerSettings(model_path=str(TINY), world_size=2, lr=1e-3, micro_batch_size_seqs=2,
                                spec=resolve_algorithm("grpo", 8).to_dict(), log_path=str(log)))
    info = t.start()
    assert info["world_size"] == 2 and info["backend"] == "gloo"
    yield t
    t.stop()


def _seqs(lp=-10.0, version=0):
    from rl_loop.trainer import Sequence

    good, bad = [5, 6, 7], [8, 9, 10]
    return [Sequence([1, 2, 3, 4], good, [lp] * 3, [version] * 3, advantage=1.0),
            Sequence([1, 2, 3, 4], bad, [lp] * 3, [version] * 3, advantage=-1.0)] * 2


def run(coro):
    return asyncio.get_event_loop_policy().new_event_loop().run_until_complete(coro)


def test_train_moves_logprobs_with_the_advantage(trainer):
    seqs = _seqs()
    before = run(trainer.logprobs(seqs[:2]))
    v = trainer.version
    stats = run(trainer.train(seqs, v, recompute_logprobs=True))
    after = run(trainer.logprobs(seqs[:2]))
    assert trainer.version == v + 1
    assert math.isfinite(stats["loss"]) and stats["num_sequences"] == 4
    assert stats["grad_norm"] > 0
    # recomputed vs behaviour log-probs (-10 given) is reported for same-version tokens
    assert stats["recompute_gap_mean"] > 0
    assert sum(after[0]) > sum(before[0])  # positive advantage: more likely
    assert sum(after[1]) < sum(before[1])  # negative advantage: less likely


def test_odd_batch_pads_ranks_with_zero_weight(trainer):
    seqs = _seqs()[:3]  # 3 sequences over 2 ranks x micro-batch 2: one rank pads
    stats = run(trainer.train(seqs, trainer.version, recompute_logprobs=False))
    assert stats["num_sequences"] == 3


def test_export_writes_full_state_on_rank0(trainer, tmp_path):
    from safetensors.torch import load_file

    info = run(trainer.export_weights(str(tmp_path / "w.safetensors")))
    sd = load_file(str(tmp_path / "w.safetensors"))
    assert "lm_head.weight" not in sd  # tied
    assert sd["model.embed_tokens.weight"].shape[1] == 128  # full, not a shard
    assert info["bytes"] == sum(t.numel() * 4 for t in sd.values())


def test_save_load_round_trip(trainer, tmp_path):
    seqs = _seqs()
    run(trainer.save(str(tmp_path)))
    saved_version = trainer.version
    ref = run(trainer.logprobs(seqs[:2]))
    run(trainer.train(seqs, trainer.version, False))
    moved = run(trainer.logprobs(seqs[:2]))
    assert moved != ref
    assert run(trainer.load(str(tmp_path))) == saved_version
    back = run(trainer.logprobs(seqs[:2]))
    assert max(abs(a - b) for x, y in zip(back, ref) for a, b in zip(x, y)) < 1e-5
    # optimizer state came back too: the same step from the same state gives the same result
    run(trainer.train(seqs, trainer.version, False))
    again = run(trainer.logprobs(seqs[:2]))
    assert max(abs(a - b) for x, y in zip(again, moved) for a, b in zip(x, y)) < 1e-4
