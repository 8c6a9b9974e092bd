"""The algorithmic core of the RL loop: advantages and the modular loss (RLAX eq. 3).

See ``rl_loop/ALGORITHMS.md`` for the formulas and the stable API.

Names are imported lazily (PEP 562) so that ``rl_loop.config``, which needs only the
presets, loads without torch (the controller's config check, the CLI's --help).
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ADVANTAGE_ESTIMATORS": "advantages",
    "compute_advantages": "advantages",
    "group_advantages": "advantages",
    "AGGREGATIONS": "aggregation",
    "Normaliser": "aggregation",
    "aggregation_weights": "aggregation",
    "GRADIENT_TERMS": "gradient_terms",
    "IMPORTANCE_MODES": "importance",
    "PROXIMAL_MODES": "importance",
    "a3po_alpha": "importance",
    "proximal_loglinear": "importance",
    "k3_kl": "kl",
    "dpo_loss": "dpo",
    "make_pairs": "dpo",
    "plan_updates": "updates",
    "LossInputs": "loss",
    "LossOutput": "loss",
    "compute_loss": "loss",
    "merge_stats": "loss",
    "logprob_gap_stats": "loss",
    "PRESETS": "presets",
    "AlgorithmConfig": "presets",
    "AlgorithmSpec": "presets",
    "resolve_algorithm": "presets",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'rl_loop.algorithms' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"rl_loop.algorithms.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
