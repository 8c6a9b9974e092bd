"""The modular loss against hand-computed numbers.

Shared set-up for the hand cases: one sequence of three tokens sampled by mu = 0.5 each;
the trainer now gives pi = (0.6, 0.75, 0.3), so pi/mu = (1.2, 1.5, 0.6). Token-mean
aggregation weighs each token 1/3. Expected values below are worked out by hand in the
comments (and, for the random cases, by an independent numpy formula).
"""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")
import numpy as np  # noqa: E402  (numpy comes with the ml extra)

from rl_loop.algorithms import (  # noqa: I001
    PRESETS,
    AlgorithmConfig,
    LossInputs,
    Normaliser,
    compute_loss,
    merge_stats,
    resolve_algorithm,
)

PG_PRESETS = sorted(n for n, p in PRESETS.items() if p["objective"] == "policy_gradient")
PI = [0.6, 0.75, 0.3]
MU = [0.5, 0.5, 0.5]


def spec(name: str, **overrides):
    return resolve_algorithm(AlgorithmConfig(name=name, **overrides), max_new_tokens=4)


def run(sp, pi=PI, mu=MU, adv=1.0, mask=None, **extra):
    logp = torch.tensor([[math.log(p) for p in pi]], dtype=torch.float64, requires_grad=True)
    mu_t = torch.tensor([[math.log(p) for p in mu]], dtype=torch.float64)
    m = torch.ones_like(mu_t) if mask is None else torch.tensor([mask], dtype=torch.float64)
    out = compute_loss(LossInputs(logp, mu_t, torch.tensor([adv], dtype=torch.float64), m, **extra), sp)
    out.loss.backward()
    return out, logp.grad[0].tolist()


def close(a, b, tol=1e-9):
    assert np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), atol=tol, rtol=0), (a, b)


# ---------------------------------------------------------------- PPO clip (GRPO)
def test_ppo_clip_positive_advantage():
    # r = (1.2, 1.5, 0.6); clip to [0.8, 1.2] -> (1.2, 1.2, 0.8); min(rA, clip A), A=+1:
    # (1.2, 1.2, 0.6) -> mean 1.0 -> loss -1.0. Token 2 takes the clipped branch: no grad.
    # d loss / d logp_t = -(1/3) r_t A  = (-0.4, 0, -0.2).
    out, grad = run(spec("grpo", aggregation="token_mean"))
    close(out.loss.item(), -1.0)
    close(grad, [-0.4, 0.0, -0.2])
    close(out.stats["clip_fraction"], 1 / 3)
    close(out.stats["importance_weight_mean"], 1.0)
    close([out.stats["ratio_min"], out.stats["ratio_max"]], [0.6, 1.5])
    close([out.stats["behaviour_ratio_min"], out.stats["behaviour_ratio_max"]], [0.6, 1.5])


def test_ppo_clip_negative_advantage():
    # A=-1: rA = (-1.2, -1.5, -0.6), clip A = (-1.2, -1.2, -0.8); min = (-1.2, -1.5, -0.8)
    # loss = 3.5/3; token 3 clipped; grads = -(1/3) r A = (0.4, 0.5, 0).
    out, grad = run(spec("grpo", aggregation="token_mean"), adv=-1.0)
    close(out.loss.item(), 3.5 / 3)
    close(grad, [0.4, 0.5, 0.0])
    close(out.stats["clip_fraction"], 1 / 3)


def test_clip_higher():
    # eps_high 0.28: clip(1.5) = 1.28 -> objective (1.2, 1.28, 0.6), loss -3.08/3.
    out, grad = run(spec("grpo", aggregation="token_mean", eps_high=0.28))
    close(out.loss.item(), -3.08 / 3)
    close(grad, [-0.4, 0.0, -0.2])


def test_grpo_preset_is_sequence_mean():
    # Two sequences: lengths 1 and 2, A = (+1, +1), all ratios 1. seq_mean weights:
    # seq 0 token: 1/(2*1) = 0.5; seq 1 tokens: 1/(2*2) = 0.25 -> grads -(0.5, .25, .25).
    logp = torch.log(torch.tensor([[0.5, 0.5], [0.5, 0.5]], dtype=torch.float64)).requires_grad_()
    mask = torch.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    out = compute_loss(LossInputs(logp, logp.detach().clone(), torch.tensor([1.0, 1.0]), mask), spec("grpo"))
    out.loss.backward()
    close(out.loss.item(), -1.0)
    close(logp.grad.tolist(), [[-0.5, 0.0], [-0.25, -0.25]])


