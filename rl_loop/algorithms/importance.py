"""Importance weights: the off-policy correction of the modular loss (RLAX eq. 3).

Each option returns ``(weight, log_anchor)``:

- ``weight`` multiplies the gradient term and is always detached. RLAX section 4 asks
  for this "for conceptual and engineering rigor": the correction rescales the gradient
  but is never itself a source of gradient.
- ``log_anchor`` is what the gradient term's ratio ``r = exp(logp - log_anchor)`` is
  measured against; the trust region (PPO clip) lives around that anchor.

Options:

- ``none``: w = 1, anchor = behaviour policy mu. The ratio pi/mu then does both jobs, as in
  coupled PPO / GRPO / CISPO.
- ``aipo``: w = min(pi/mu, rho), anchor = sg(pi) so r == 1 (LlamaRL section 6: one-sided
  truncation of the ratio, a plain policy gradient otherwise).
- ``decoupled``: w = pi_prox / mu, anchor = pi_prox (decoupled PPO, Hilton et al. 2022;
  A-3PO eq. 2). pi_prox comes from a recompute forward pass or from A-3PO's log-linear
  interpolation between mu and the current policy (eqs. 3-4).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import torch
from torch import Tensor

if TYPE_CHECKING:
    from rl_loop.algorithms.loss import LossInputs
    from rl_loop.algorithms.presets import AlgorithmSpec

IMPORTANCE_MODES = ("none", "aipo", "decoupled")
PROXIMAL_MODES = ("recompute", "loglinear")


def a3po_alpha(staleness: Tensor) -> Tensor:
    """A-3PO eq. 4: alpha = 1/d for staleness d >= 1, 0 for d = 0 (then pi_prox = pi_theta)."""
    d = staleness.to(torch.float64)
    if (d < 0).any():
        raise ValueError("staleness must be >= 0 (a rollout newer than the trainer is a bug)")
    return torch.where(d >= 1, 1.0 / d.clamp(min=1.0), torch.zeros_like(d))


def proximal_loglinear(behaviour_logprobs: Tensor, logprobs: Tensor, staleness: Tensor) -> Tensor:
    """A-3PO eq. 3 / listing 1: log pi_prox = alpha log mu + (1 - alpha) sg(log pi_theta).

    ``staleness`` is per sequence [B] or per token [B, T]; the result is detached.
    """
    alpha = a3po_alpha(staleness)
    if alpha.dim() == 1 and logprobs.dim() == 2:
        alpha = alpha[:, None]
    alpha = alpha.to(logprobs.dtype)
    return (alpha * behaviour_logprobs + (1.0 - alpha) * logprobs.detach()).detach()


def _none(x: "LossInputs", spec: "AlgorithmSpec") -> tuple[Tensor, Tensor, dict[str, Tensor]]:
    mu = x.behaviour_logprobs.detach()
    return torch.ones_like(mu), mu, {}


def _aipo(x: "LossInputs", spec: "AlgorithmSpec") -> tuple[Tensor, Tensor, dict[str, Tensor]]:
    ratio = torch.exp(x.logprobs.detach() - x.behaviour_logprobs.detach())
    weight = torch.clamp(ratio, max=spec.rho)
    return weight, x.logprobs.detach(), {"truncated": (ratio > spec.rho).to(ratio.dtype)}


def _decoupled(x: "LossInputs", spec: "AlgorithmSpec") -> tuple[Tensor, Tensor, dict[str, Tensor]]:
    extra: dict[str, Tensor] = {}
    if spec.proximal == "recompute":
        if x.proximal_logprobs is None:
            raise ValueError("proximal=recompute needs LossInputs.proximal_logprobs (trainer.recompute_logprobs)")
        prox = x.proximal_logprobs.detach()
    elif spec.proximal == "loglinear":
        if x.staleness is None:
            raise ValueError("proximal=loglinear (A-3PO) needs LossInputs.staleness")
        # With several updates per batch the interpolation is towards the policy at the start
        # of the batch's update (start_logprobs), so the trust region does not move with
        # every mini-batch; with one update pi_start == pi_theta and no extra forward is needed.
        toward = x.logprobs if x.start_logprobs is None else x.start_logprobs
        prox = proximal_loglinear(x.behaviour_logprobs.detach(), toward, x.staleness)
        alpha = a3po_alpha(x.staleness)
        extra["alpha"] = (alpha[:, None] if alpha.dim() == 1 else alpha).expand_as(prox).to(prox.dtype)
    else:
        raise ValueError(f"unknown proximal policy {spec.proximal!r}; choose from {PROXIMAL_MODES}")
    weight = torch.exp(prox - x.behaviour_logprobs.detach())
    return weight, prox, extra


IMPORTANCE: dict[str, Callable[["LossInputs", "AlgorithmSpec"], tuple[Tensor, Tensor, dict[str, Tensor]]]] = {
    "none": _none,
    "aipo": _aipo,
    "decoupled": _decoupled,
}


def importance_weight(x: "LossInputs", spec: "AlgorithmSpec") -> tuple[Tensor, Tensor, dict[str, Tensor]]:
    """(detached weight [B, T], detached log anchor [B, T], per-token extras for stats)."""
    if spec.importance not in IMPORTANCE:
        raise ValueError(f"unknown importance weight {spec.importance!r}; choose from {IMPORTANCE_MODES}")
    weight, anchor, extra = IMPORTANCE[spec.importance](x, spec)
    return weight.detach(), anchor.detach(), extra
