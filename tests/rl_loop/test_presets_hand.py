"""Every preset's loss and gradient pinned on one hand-computed example (its own defaults).

Policy-gradient presets: one sequence of three tokens sampled by mu = 0.5 each; the
trainer now gives pi = (0.6, 0.75, 0.3), so pi/mu = (1.2, 1.5, 0.6); advantage A = +1 unless
stated. Every expected number is derived in the comment above it; nothing here was
produced by running the code. Online DPO has its own example (two sequences, one pair).
"""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from rl_loop.algorithms import (  # noqa: E402
    PRESETS,
    AlgorithmConfig,
    LossInputs,
    Normaliser,
    compute_loss,
    make_pairs,
    merge_stats,
    resolve_algorithm,
)

PI, MU = [0.6, 0.75, 0.3], [0.5, 0.5, 0.5]
L6, L75, L3 = math.log(0.6), math.log(0.75), math.log(0.3)


def _run(name, adv=1.0, **extra):
    sp = resolve_algorithm(AlgorithmConfig(name=name), max_new_tokens=4)
    logp = torch.tensor([[math.log(p) for p in PI]], dtype=torch.float64, requires_grad=True)
    mu = torch.tensor([[math.log(p) for p in MU]], dtype=torch.float64)
    out = compute_loss(LossInputs(logp, mu, torch.tensor([adv], dtype=torch.float64), torch.ones(1, 3), **extra), sp)
    out.loss.backward()
    return out.loss.item(), logp.grad[0].tolist()


HAND = {
    # GRPO (DeepSeekMath eq. 3): min(rA, clip(r, .8, 1.2) A) = (1.2, 1.2, 0.6); seq_mean with one
    # sequence = 1/3 per token -> loss -3.0/3 = -1.0; grad -(1/3) r on unclipped tokens, token 2
    # clipped -> (-0.4, 0, -0.2).
    "grpo": ({}, 1.0, -1.0, [-0.4, 0.0, -0.2]),
    # Dr. GRPO: same objective, weights 1/(N_seqs * L_max) = 1/4 -> loss -3.0/4; grad -(1/4) r.
    "dr_grpo": ({}, 1.0, -0.75, [-0.3, 0.0, -0.15]),
    # AIPO (LlamaRL sec. 6), rho = 4: w = sg(min(pi/mu, 4)) = (1.2, 1.5, 0.6), term w A log pi,
    # token mean 1/3: loss -(1.2 ln .6 + 1.5 ln .75 + .6 ln .3)/3; grad -w/3 = (-.4, -.5, -.2).
    "aipo": ({}, 1.0, -(1.2 * L6 + 1.5 * L75 + 0.6 * L3) / 3, [-0.4, -0.5, -0.2]),
    # Decoupled PPO (A-3PO eq. 2), pi_prox = (0.55, 0.6, 0.5): w = prox/mu = (1.1, 1.2, 1.0),
    # r = pi/prox = (12/11, 1.25, 0.6), clip .8..1.2 -> min = (12/11, 1.2, 0.6); w * min =
    # (1.2, 1.44, 0.6) -> loss -3.24/3 = -1.08; grad -(1/3) w r on unclipped = (-.4, 0, -.2).
    "decoupled_ppo": ({"proximal_logprobs": torch.log(torch.tensor([[0.55, 0.6, 0.5]], dtype=torch.float64))},
                      1.0, -1.08, [-0.4, 0.0, -0.2]),
    # A-3PO, staleness 2 -> alpha 1/2: w = r = sqrt(pi/mu) = (sqrt 1.2, sqrt 1.5, sqrt .6);
    # token 2's r = 1.2247 > 1.2 clipped -> objective (sqrt 1.2, 1.2, sqrt .6); w * obj =
    # (1.2, 1.2 sqrt 1.5, 0.6); loss -(1.8 + 1.2 sqrt 1.5)/3; grad -(1/3) w r = -(1/3) pi/mu.
    "a3po": ({"staleness": torch.tensor([2])}, 1.0, -(1.8 + 1.2 * math.sqrt(1.5)) / 3, [-0.4, 0.0, -0.2]),
    # CISPO (MiniMax-M1 eq. 4): sg(clip(r, -, 1.28)) A log pi = weights (1.2, 1.28, 0.6),
    # token mean: loss -(1.2 ln .6 + 1.28 ln .75 + .6 ln .3)/3; grad -(1.2, 1.28, .6)/3.
    "cispo": ({}, 1.0, -(1.2 * L6 + 1.28 * L75 + 0.6 * L3) / 3, [-0.4, -1.28 / 3, -0.2]),
    # RLOO (Proximal RLOO), A = 2: min(rA, clip(r) A) = (2.4, 2.4, 1.2); seq_sum weight 1 per
    # token (no 1/|o|): loss -6.0; grad -r A unclipped: (-2.4, 0, -1.2).
    "rloo": ({}, 2.0, -6.0, [-2.4, 0.0, -1.2]),
}


@pytest.mark.parametrize("name", sorted(n for n in PRESETS if n != "online_dpo"))
def test_policy_gradient_preset_by_hand(name):
    extra, adv, loss, grad = HAND[name]
    got_loss, got_grad = _run(name, adv, **extra)
    assert got_loss == pytest.approx(loss, abs=1e-12)
    assert got_grad == pytest.approx(grad, abs=1e-12)