# ---------------------------------------------------------------- AIPO
def test_aipo_one_sided_truncation():
    # w = min(pi/mu, rho=1.4) = (1.2, 1.4, 0.6), detached; r == 1 so the term is A * logp.
    # loss = -(1/3) sum w_t log pi_t; grad = -(1/3) w = (-0.4, -1.4/3, -0.2).
    out, grad = run(spec("aipo", rho=1.4))
    expected = -(1.2 * math.log(0.6) + 1.4 * math.log(0.75) + 0.6 * math.log(0.3)) / 3
    close(out.loss.item(), expected)
    close(grad, [-0.4, -1.4 / 3, -0.2])
    close(out.stats["truncated_fraction"], 1 / 3)
    close([out.stats["importance_weight_max"], out.stats["importance_weight_min"]], [1.4, 0.6])
    close(out.stats["clip_fraction"], 0.0)


def test_aipo_weight_is_never_a_gradient_source():
    # Same gradient whether the weight is computed from pi (detached) or given as a constant:
    # d/dlogp [w * A * logp] = w * A only if w is detached (else extra w * A * logp term).
    _, grad = run(spec("aipo", rho=10.0))
    close(grad, [-1.2 / 3, -1.5 / 3, -0.6 / 3])


# ---------------------------------------------------------------- CISPO / REINFORCE
def test_cispo_keeps_gradient_on_clipped_tokens():
    # sg(clip(r, upper 1.28, no lower)) = (1.2, 1.28, 0.6); grad = -(1/3) * that * A.
    out, grad = run(spec("cispo"))
    close(grad, [-0.4, -1.28 / 3, -0.2])
    close(out.stats["clip_fraction"], 1 / 3)
    expected = -(1.2 * math.log(0.6) + 1.28 * math.log(0.75) + 0.6 * math.log(0.3)) / 3
    close(out.loss.item(), expected)


def test_rloo_preset_sequence_likelihood_with_bounded_ratio():
    # Proximal RLOO (Noukhovitch et al. app. B): min(r A, clip(r, .8, 1.2) A), A = 2,
    # r = (1.2, 1.5, 0.6): objective (2.4, 2.4, 1.2). seq_sum: weight 1/N_seqs = 1 per
    # token (no 1/|o|): loss = -6.0. Grad -r A on unclipped tokens: token 2 is clipped,
    # token 3 takes the unclipped branch (1.2 < 1.6): (-2.4, 0, -1.2).
    out, grad = run(spec("rloo"), adv=2.0)
    close(out.loss.item(), -6.0)
    close(grad, [-2.4, 0.0, -1.2])


# ---------------------------------------------------------------- decoupled PPO
def test_decoupled_ppo_recompute():
    # prox = (0.55, 0.6, 0.5): behaviour weight w = prox/mu = (1.1, 1.2, 1.0) (detached);
    # ratio r = pi/prox = (1.0909.., 1.25, 0.6); clip [0.8, 1.2]: min(rA, clip A) with A=1 =
    # (1.0909, 1.2, 0.6); w * that = (1.2, 1.44, 0.6) -> loss -3.24/3 = -1.08.
    # grad: -(1/3) w r on unclipped tokens = (-(1/3)*1.2, 0, -(1/3)*0.6).
    prox = torch.log(torch.tensor([[0.55, 0.6, 0.5]], dtype=torch.float64))
    out, grad = run(spec("decoupled_ppo"), proximal_logprobs=prox)
    close(out.loss.item(), -1.08)
    close(grad, [-0.4, 0.0, -0.2])
    close([out.stats["importance_weight_min"], out.stats["importance_weight_max"]], [1.0, 1.2])
    close(out.stats["clip_fraction"], 1 / 3)


def test_decoupled_recompute_requires_proximal_logprobs():
    with pytest.raises(ValueError, match="proximal_logprobs"):
        run(spec("decoupled_ppo"))


