"""Aggregation weights: how per-token terms become one scalar (RLAX eq. 3, "agg").

The loss is a weighted *sum* over tokens with weights fixed by the whole optimizer
step's batch, never by the micro-batch. That is what makes gradient accumulation exact:
summing micro-batch losses gives the full-batch loss, term by term (a per-micro-batch
mean would weight a short micro-batch's tokens more).

- ``token_mean``: 1 / N_tokens over the global batch (DAPO token-level loss).
- ``seq_mean``: 1 / (N_seqs * len_i): mean over each sequence, then over sequences
  (original GRPO, 1/G sum_i 1/|o_i| sum_t).
- ``seq_sum``: 1 / N_seqs: the sequence's summed log-likelihood, averaged over sequences
  (REINFORCE / RLOO as Kool et al. and Ahmadian et al. write it: no length normalisation).
- ``max_len``: 1 / (N_seqs * L_max) with a constant L_max (Dr. GRPO: no length bias).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch
from torch import Tensor

AGGREGATIONS = ("token_mean", "seq_mean", "seq_sum", "max_len")


@dataclass(frozen=True)
class Normaliser:
    """Global counts for one optimizer step (all micro-batches, all data-parallel ranks).

    ``dp_world_size``: FSDP/DDP average gradients over ranks; the loss is multiplied by
    it so that the average becomes the sum the weights were computed for.
    """

    num_tokens: int
    num_sequences: int
    dp_world_size: int = 1

    def __post_init__(self) -> None:
        if self.num_tokens < 0 or self.num_sequences < 0 or self.dp_world_size < 1:
            raise ValueError(f"invalid normaliser {self}")

    @classmethod
    def from_mask(cls, mask: Tensor, dp_world_size: int = 1) -> "Normaliser":
        """Counts from the full batch's [B, T] mask (B sequences, each counted once)."""
        m = mask.to(torch.bool)
        return cls(int(m.sum().item()), int(m.shape[0]), dp_world_size)


def _token_mean(mask: Tensor, norm: Normaliser, max_len: int | None) -> Tensor:
    return mask / max(norm.num_tokens, 1)


def _seq_mean(mask: Tensor, norm: Normaliser, max_len: int | None) -> Tensor:
    lengths = mask.sum(dim=-1, keepdim=True).clamp(min=1)
    return mask / lengths / max(norm.num_sequences, 1)


def _seq_sum(mask: Tensor, norm: Normaliser, max_len: int | None) -> Tensor:
    return mask / max(norm.num_sequences, 1)


def _max_len(mask: Tensor, norm: Normaliser, max_len: int | None) -> Tensor:
    if not max_len or max_len < 1:
        raise ValueError("max_len aggregation needs max_len_tokens >= 1")
    return mask / (float(max_len) * max(norm.num_sequences, 1))


AGGREGATION: dict[str, Callable[[Tensor, Normaliser, int | None], Tensor]] = {
    "token_mean": _token_mean,
    "seq_mean": _seq_mean,
    "seq_sum": _seq_sum,
    "max_len": _max_len,
}


def aggregation_weights(mask: Tensor, mode: str, norm: Normaliser, max_len: int | None = None) -> Tensor:
    """[B, T] detached weights; ``sum(weights * per_token)`` is the aggregated term."""
    if mode not in AGGREGATION:
        raise ValueError(f"unknown aggregation {mode!r}; choose from {AGGREGATIONS}")
    w = AGGREGATION[mode](mask.to(torch.float64), norm, max_len)
    return (w * norm.dp_world_size).detach()
