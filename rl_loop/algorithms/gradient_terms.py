"""Gradient terms g(r, A): where the policy gradient comes from (RLAX eq. 3).

``r = exp(logp - log_anchor)`` carries the gradient; ``A`` is the per-token advantage.
Both return the per-token *objective* (to be maximised) and a mask of tokens whose
gradient the clipping removed or bounded (for the clip-fraction statistic).

- ``ppo_clip``: min(r A, clip(r, 1 - eps_low, 1 + eps_high) A). With eps_high > eps_low
  this is DAPO's clip-higher. The clipped branch has no gradient: clipping is a gradient
  mask (RLAX section 4.1).
- ``reinforce``: sg(clip(r, 1 - eps_low, 1 + eps_high)) A logp. CISPO (MiniMax-M1 eq. 4):
  the clipped weight is a stop-gradient factor, so every token keeps a gradient and the
  clipping only bounds its size. With r == 1 (AIPO, on-policy) it is plain REINFORCE.

``None`` for eps_low or eps_high means no clipping on that side.
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

GRADIENT_TERMS = ("ppo_clip", "reinforce")


def _clip(r: Tensor, eps_low: float | None, eps_high: float | None) -> Tensor:
    lo = None if eps_low is None else 1.0 - eps_low
    hi = None if eps_high is None else 1.0 + eps_high
    if lo is None and hi is None:
        return r
    return torch.clamp(r, min=lo, max=hi)


def ppo_clip(logp: Tensor, log_anchor: Tensor, adv: Tensor, eps_low: float | None, eps_high: float | None) -> tuple[Tensor, Tensor]:
    r = torch.exp(logp - log_anchor)
    unclipped = r * adv
    clipped = _clip(r, eps_low, eps_high) * adv
    objective = torch.minimum(unclipped, clipped)
    # The gradient is zero exactly where the clipped branch is the strict minimum.
    clipped_mask = (clipped < unclipped).detach()
    return objective, clipped_mask


def reinforce(logp: Tensor, log_anchor: Tensor, adv: Tensor, eps_low: float | None, eps_high: float | None) -> tuple[Tensor, Tensor]:
    r = torch.exp(logp.detach() - log_anchor)
    c = _clip(r, eps_low, eps_high)
    objective = c.detach() * adv * logp
    return objective, (c != r)


GRADIENT: dict[str, Callable[..., tuple[Tensor, Tensor]]] = {
    "ppo_clip": ppo_clip,
    "reinforce": reinforce,
}