def test_a3po_loglinear_staleness_two():
    # d = 2 -> alpha = 1/2: pi_prox = sqrt(mu * pi); w = pi_prox/mu = sqrt(pi/mu) and
    # r = pi/pi_prox = sqrt(pi/mu) = (1.0954, 1.2247, 0.7746). clip [0.8, 1.2]:
    # token 2 clipped (1.2247 > 1.2); objective (1.0954, 1.2, 0.7746); w*obj =
    # (1.2, 1.2*sqrt(1.5), 0.6). grad: -(1/3) w r = -(1/3) pi/mu on unclipped tokens.
    out, grad = run(spec("a3po"), staleness=torch.tensor([2]))
    close(out.loss.item(), -(1.2 + 1.2 * math.sqrt(1.5) + 0.6) / 3)
    close(grad, [-0.4, 0.0, -0.2])
    close(out.stats["a3po_alpha_mean"], 0.5)
    close(out.stats["importance_weight_max"], math.sqrt(1.5))


def test_a3po_alpha_endpoints():
    # d = 1 -> alpha = 1 -> pi_prox = mu: identical to coupled PPO (GRPO with token mean).
    out1, grad1 = run(spec("a3po"), staleness=torch.tensor([1]))
    ref, grad_ref = run(spec("grpo", aggregation="token_mean"))
    close(out1.loss.item(), ref.loss.item())
    close(grad1, grad_ref)
    # d = 0 -> alpha = 0 (A-3PO eq. 4) -> pi_prox = sg(pi): w = pi/mu, r = 1, never clipped:
    # loss = -(1/3) sum pi/mu = -(1.2+1.5+0.6)/3, grad -(1/3) pi/mu.
    out0, grad0 = run(spec("a3po"), staleness=torch.tensor([0]))
    close(out0.loss.item(), -3.3 / 3)
    close(grad0, [-0.4, -0.5, -0.2])
    close(out0.stats["clip_fraction"], 0.0)


def test_a3po_per_token_staleness():
    # Token versions differ inside a sequence: d = (1, 2, 4) -> alpha = (1, 1/2, 1/4).
    # r = (pi/mu)^alpha = (1.2, sqrt(1.5), 0.6^0.25); w = (pi/mu)^(1-alpha) = (1, sqrt 1.5, 0.6^.75).
    out, grad = run(spec("a3po"), staleness=torch.tensor([[1, 2, 4]]))
    r = [1.2, math.sqrt(1.5), 0.6**0.25]
    w = [1.0, math.sqrt(1.5), 0.6**0.75]
    obj = [min(r[i], min(max(r[i], 0.8), 1.2)) for i in range(3)]
    close(out.loss.item(), -sum(wi * oi for wi, oi in zip(w, obj)) / 3)
    # token 2 clipped (1.2247 > 1.2); token 3 r = 0.880 inside the band.
    close(grad, [-1.2 / 3, 0.0, -(w[2] * r[2]) / 3])


# ---------------------------------------------------------------- aggregation, KL
def test_dr_grpo_max_len_aggregation():
    # Dr. GRPO: weights 1/(N_seqs * L_max) = 1/(1*4) whatever the length; ratios 1.
    # A = 1: loss = -3/4; grads -1/4 each on the 3 real tokens.
    out, grad = run(spec("dr_grpo"), pi=MU)
    close(out.loss.item(), -0.75)
    close(grad, [-0.25, -0.25, -0.25])


def test_k3_kl_term():
    # logp = log .5, ref = log .25: delta = ref - logp = -ln 2; k3 = e^delta - delta - 1
    # = 0.5 + ln 2 - 1; d k3 / d logp = 1 - e^delta = 0.5. Ratios 1, A = 0 -> policy part 0.
    logp = torch.log(torch.full((1, 2), 0.5, dtype=torch.float64)).requires_grad_()
    ref = torch.log(torch.full((1, 2), 0.25, dtype=torch.float64))
    sp = spec("grpo", kl_coef=0.1, aggregation="token_mean")
    out = compute_loss(LossInputs(logp, logp.detach().clone(), torch.tensor([0.0]), torch.ones(1, 2), ref_logprobs=ref), sp)
    out.loss.backward()
    k3 = 0.5 + math.log(2) - 1
    close(out.stats["kl_mean"], k3)
    close(out.loss.item(), 0.1 * k3)
    close(logp.grad.tolist(), [[0.1 * 0.5 / 2, 0.1 * 0.5 / 2]])


def test_kl_coef_without_reference_is_an_error():
    with pytest.raises(ValueError, match="ref_logprobs"):
        run(spec("grpo", kl_coef=0.1))


