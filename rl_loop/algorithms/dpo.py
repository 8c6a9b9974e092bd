"""Online DPO: the preference loss of Rafailov et al. (2023) on pairs sampled by the loop.

The Asynchronous RLHF paper (Noukhovitch et al., ICLR 2025, sections 3.3 and A.3) finds
online DPO the most robust of the common RLHF losses to off-policy data: sample k
completions per prompt, take the best and the worst by reward as (chosen, rejected), and
minimise

    L = -mean_pairs log sigmoid(beta * ((log pi(y+) - log ref(y+)) - (log pi(y-) - log ref(y-))))

with sequence log-likelihoods log pi(y) = sum_t log pi(y_t | x, y_<t) and a frozen
reference policy ``ref``. There is no importance weight: DPO's contrastive loss does not
estimate an on-policy expectation, which is why it tolerates stale samples.

Pairing (``make_pairs``) skips ties: a group whose best and worst rewards are equal holds
no preference. In a batch the rows of a pair are adjacent, chosen first, and marked by
``LossInputs.dpo_role`` (+1 chosen, -1 rejected, 0 padding); micro-batches hold whole pairs.

Reported per pair (``dpo_*`` stats, merged weighted by pairs):
margin = beta * (h+ - h-) with h = log pi - log ref; accuracy = fraction with margin > 0;
implicit rewards beta * h+ and beta * h- (the reward DPO's policy implies).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import torch
import torch.nn.functional as F

from rl_loop.algorithms.aggregation import Normaliser

if TYPE_CHECKING:
    from rl_loop.algorithms.loss import LossInputs, LossOutput
    from rl_loop.algorithms.presets import AlgorithmSpec


def make_pairs(rewards: Sequence[float]) -> tuple[int, int] | None:
    """(chosen index, rejected index) of one group: first best and first worst; None on a tie."""
    if len(rewards) < 2:
        return None
    hi = max(range(len(rewards)), key=lambda i: (rewards[i], -i))
    lo = min(range(len(rewards)), key=lambda i: (rewards[i], i))
    if rewards[hi] == rewards[lo]:
        return None
    return hi, lo


def dpo_loss(inputs: "LossInputs", spec: "AlgorithmSpec", normaliser: Normaliser | None = None) -> "LossOutput":
    from rl_loop.algorithms.loss import LossOutput

    if inputs.ref_logprobs is None:
        raise ValueError("online DPO needs LossInputs.ref_logprobs from the reference model (model.reference_path)")
    if inputs.dpo_role is None:
        raise ValueError("online DPO needs LossInputs.dpo_role (+1 chosen, -1 rejected, 0 padding)")
    dtype = torch.float64 if inputs.logprobs.dtype == torch.float64 else torch.float32
    mask = inputs.mask.to(torch.bool)
    logp = torch.where(mask, inputs.logprobs.to(dtype), torch.zeros((), dtype=dtype, device=mask.device))
    ref = torch.where(mask, inputs.ref_logprobs.detach().to(dtype), torch.zeros((), dtype=dtype, device=mask.device))
    h = (logp - ref).sum(-1)  # [B] sequence log-ratio to the reference
    role = inputs.dpo_role.to(torch.long)
    chosen = torch.nonzero(role == 1).flatten()
    if chosen.numel() and (int(chosen.max()) + 1 >= role.numel() or bool((role[chosen + 1] != -1).any())):
        raise ValueError("dpo_role: each chosen row (+1) must be followed by its rejected row (-1)")
    if int((role == -1).sum()) != chosen.numel():
        raise ValueError("dpo_role: as many rejected rows (-1) as chosen rows (+1) are needed")
    n_local = chosen.numel()
    if normaliser is None:
        normaliser = Normaliser(num_tokens=int(mask.sum()), num_sequences=2 * n_local)
    n_pairs = max(normaliser.num_sequences // 2, 1)
    margin = spec.beta * (h[chosen] - h[chosen + 1])
    per_pair = -F.logsigmoid(margin)
    loss = per_pair.sum() * (normaliser.dp_world_size / n_pairs)
    if n_local == 0:
        loss = loss + 0.0 * logp.sum()  # keep the graph (and FSDP's backward hooks) alive
    share = per_pair.detach().sum().item() / n_pairs
    stats: dict[str, float] = {
        "loss": share,
        "policy_loss": share,
        "kl_loss": 0.0,
        "num_tokens": float(mask[role != 0].sum().item()),
        "num_sequences": float(2 * n_local),
        "num_pairs": float(n_local),
    }
    if n_local:
        m = margin.detach().to(torch.float64)
        stats["dpo_margin_mean"] = m.mean().item()
        stats["dpo_accuracy"] = (m > 0).to(torch.float64).mean().item()
        stats["dpo_chosen_reward_mean"] = (spec.beta * h[chosen].detach()).to(torch.float64).mean().item()
        stats["dpo_rejected_reward_mean"] = (spec.beta * h[chosen + 1].detach()).to(torch.float64).mean().item()
        if inputs.entropy is not None:
            stats["entropy_mean"] = inputs.entropy.detach()[mask].to(torch.float64).mean().item()
    return LossOutput(loss=loss, stats=stats)
