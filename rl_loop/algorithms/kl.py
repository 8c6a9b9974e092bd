"""KL regulariser against a frozen reference policy.

k3 estimator (Schulman 2020, "Approximating KL divergence"; DeepSeekMath eq. 4): with
``delta = ref - logp`` per sampled token, ``k3 = exp(delta) - delta - 1``. It is unbiased
for KL(pi || ref) under samples from pi, always >= 0, and lower-variance than -delta.
"""
from __future__ import annotations

import torch
from torch import Tensor


def k3_kl(logprobs: Tensor, ref_logprobs: Tensor) -> Tensor:
    """Per-token k3; carries the gradient of ``logprobs``."""
    delta = ref_logprobs.detach() - logprobs
    return torch.exp(delta) - delta - 1.0