def test_stats_logprob_gap_and_entropy():
    out, _ = run(spec("grpo"), entropy=torch.tensor([[1.0, 2.0, 3.0]], dtype=torch.float64))
    gaps = sorted(abs(math.log(p / 0.5)) for p in PI)
    close(out.stats["logprob_gap_mean"], sum(gaps) / 3)
    close(out.stats["logprob_gap_max"], gaps[-1])
    close(out.stats["logprob_gap_p95"], np.quantile(gaps, 0.95))
    close(out.stats["entropy_mean"], 2.0)
    assert out.stats["num_tokens"] == 3 and out.stats["num_sequences"] == 1


def test_padding_with_minus_inf_gives_finite_gradients():
    # Padding may hold -inf log-probs; masked out, nothing non-finite reaches the gradient.
    logp = torch.tensor([[math.log(0.6), -math.inf]], dtype=torch.float64, requires_grad=True)
    mu = torch.tensor([[math.log(0.5), -math.inf]], dtype=torch.float64)
    for name in PG_PRESETS:
        logp.grad = None
        extra = {"proximal_logprobs": mu, "staleness": torch.tensor([3])}
        out = compute_loss(LossInputs(logp, mu, torch.tensor([1.0]), torch.tensor([[1.0, 0.0]]), **extra), spec(name))
        out.loss.backward()
        assert torch.isfinite(out.loss) and torch.isfinite(logp.grad).all(), name
        assert logp.grad[0, 1] == 0


def test_shape_mismatch_is_a_clear_error():
    lp = torch.zeros(2, 3, requires_grad=True)
    with pytest.raises(ValueError, match="behaviour_logprobs"):
        compute_loss(LossInputs(lp, torch.zeros(2, 4), torch.zeros(2), torch.ones(2, 3)), spec("grpo"))


# ---------------------------------------------------------------- independent numpy reference
def numpy_reference(name, logp, mu, adv, mask, prox=None, stale=None, ref=None, kl_coef=0.0, max_len=4):
    """Gradient of the loss w.r.t. logp from the written formulas, in numpy."""
    p = PRESETS[name]
    el, eh = p["eps_low"], p["eps_high"]
    lo = -np.inf if el is None else 1 - el
    hi = np.inf if eh is None else 1 + eh
    n_tok, n_seq = mask.sum(), mask.shape[0]
    if p["aggregation"] == "token_mean":
        agg = mask / n_tok
    elif p["aggregation"] == "seq_sum":
        agg = mask / n_seq
    elif p["aggregation"] == "seq_mean":
        agg = mask / mask.sum(1, keepdims=True) / n_seq
    else:
        agg = mask / (n_seq * max_len)
    A = np.broadcast_to(adv[:, None], logp.shape)
    if p["importance"] == "none":
        w, anchor = np.ones_like(logp), mu
    elif p["importance"] == "aipo":
        w, anchor = np.minimum(np.exp(logp - mu), p["rho"]), logp
    else:
        if p["proximal"] == "loglinear":
            d = np.broadcast_to(stale[:, None], logp.shape).astype(float)
            alpha = np.where(d >= 1, 1 / np.maximum(d, 1), 0.0)
            prox = alpha * mu + (1 - alpha) * logp
        w, anchor = np.exp(prox - mu), prox
    r = np.exp(logp - anchor)
    c = np.clip(r, lo, hi)
    if p["gradient_term"] == "ppo_clip":
        g = np.where(c * A < r * A, 0.0, r * A)  # d/dlogp of min(rA, clip(r)A)
    else:
        g = c * A
    grad = -agg * w * g
    if kl_coef:
        grad = grad + kl_coef * agg * (1 - np.exp(ref - logp))
    return grad * mask


@pytest.mark.parametrize("name", PG_PRESETS)
def test_every_preset_matches_numpy_reference(name):
    rng = np.random.default_rng(0)
    B, T = 5, 6
    mu = np.log(rng.uniform(0.05, 0.95, (B, T)))
    logp = mu + rng.normal(0, 0.3, (B, T))
    prox = mu + rng.normal(0, 0.1, (B, T))
    ref = mu + rng.normal(0, 0.2, (B, T))
    adv = rng.normal(0, 1, B)
    lengths = [6, 3, 1, 4, 5]
    mask = np.array([[1.0] * n + [0.0] * (T - n) for n in lengths])
    stale = np.array([0, 1, 2, 3, 5])
    lp = torch.tensor(logp, requires_grad=True)
    sp = resolve_algorithm(AlgorithmConfig(name=name, kl_coef=0.05), max_new_tokens=6)
    out = compute_loss(
        LossInputs(lp, torch.tensor(mu), torch.tensor(adv), torch.tensor(mask), proximal_logprobs=torch.tensor(prox),
                   staleness=torch.tensor(stale), ref_logprobs=torch.tensor(ref)),
        sp,
    )
    out.loss.backward()
    expected = numpy_reference(name, logp, mu, adv, mask, prox, stale, ref, kl_coef=0.05, max_len=6)
    np.testing.assert_allclose(lp.grad.numpy(), expected, atol=1e-12)


