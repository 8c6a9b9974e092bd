"""Several optimizer updates per batch: PPO epochs x mini-batches.

With one update per batch the policy that starts the update is the policy being updated,
so a ratio against it is 1 and a PPO clip around it never binds (decoupled PPO then has no
trust region at all). PPO proper (Schulman et al. 2017) takes ``ppo_epochs`` passes over
the batch, each cut into ``mini_batches`` mini-batches, one optimizer step per mini-batch;
from the second update on the ratio pi_theta / pi_start moves away from 1 and the clip
bounds it. ``pi_start`` (the proximal policy of decoupled PPO) is the policy at the start
of the batch's first update, recomputed once per batch.

The plan is a pure function of (units, epochs, mini-batches, seed, version): the first epoch
keeps the batch order, later epochs use a seeded permutation, so runs (and resumed runs)
take identical updates. A "unit" is what must stay together: one sequence, or a DPO pair.
Each mini-batch is its own optimisation problem, so its loss is normalised by its own
counts (``Normaliser`` built from the mini-batch, all ranks), which keeps gradient
accumulation over micro-batches exact inside it.
"""
from __future__ import annotations

import random


def split_even(items: list[int], parts: int) -> list[list[int]]:
    """`parts` contiguous chunks whose sizes differ by at most one (no empty chunk)."""
    parts = max(1, min(parts, len(items)))
    q, r = divmod(len(items), parts)
    out, start = [], 0
    for p in range(parts):
        size = q + (1 if p < r else 0)
        out.append(items[start:start + size])
        start += size
    return out


def plan_updates(num_units: int, ppo_epochs: int = 1, mini_batches: int = 1, seed: int = 0,
                 version: int = 0) -> list[list[int]]:
    """Unit indices of each optimizer update, in order (ppo_epochs * min(mini_batches, units) updates)."""
    if ppo_epochs < 1 or mini_batches < 1:
        raise ValueError(f"ppo_epochs and mini_batches must be >= 1, got {ppo_epochs}, {mini_batches}")
    if num_units == 0:
        return []
    plan: list[list[int]] = []
    for epoch in range(ppo_epochs):
        order = list(range(num_units))
        if epoch > 0:
            random.Random(f"rl_loop-ppo:{seed}:{version}:{epoch}").shuffle(order)
        plan.extend(split_even(order, mini_batches))
    return plan
