"""Advantage estimators on group rewards, against hand-computed values."""
from __future__ import annotations

import math

import pytest

torch = pytest.importorskip("torch")

from rl_loop.algorithms import compute_advantages, group_advantages


def adv(rewards, ids, estimator):
    return compute_advantages(torch.tensor(rewards, dtype=torch.float64), torch.tensor(ids), estimator).tolist()


def close(a, b, tol=1e-9):
    assert len(a) == len(b) and all(abs(x - y) <= tol for x, y in zip(a, b)), (a, b)


# Group (1, 0, 0, 1): mean 0.5, unbiased std sqrt((4 * 0.25) / 3) = sqrt(1/3).
R = [1.0, 0.0, 0.0, 1.0]
IDS = [0, 0, 0, 0]


def test_group_mean_baseline():
    close(adv(R, IDS, "group_mean"), [0.5, -0.5, -0.5, 0.5])


def test_grpo_normalised_by_unbiased_std():
    s = math.sqrt(1 / 3)
    close(adv(R, IDS, "grpo"), [0.5 / (s + 1e-6), -0.5 / (s + 1e-6), -0.5 / (s + 1e-6), 0.5 / (s + 1e-6)])


def test_rloo_leave_one_out():
    # sample 0: 1 - mean(0, 0, 1) = 2/3; sample 1: 0 - mean(1, 0, 1) = -2/3.
    close(adv(R, IDS, "rloo"), [2 / 3, -2 / 3, -2 / 3, 2 / 3])


def test_dr_grpo_has_no_std():
    close(adv([3.0, 1.0], [0, 0], "dr_grpo"), [1.0, -1.0])
    close(adv([3.0, 1.0], [0, 0], "grpo"), [1 / (math.sqrt(2) + 1e-6), -1 / (math.sqrt(2) + 1e-6)])


def test_ragged_interleaved_groups():
    # Group 7: rewards (1, 0, 0.5) at positions 0, 2, 4 -> mean 0.5.
    # Group 3: (0.25, 0.75) at positions 1, 3 -> mean 0.5; rloo n/(n-1) = 2: (-0.5, 0.5).
    # Group 9: a single sample -> no baseline -> 0.
    rewards = [1.0, 0.25, 0.0, 0.75, 0.5, 0.9]
    ids = [7, 3, 7, 3, 7, 9]
    close(adv(rewards, ids, "group_mean"), [0.5, -0.25, -0.5, 0.25, 0.0, 0.0])
    close(adv(rewards, ids, "rloo"), [0.75, -0.5, -0.75, 0.5, 0.0, 0.0])
    g = adv(rewards, ids, "grpo")
    s7 = math.sqrt((0.25 + 0.25 + 0) / 2)
    s3 = math.sqrt((0.0625 * 2) / 1)
    close(g, [0.5 / (s7 + 1e-6), -0.25 / (s3 + 1e-6), -0.5 / (s7 + 1e-6), 0.25 / (s3 + 1e-6), 0.0, 0.0])


def test_zero_variance_group_gives_zero_advantage():
    for est in ("group_mean", "grpo", "rloo", "dr_grpo"):
        close(adv([1.0, 1.0, 1.0], [0, 0, 0], est), [0.0, 0.0, 0.0])


def test_two_dimensional_helper_matches_flat():
    r = torch.tensor([[1.0, 0.0, 0.0, 1.0], [0.2, 0.4, 0.6, 0.8]], dtype=torch.float64)
    out = group_advantages(r, "group_mean")
    close(out[1].tolist(), [-0.3, -0.1, 0.1, 0.3])
    close(out[0].tolist(), [0.5, -0.5, -0.5, 0.5])


def test_no_gradient_and_dtype_kept():
    r = torch.tensor([1.0, 0.0], requires_grad=True)
    out = compute_advantages(r, torch.tensor([0, 0]), "grpo")
    assert not out.requires_grad and out.dtype == torch.float32


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="unknown advantage estimator 'ppo'"):
        adv([1.0], [0], "ppo")
    with pytest.raises(ValueError, match="NaN"):
        adv([float("nan"), 1.0], [0, 0], "grpo")
    with pytest.raises(ValueError, match="1-D"):
        compute_advantages(torch.zeros(2, 2), torch.zeros(2, 2, dtype=torch.long), "grpo")