# ---------------------------------------------------------------- micro-batch invariance
def _random_batch(seed, B=7, T=5):
    g = torch.Generator().manual_seed(seed)
    mu = torch.log(torch.rand(B, T, generator=g, dtype=torch.float64) * 0.9 + 0.05)
    logp = mu + 0.3 * torch.randn(B, T, generator=g, dtype=torch.float64)
    lengths = torch.randint(1, T + 1, (B,), generator=g)
    mask = (torch.arange(T)[None, :] < lengths[:, None]).to(torch.float64)
    extra = dict(
        proximal_logprobs=mu + 0.1 * torch.randn(B, T, generator=g, dtype=torch.float64),
        staleness=torch.randint(0, 4, (B,), generator=g),
        ref_logprobs=mu + 0.2 * torch.randn(B, T, generator=g, dtype=torch.float64),
    )
    return logp, mu, torch.randn(B, generator=g, dtype=torch.float64), mask, extra


def _sliced(extra, s):
    return {k: v[s] for k, v in extra.items()}


@pytest.mark.parametrize("name", PG_PRESETS)
def test_micro_batch_accumulation_equals_full_batch(name):
    logp, mu, adv, mask, extra = _random_batch(1)
    sp = resolve_algorithm(AlgorithmConfig(name=name, kl_coef=0.1), max_new_tokens=5)
    norm = Normaliser.from_mask(mask)

    full = logp.clone().requires_grad_()
    full_out = compute_loss(LossInputs(full, mu, adv, mask, **extra), sp, norm)
    full_out.loss.backward()

    micro = logp.clone().requires_grad_()
    total, parts = 0.0, []
    for s in (slice(0, 2), slice(2, 3), slice(3, 7)):
        out = compute_loss(LossInputs(micro[s], mu[s], adv[s], mask[s], **_sliced(extra, s)), sp, norm)
        out.loss.backward()
        total += out.loss.item()
        parts.append(out.stats)
    torch.testing.assert_close(micro.grad, full.grad, rtol=0, atol=1e-12)
    close(total, full_out.loss.item(), 1e-12)
    merged = merge_stats(parts)
    for key in ("num_tokens", "num_sequences", "importance_weight_max", "importance_weight_min", "clip_fraction",
                "logprob_gap_mean", "ratio_mean"):
        close(merged[key], full_out.stats[key], 1e-9)


def test_data_parallel_average_equals_full_batch():
    # Two ranks, each holding half; DDP/FSDP average their gradients. dp_world_size=2
    # scales each rank's loss so the average is the full-batch gradient.
    logp, mu, adv, mask, extra = _random_batch(2, B=6)
    sp = spec("grpo")
    full = logp.clone().requires_grad_()
    full_out = compute_loss(LossInputs(full, mu, adv, mask), sp, Normaliser.from_mask(mask))
    full_out.loss.backward()
    norm = Normaliser.from_mask(mask, dp_world_size=2)
    grads, parts = [], []
    for s in (slice(0, 3), slice(3, 6)):
        part = logp.clone().requires_grad_()
        out = compute_loss(LossInputs(part[s], mu[s], adv[s], mask[s]), sp, norm)
        out.loss.backward()
        grads.append(part.grad)
        parts.append(out.stats)
    torch.testing.assert_close((grads[0] + grads[1]) / 2, full.grad, rtol=0, atol=1e-12)
    # Reported losses are shares of the global loss: they add up across ranks.
    close(merge_stats(parts)["loss"], full_out.stats["loss"], 1e-12)


def test_local_normaliser_would_break_invariance():
    # The reason the normaliser exists: per-micro-batch token means weigh tokens unequally.
    logp, mu, adv, mask, _ = _random_batch(3)
    sp = spec("grpo", aggregation="token_mean")
    full = logp.clone().requires_grad_()
    compute_loss(LossInputs(full, mu, adv, mask), sp).loss.backward()
    micro = logp.clone().requires_grad_()
    for s in (slice(0, 2), slice(2, 7)):
        (compute_loss(LossInputs(micro[s], mu[s], adv[s], mask[s]), sp).loss / 2).backward()
    assert not torch.allclose(micro.grad, full.grad)