def _dpo_inputs(dtype=torch.float64):
    # Chosen row: logp = (ln .5, ln .5), ref = (ln .25, ln .5) -> h+ = ln 2.
    # Rejected row: one real token, logp = ln .25, ref = ln .5 -> h- = -ln 2 (2nd token padding).
    logp = torch.log(torch.tensor([[0.5, 0.5], [0.25, 0.9]], dtype=dtype)).requires_grad_()
    ref = torch.log(torch.tensor([[0.25, 0.5], [0.5, 0.1]], dtype=dtype))
    mask = torch.tensor([[1.0, 1.0], [1.0, 0.0]])
    return logp, ref, mask


def test_online_dpo_preset_by_hand():
    # beta = 0.5: margin = 0.5 (ln 2 - (-ln 2)) = ln 2; loss = -log sigmoid(ln 2) = -log(2/3) = ln 1.5.
    # dL/dmargin = -(1 - sigmoid(ln 2)) = -1/3; dmargin/dlogp = +beta on chosen tokens, -beta on
    # rejected ones: grads chosen (-1/6, -1/6), rejected (+1/6, 0 for padding).
    # Implicit rewards beta h: chosen 0.5 ln 2, rejected -0.5 ln 2; accuracy 1.
    sp = resolve_algorithm(AlgorithmConfig(name="online_dpo", beta=0.5))
    logp, ref, mask = _dpo_inputs()
    out = compute_loss(LossInputs(logp, logp.detach(), torch.zeros(2), mask, ref_logprobs=ref,
                                  dpo_role=torch.tensor([1, -1])), sp)
    out.loss.backward()
    assert out.loss.item() == pytest.approx(math.log(1.5), abs=1e-12)
    assert logp.grad.flatten().tolist() == pytest.approx([-1 / 6, -1 / 6, 1 / 6, 0.0], abs=1e-12)
    st = out.stats
    assert st["dpo_margin_mean"] == pytest.approx(math.log(2), abs=1e-12)
    assert st["dpo_accuracy"] == 1.0
    assert st["dpo_chosen_reward_mean"] == pytest.approx(0.5 * math.log(2), abs=1e-12)
    assert st["dpo_rejected_reward_mean"] == pytest.approx(-0.5 * math.log(2), abs=1e-12)
    assert st["num_pairs"] == 1 and st["num_tokens"] == 3


def test_online_dpo_micro_batches_add_up_to_the_full_batch():
    # Two pairs, the second a mirror of the first (margin -ln 2): full-batch loss is the mean
    # of ln 1.5 and -log sigmoid(-ln 2) = -log(1/3) = ln 3. Split into one pair per micro-batch
    # with the global normaliser (4 sequences = 2 pairs), losses and gradients add up.
    sp = resolve_algorithm(AlgorithmConfig(name="online_dpo", beta=0.5))
    lp1, ref1, m1 = _dpo_inputs()
    logp = torch.cat([lp1.detach(), lp1.detach().flip(0)]).requires_grad_()
    ref = torch.cat([ref1, ref1.flip(0)])
    mask = torch.cat([m1, m1.flip(0)])
    roles = torch.tensor([1, -1, 1, -1])
    full = compute_loss(LossInputs(logp, logp.detach(), torch.zeros(4), mask, ref_logprobs=ref, dpo_role=roles), sp)
    full.loss.backward()
    assert full.loss.item() == pytest.approx((math.log(1.5) + math.log(3)) / 2, abs=1e-12)
    norm = Normaliser(num_tokens=6, num_sequences=4)
    micro = logp.detach().clone().requires_grad_()
    parts = []
    for s in (slice(0, 2), slice(2, 4)):
        out = compute_loss(LossInputs(micro[s], micro.detach()[s], torch.zeros(2), mask[s], ref_logprobs=ref[s],
                                      dpo_role=roles[s]), sp, norm)
        out.loss.backward()
        parts.append(out.stats)
    torch.testing.assert_close(micro.grad, logp.grad, rtol=0, atol=1e-12)
    merged = merge_stats(parts)
    assert merged["loss"] == pytest.approx(full.loss.item(), abs=1e-12)
    assert merged["dpo_accuracy"] == 0.5 and merged["num_pairs"] == 2


def test_dpo_pairs_best_and_worst_ties_skipped():
    assert make_pairs([0.0, 1.0, 0.5, 1.0]) == (1, 0)  # first best, first worst
    assert make_pairs([0.3, 0.3, 0.3]) is None  # a tie holds no preference
    assert make_pairs([1.0]) is None
    assert make_pairs([0.2, 0.9]) == (1, 0)


def test_dpo_needs_reference_and_roles():
    sp = resolve_algorithm(AlgorithmConfig(name="online_dpo"))
    logp, ref, mask = _dpo_inputs()
    with pytest.raises(ValueError, match="ref_logprobs"):
        compute_loss(LossInputs(logp, logp.detach(), torch.zeros(2), mask, dpo_role=torch.tensor([1, -1])), sp)
    with pytest.raises(ValueError, match="followed"):
        compute_loss(LossInputs(logp, logp.detach(), torch.zeros(2), mask, ref_logprobs=ref,
                                dpo_role=torch.tensor([-1, 1])), sp)


def test_online_dpo_config_needs_a_reference_model():
    from rl_loop.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="reference_path"):
        load_config(None, ["algorithm.name=online_dpo"])
    cfg = load_config(None, ["algorithm.name=online_dpo", "model.reference_path=models/x", "algorithm.beta=0.2",
                             "staleness.max_staleness=4"])
    assert cfg.algorithm_spec().objective == "dpo" and cfg.algorithm_spec().beta == 0.2
