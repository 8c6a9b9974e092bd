"""Group advantage estimators: rewards of one prompt's samples -> one advantage each.

Every estimator here is critic-free: the baseline comes from the other samples of the
same prompt (a "group"). Groups may be ragged (a sample dropped for an internal error
leaves its group one short), so rewards arrive flat with a group id per sample.

- ``group_mean``: r - mean(group). LlamaRL section 6 (constant baseline per prompt).
- ``grpo``: (r - mean) / (std + eps). DeepSeekMath eq. 3; std is the unbiased (n - 1)
  estimate, as torch.std and the common open implementations use.
- ``rloo``: r_i - mean of the *other* samples = n / (n - 1) * (r_i - mean) (Kool et al. 2019).
- ``dr_grpo``: r - mean with no std division (Dr. GRPO, Liu et al. 2025); its length
  bias fix lives in the ``max_len`` aggregation, not here.

A group of one sample has no baseline to compare with: its advantage is 0 for every
estimator (it carries no learning signal, like a zero-variance group).
"""
from __future__ import annotations

from typing import Callable

import torch
from torch import Tensor

ADVANTAGE_ESTIMATORS = ("group_mean", "grpo", "rloo", "dr_grpo")


def _group_moments(rewards: Tensor, group_ids: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """Per-sample (group mean, unbiased group std, group size), gathered back to [N]."""
    _, inverse = torch.unique(group_ids.to(rewards.device), return_inverse=True)
    num_groups = int(inverse.max().item()) + 1 if inverse.numel() else 0
    r = rewards.to(torch.float64)
    zeros = torch.zeros(num_groups, dtype=torch.float64, device=r.device)
    count = zeros.clone().index_add_(0, inverse, torch.ones_like(r))
    total = zeros.clone().index_add_(0, inverse, r)
    mean = total / count
    centred = r - mean[inverse]
    sq = zeros.clone().index_add_(0, inverse, centred * centred)
    var = torch.where(count > 1, sq / (count - 1).clamp(min=1), torch.zeros_like(sq))
    return mean[inverse], var.sqrt()[inverse], count[inverse]


def _group_mean(r: Tensor, mean: Tensor, std: Tensor, n: Tensor, eps: float) -> Tensor:
    return r - mean


def _grpo(r: Tensor, mean: Tensor, std: Tensor, n: Tensor, eps: float) -> Tensor:
    return (r - mean) / (std + eps)


def _rloo(r: Tensor, mean: Tensor, std: Tensor, n: Tensor, eps: float) -> Tensor:
    scale = torch.where(n > 1, n / (n - 1).clamp(min=1), torch.zeros_like(n))
    return scale * (r - mean)


_ESTIMATORS: dict[str, Callable[[Tensor, Tensor, Tensor, Tensor, float], Tensor]] = {
    "group_mean": _group_mean,
    "grpo": _grpo,
    "rloo": _rloo,
    "dr_grpo": _group_mean,
}


def compute_advantages(
    rewards: Tensor, group_ids: Tensor, estimator: str, eps: float = 1e-6
) -> Tensor:
    """One advantage per sample; ``rewards`` [N] float, ``group_ids`` [N] int (any labels).

    Computed in float64 and returned in ``rewards``' dtype; never carries a gradient.
    """
    if estimator not in _ESTIMATORS:
        raise ValueError(f"unknown advantage estimator {estimator!r}; choose from {ADVANTAGE_ESTIMATORS}")
    if rewards.dim() != 1 or group_ids.shape != rewards.shape:
        raise ValueError(
            f"rewards and group_ids must both be 1-D of equal length, got {tuple(rewards.shape)} "
            f"and {tuple(group_ids.shape)}"
        )
    if not torch.isfinite(rewards).all():
        raise ValueError("rewards contain NaN or inf (an internal error must be dropped, not scored)")
    if rewards.numel() == 0:
        return rewards.detach().clone()
    mean, std, n = _group_moments(rewards.detach(), group_ids)
    adv = _ESTIMATORS[estimator](rewards.detach().to(torch.float64), mean, std, n, eps)
    return adv.to(rewards.dtype)


def group_advantages(rewards: Tensor, estimator: str, eps: float = 1e-6) -> Tensor:
    """Convenience for equal-size groups: ``rewards`` [G, n] -> advantages [G, n]."""
    if rewards.dim() != 2:
        raise ValueError(f"expected rewards of shape [groups, samples], got {tuple(rewards.shape)}")
    g, n = rewards.shape
    ids = torch.arange(g).repeat_interleave(n)
    return compute_advantages(rewards.reshape(-1), ids, estimator, eps).reshape(g, n)
