"""The modular policy loss (RLAX eq. 3), one function for every algorithm.

    loss = -sum_{i,t} agg_{i,t} * w_{i,t} * g(r_{i,t}, A_{i,t})  +  kl_coef * sum_{i,t} agg_{i,t} * k3_{i,t}

``w`` (importance.py) is detached; ``g`` (gradient_terms.py) carries the gradient through
the ratio ``r = pi / anchor``; ``agg`` (aggregation.py) is fixed by the whole optimizer
step's batch so micro-batch losses add up to the full-batch loss. Which option fills
each slot comes from an ``AlgorithmSpec`` (presets.py); nothing here branches on an
algorithm's name.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import torch
from torch import Tensor

from rl_loop.algorithms.aggregation import Normaliser, aggregation_weights
from rl_loop.algorithms.gradient_terms import GRADIENT, GRADIENT_TERMS
from rl_loop.algorithms.importance import importance_weight
from rl_loop.algorithms.kl import k3_kl
from rl_loop.algorithms.presets import AlgorithmSpec


@dataclass
class LossInputs:
    """One (micro-)batch of completions, tensors [B, T] aligned on completion tokens."""

    logprobs: Tensor
    behaviour_logprobs: Tensor
    advantages: Tensor
    mask: Tensor
    proximal_logprobs: Tensor | None = None
    staleness: Tensor | None = None
    ref_logprobs: Tensor | None = None
    entropy: Tensor | None = None
    start_logprobs: Tensor | None = None
    dpo_role: Tensor | None = None

    def validate(self) -> None:
        shape = self.logprobs.shape
        if self.logprobs.dim() != 2:
            raise ValueError(f"logprobs must be [B, T], got {tuple(shape)}")
        for name in ("behaviour_logprobs", "mask", "proximal_logprobs", "ref_logprobs", "entropy", "start_logprobs"):
            t = getattr(self, name)
            if t is not None and t.shape != shape:
                raise ValueError(f"{name} has shape {tuple(t.shape)}, expected {tuple(shape)} like logprobs")
        for name in ("advantages", "staleness"):
            t = getattr(self, name)
            if t is not None and t.shape not in (shape, shape[:1]):
                raise ValueError(f"{name} has shape {tuple(t.shape)}, expected [B] or [B, T] with B, T = {tuple(shape)}")
        if self.dpo_role is not None and self.dpo_role.shape != shape[:1]:
            raise ValueError(f"dpo_role has shape {tuple(self.dpo_role.shape)}, expected [B] with B = {shape[0]}")


@dataclass
class LossOutput:
    loss: Tensor
    stats: dict[str, float] = field(default_factory=dict)


def _masked_stats(prefix: str, values: Tensor, sel: Tensor, out: dict[str, float]) -> None:
    v = values.detach()[sel].to(torch.float64)
    if v.numel() == 0:
        return
    out[f"{prefix}_mean"] = v.mean().item()
    out[f"{prefix}_max"] = v.max().item()
    out[f"{prefix}_min"] = v.min().item()


def logprob_gap_stats(logprobs: Tensor, other_logprobs: Tensor, mask: Tensor, prefix: str = "logprob_gap") -> dict[str, float]:
    """|logprobs - other| over masked tokens: mean, p95, max (RLAX section 5 alignment check).

    ``compute_loss`` reports it against the behaviour log-probs; a trainer that feeds
    recomputed log-probs as behaviour (RLAX 5.1) calls it itself for generator vs trainer.
    """
    m = mask.to(torch.bool)
    gap = (logprobs.detach() - other_logprobs.detach()).abs()[m].to(torch.float64)
    if gap.numel() == 0:
        return {}
    return {
        f"{prefix}_mean": gap.mean().item(),
        f"{prefix}_p95": torch.quantile(gap, 0.95).item(),
        f"{prefix}_max": gap.max().item(),
    }


def compute_loss(inputs: LossInputs, spec: AlgorithmSpec, normaliser: Normaliser | None = None) -> LossOutput:
    """Loss to minimise (scalar tensor with gradient) and detached statistics."""
    inputs.validate()
    if spec.objective == "dpo":
        from rl_loop.algorithms.dpo import dpo_loss

        return dpo_loss(inputs, spec, normaliser)
    if spec.objective != "policy_gradient":
        raise ValueError(f"unknown objective {spec.objective!r}; choose from policy_gradient, dpo")
    if spec.gradient_term not in GRADIENT:
        raise ValueError(f"unknown gradient term {spec.gradient_term!r}; choose from {GRADIENT_TERMS}")
    compute_dtype = torch.float64 if inputs.logprobs.dtype == torch.float64 else torch.float32
    logp = inputs.logprobs.to(compute_dtype)
    mu = inputs.behaviour_logprobs.detach().to(compute_dtype)
    mask = inputs.mask.to(torch.bool)
    maskf = mask.to(compute_dtype)
    adv = inputs.advantages.detach().to(compute_dtype)
    if adv.dim() == 1:
        adv = adv[:, None].expand_as(logp)
    cast = LossInputs(
        logprobs=logp,
        behaviour_logprobs=mu,
        advantages=adv,
        mask=mask,
        proximal_logprobs=None if inputs.proximal_logprobs is None else inputs.proximal_logprobs.detach().to(compute_dtype),
        staleness=inputs.staleness,
        ref_logprobs=None if inputs.ref_logprobs is None else inputs.ref_logprobs.detach().to(compute_dtype),
        start_logprobs=None if inputs.start_logprobs is None else inputs.start_logprobs.detach().to(compute_dtype),
    )
    norm = normaliser if normaliser is not None else Normaliser.from_mask(mask)
    agg = aggregation_weights(maskf, spec.aggregation, norm, spec.max_len_tokens).to(compute_dtype)

    weight, log_anchor, extra = importance_weight(cast, spec)
    # Padding positions may hold arbitrary numbers (e.g. -inf logprobs); keep them out of
    # exp() so no NaN reaches the gradient through a zero aggregation weight.
    zeros = torch.zeros_like(logp)
    safe_logp = torch.where(mask, logp, zeros)
    safe_anchor = torch.where(mask, log_anchor, zeros)
    weight = torch.where(mask, weight, zeros)
    objective, clipped = GRADIENT[spec.gradient_term](safe_logp, safe_anchor, adv, spec.eps_low, spec.eps_high)
    policy_loss = -(agg * weight * objective).sum()

    kl_loss = torch.zeros((), dtype=compute_dtype, device=logp.device)
    kl_tok = None
    if cast.ref_logprobs is not None:
        kl_tok = k3_kl(safe_logp, torch.where(mask, cast.ref_logprobs, zeros))
    if spec.kl_coef > 0:
        if kl_tok is None:
            raise ValueError("kl_coef > 0 needs LossInputs.ref_logprobs from the reference model")
        kl_loss = spec.kl_coef * (agg * kl_tok).sum()
    loss = policy_loss + kl_loss

    # Reported losses are this micro-batch's share of the global loss (the dp_world_size
    # factor that turns the gradient average into a sum is taken back out), so summing
    # them over every micro-batch of every rank gives the full-batch loss.
    dp = float(norm.dp_world_size)
    stats: dict[str, float] = {
        "loss": loss.item() / dp,
        "policy_loss": policy_loss.item() / dp,
        "kl_loss": float(kl_loss.item()) / dp,
        "num_tokens": float(mask.sum().item()),
        "num_sequences": float(mask.shape[0]),
    }
    if mask.any():
        _masked_stats("importance_weight", weight, mask, stats)
        _masked_stats("ratio", torch.exp(safe_logp.detach() - safe_anchor), mask, stats)
        stats.update(logprob_gap_stats(logp, mu, mask))
        _masked_stats("behaviour_ratio", torch.exp(safe_logp.detach() - torch.where(mask, mu, zeros)), mask, stats)
        stats["clip_fraction"] = clipped[mask].to(torch.float64).mean().item()
        a = adv[mask].to(torch.float64)
        stats["advantage_mean"] = a.mean().item()
        stats["advantage_std"] = a.std(unbiased=False).item()
        if "truncated" in extra:
            stats["truncated_fraction"] = extra["truncated"][mask].to(torch.float64).mean().item()
        if "alpha" in extra:
            stats["a3po_alpha_mean"] = extra["alpha"][mask].to(torch.float64).mean().item()
        if kl_tok is not None:
            stats["kl_mean"] = kl_tok.detach()[mask].to(torch.float64).mean().item()
        if inputs.entropy is not None:
            stats["entropy_mean"] = inputs.entropy.detach()[mask].to(torch.float64).mean().item()
    return LossOutput(loss=loss, stats=stats)


def merge_stats(parts: list[dict[str, float]]) -> dict[str, float]:
    """Combine per-micro-batch stats into step stats.

    ``num_*``, ``loss``, ``policy_loss``, ``kl_loss`` are summed (the losses are already
    globally normalised); ``*_max``/``*_min`` take the max/min; every other key is a
    token-weighted mean (exact for means; an approximation for ``logprob_gap_p95``).
    """
    out: dict[str, float] = {}
    summed = {"loss", "policy_loss", "kl_loss"}
    keys = {k for p in parts for k in p}
    for key in keys:
        present = [p for p in parts if key in p]
        if key.startswith("num_") or key in summed:
            out[key] = sum(p[key] for p in present)
        elif key.endswith("_max"):
            out[key] = max(p[key] for p in present)
        elif key.endswith("_min"):
            out[key] = min(p[key] for p in present)
        elif key.startswith("dpo_"):  # per-pair statistics: weighted by pairs, not tokens
            weights = [p.get("num_pairs", 0.0) for p in present]
            total = sum(weights)
            out[key] = sum(w * p[key] for w, p in zip(weights, present)) / total if total else 0.0
        else:
            weights = [p.get("num_tokens", 1.0) for p in present]
            total = sum(weights)
            out[key] = sum(w * p[key] for w, p in zip(weights, present)) / total if total else 0.0
    return out
