"""Several optimizer updates per batch (ppo_epochs x mini_batches) with a tiny real model.

The loop below is the trainer's (rl_loop/trainer_worker.py cmd_train) without FSDP: one
no-grad pass for pi_start, then for each planned update a Normaliser over that
mini-batch, micro-batch accumulation, one optimizer step.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from rl_loop.algorithms import (  # noqa: E402
    AlgorithmConfig,
    LossInputs,
    Normaliser,
    compute_loss,
    merge_stats,
    plan_updates,
    resolve_algorithm,
)
from rl_loop.algorithms.updates import split_even  # noqa: E402
from tests.rl_loop.test_loss import TinyLM, _tiny_batch  # noqa: E402


def test_plan_is_deterministic_and_covers_every_unit_each_epoch():
    plan = plan_updates(7, ppo_epochs=3, mini_batches=2, seed=1, version=4)
    assert len(plan) == 6
    assert plan[:2] == [[0, 1, 2, 3], [4, 5, 6]]  # first epoch keeps the batch order
    for e in range(3):
        assert sorted(plan[2 * e] + plan[2 * e + 1]) == list(range(7))
    assert plan == plan_updates(7, 3, 2, seed=1, version=4)
    assert plan != plan_updates(7, 3, 2, seed=1, version=5)  # reshuffled per batch
    assert plan_updates(3, 1, 8) == [[0], [1], [2]]  # never an empty mini-batch
    assert plan_updates(0, 2, 2) == []
    assert split_even([1, 2, 3, 4, 5], 2) == [[1, 2, 3], [4, 5]]
    with pytest.raises(ValueError):
        plan_updates(3, 0, 1)


def _train(name, epochs, minis, lr=0.5, micro=2, **over):
    model = TinyLM(seed=3)
    tokens, mask = _tiny_batch()
    adv = torch.tensor([1.0, -1.0, 0.5, -0.5, 2.0, -2.0])
    sp = resolve_algorithm(AlgorithmConfig(name=name, **over), max_new_tokens=6)
    with torch.no_grad():
        mu = model.token_logprobs(tokens) - 0.05  # generator numerics differ slightly
        start = model.token_logprobs(tokens)  # pi_start: recomputed before the first update
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    stale = torch.full((6,), 2)
    history = []
    for idx in plan_updates(6, epochs, minis, seed=0, version=0):
        idx_t = torch.tensor(idx)
        norm = Normaliser.from_mask(mask[idx_t])
        opt.zero_grad()
        parts = []
        for k in range(0, len(idx), micro):
            sel = idx_t[k:k + micro]
            logp = model.token_logprobs(tokens[sel])
            out = compute_loss(LossInputs(logp, mu[sel], adv[sel], mask[sel], proximal_logprobs=start[sel],
                                          staleness=stale[sel], start_logprobs=start[sel] if epochs * minis > 1
                                          else None), sp, norm)
            out.loss.backward()
            parts.append(out.stats)
        opt.step()
        history.append(merge_stats(parts))
    return history


def test_decoupled_ppo_clip_binds_from_the_second_update():
    hist = _train("decoupled_ppo", 2, 2)
    # Update 1: the policy is still pi_start, so r = pi/pi_prox = 1 exactly and nothing clips.
    assert hist[0]["ratio_min"] == pytest.approx(1.0, abs=1e-6) and hist[0]["ratio_max"] == pytest.approx(1.0, abs=1e-6)
    assert hist[0]["clip_fraction"] == 0.0
    # Later updates see a moved policy: the ratio leaves 1 and the trust region bounds it.
    assert max(h["ratio_max"] for h in hist[1:]) > 1.2 or min(h["ratio_min"] for h in hist[1:]) < 0.8
    assert max(h["clip_fraction"] for h in hist[1:]) > 0.0
    # The importance weight pi_prox/mu stays fixed at exp(0.05) (pi_prox is pi_start, not pi_theta).
    for h in hist:
        assert h["importance_weight_min"] == pytest.approx(1.0513, abs=1e-3)
        assert h["importance_weight_max"] == pytest.approx(1.0513, abs=1e-3)


def test_a3po_interpolates_towards_pi_start_over_several_updates():
    hist = _train("a3po", 2, 2)
    # staleness 2 -> alpha 1/2: first update r = (pi/mu)^(1/2) = exp(0.025) everywhere.
    assert hist[0]["ratio_min"] == pytest.approx(1.0253, abs=1e-3)
    assert max(h["clip_fraction"] for h in hist[1:]) > 0.0


def test_one_update_is_unchanged_by_the_plan():
    # ppo_epochs = mini_batches = 1: one update over the whole batch, as before these options.
    one = _train("grpo", 1, 1)
    assert len(one) == 1 and one[0]["num_sequences"] == 6


@pytest.mark.parametrize("name", ["grpo", "decoupled_ppo", "a3po", "rloo", "aipo"])
def test_accumulation_inside_a_mini_batch_equals_the_mini_batch_gradient(name):
    # The equivalence the trainer relies on, with pi_start present (several updates).
    model = TinyLM(seed=4)
    tokens, mask = _tiny_batch()
    adv = torch.tensor([1.0, -1.0, 0.5, -0.5, 2.0, -2.0])
    sp = resolve_algorithm(AlgorithmConfig(name=name), max_new_tokens=6)
    with torch.no_grad():
        start = model.token_logprobs(tokens) + 0.1
        mu = start - 0.2
    idx = torch.tensor(plan_updates(6, 2, 2, seed=0, version=0)[2])
    norm = Normaliser.from_mask(mask[idx])

    def grads(chunks):
        model.zero_grad()
        for sel in chunks:
            out = compute_loss(LossInputs(model.token_logprobs(tokens[sel]), mu[sel], adv[sel], mask[sel],
                                          proximal_logprobs=start[sel], staleness=torch.full((len(sel),), 3),
                                          start_logprobs=start[sel]), sp, norm)
            out.loss.backward()
        return [p.grad.clone() for p in model.parameters()]

    whole = grads([idx])
    split = grads([idx[:1], idx[1:]])
    for a, b in zip(whole, split):
        torch.testing.assert_close(a, b, rtol=0, atol=1e-6)