# ---------------------------------------------------------------- a tiny real model
class TinyLM(torch.nn.Module):
    """A bigram language model: enough to have real log-probs and real gradients."""

    def __init__(self, vocab=11, hidden=8, seed=0):
        super().__init__()
        torch.manual_seed(seed)
        self.emb = torch.nn.Embedding(vocab, hidden)
        self.out = torch.nn.Linear(hidden, vocab)

    def token_logprobs(self, tokens):
        logits = self.out(torch.tanh(self.emb(tokens[:, :-1])))
        return torch.log_softmax(logits, -1).gather(-1, tokens[:, 1:, None])[..., 0]


def _tiny_batch():
    g = torch.Generator().manual_seed(5)
    tokens = torch.randint(0, 11, (6, 7), generator=g)
    mask = torch.ones(6, 6)
    mask[1, 4:] = 0
    mask[4, 2:] = 0
    return tokens, mask


@pytest.mark.parametrize("name", PG_PRESETS)
def test_zero_learning_rate_keeps_ratio_one_and_gap_zero(name):
    model = TinyLM()
    tokens, mask = _tiny_batch()
    with torch.no_grad():
        behaviour = model.token_logprobs(tokens)  # the "generator" is the same model
    opt = torch.optim.AdamW(model.parameters(), lr=0.0, weight_decay=0.0)
    adv = torch.tensor([1.0, -1.0, 0.5, -0.5, 2.0, 0.0])
    sp = resolve_algorithm(AlgorithmConfig(name=name), max_new_tokens=6)
    for _ in range(2):
        logp = model.token_logprobs(tokens)
        out = compute_loss(
            LossInputs(logp, behaviour, adv, mask, proximal_logprobs=logp.detach(),
                       staleness=torch.full((6,), 1)), sp)
        opt.zero_grad()
        out.loss.backward()
        assert any(p.grad.abs().sum() > 0 for p in model.parameters())
        opt.step()
        assert out.stats["logprob_gap_max"] == 0.0
        assert out.stats["ratio_min"] == out.stats["ratio_max"] == 1.0
        assert out.stats["importance_weight_min"] == out.stats["importance_weight_max"] == 1.0
        assert out.stats["clip_fraction"] == 0.0
        assert out.stats["behaviour_ratio_min"] == out.stats["behaviour_ratio_max"] == 1.0


@pytest.mark.parametrize("name", PG_PRESETS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_advantage_sign_sets_direction_of_logprob_change(name, sign):
    model = TinyLM(seed=1)
    tokens, mask = _tiny_batch()
    tokens, mask = tokens[:1], mask[:1]
    with torch.no_grad():
        before = (model.token_logprobs(tokens) * mask).sum().item()
    sp = resolve_algorithm(AlgorithmConfig(name=name), max_new_tokens=6)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    logp = model.token_logprobs(tokens)
    out = compute_loss(
        LossInputs(logp, logp.detach(), torch.tensor([sign]), mask, proximal_logprobs=logp.detach(),
                   staleness=torch.tensor([1])), sp)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    with torch.no_grad():
        after = (model.token_logprobs(tokens) * mask).sum().item()
    assert (after - before) * sign > 0, (before, after)


def test_public_surface_is_pinned():
    import rl_loop.algorithms as alg

    assert set(alg.__all__) == {
        "ADVANTAGE_ESTIMATORS", "AGGREGATIONS", "GRADIENT_TERMS", "IMPORTANCE_MODES", "PROXIMAL_MODES", "PRESETS",
        "AlgorithmConfig", "AlgorithmSpec", "LossInputs", "LossOutput", "Normaliser", "a3po_alpha",
        "aggregation_weights", "compute_advantages", "compute_loss", "group_advantages", "k3_kl",
        "logprob_gap_stats", "merge_stats", "proximal_loglinear", "resolve_algorithm", "dpo_loss", "make_pairs",
        "plan_updates",
    }
    for name in alg.__all__:
        getattr(alg, name)
    assert set(PRESETS) == {"grpo", "dr_grpo", "aipo", "decoupled_ppo", "a3po", "cispo", "rloo", "online_dpo"}
