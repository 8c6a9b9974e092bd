"""Named algorithms as small configurations of the modular loss (RLAX section 4.2).

An algorithm is a row of this table, not a branch in the trainer. The config's
``algorithm`` section names a preset and may override any field of it; the result is an
``AlgorithmSpec`` with every knob resolved, which is all the loss reads.

| preset | advantage | importance | gradient | clip (low, high) | aggregation |
| --- | --- | --- | --- | --- | --- |
| grpo | grpo | none (coupled pi/mu) | ppo_clip | 0.2, 0.2 | seq_mean (DeepSeekMath eq. 3) |
| dr_grpo | dr_grpo | none | ppo_clip | 0.2, 0.2 | max_len (Dr. GRPO) |
| aipo | group_mean | aipo (rho 4) | reinforce | none | token_mean (LlamaRL sec. 6, rho in [2, 10]) |
| decoupled_ppo | grpo | decoupled, recompute | ppo_clip | 0.2, 0.2 | token_mean (AReaL) |
| a3po | grpo | decoupled, loglinear | ppo_clip | 0.2, 0.2 | token_mean (A-3PO) |
| cispo | grpo | none | reinforce | none, 0.28 | token_mean (MiniMax-M1: only the upper bound is tuned) |
| rloo | rloo | none (coupled pi/mu) | ppo_clip | 0.2, 0.2 | seq_sum (Kool et al. 2019; Noukhovitch et al. app. B) |
| online_dpo | - | - | dpo (beta 0.1) | - | mean over pairs (Rafailov et al. 2023; Noukhovitch et al. sec. 3) |

``rloo`` is REINFORCE with the leave-one-out baseline on the *sequence* log-likelihood
(sum over tokens, mean over sequences: no 1/|o| normalisation), with the importance weight
pi/mu bounded PPO-style to [1 - eps, 1 + eps] as the Asynchronous RLHF paper's "Proximal
RLOO" (appendix B) does for off-policy data; the ratio is taken per token (RLAX eq. 3's
token-level form), not per sequence.

``online_dpo`` is not a policy-gradient loss: the trainer takes the best and the worst
completion of each group as a (chosen, rejected) pair and minimises the DPO loss against
the frozen reference model (``model.reference_path``); see ``dpo.py``.

The KL coefficient defaults to 0 everywhere: a KL term needs a reference model, which
the config must name explicitly (``model.reference_path``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

AdvantageName = Literal["group_mean", "grpo", "rloo", "dr_grpo"]
ImportanceName = Literal["none", "aipo", "decoupled"]
ProximalName = Literal["recompute", "loglinear"]
GradientName = Literal["ppo_clip", "reinforce"]
AggregationName = Literal["token_mean", "seq_mean", "seq_sum", "max_len"]
ObjectiveName = Literal["policy_gradient", "dpo"]
PresetName = Literal["grpo", "dr_grpo", "aipo", "decoupled_ppo", "a3po", "cispo", "rloo", "online_dpo"]

_BASE: dict[str, Any] = {
    "advantage": "grpo",
    "importance": "none",
    "proximal": "recompute",
    "gradient_term": "ppo_clip",
    "eps_low": 0.2,
    "eps_high": 0.2,
    "rho": 4.0,
    "aggregation": "token_mean",
    "kl_coef": 0.0,
    "adv_eps": 1e-6,
    "objective": "policy_gradient",
    "beta": 0.1,
}

PRESETS: dict[str, dict[str, Any]] = {
    "grpo": {**_BASE, "aggregation": "seq_mean"},
    "dr_grpo": {**_BASE, "advantage": "dr_grpo", "aggregation": "max_len"},
    "aipo": {**_BASE, "advantage": "group_mean", "importance": "aipo", "gradient_term": "reinforce",
             "eps_low": None, "eps_high": None},
    "decoupled_ppo": {**_BASE, "importance": "decoupled", "proximal": "recompute"},
    "a3po": {**_BASE, "importance": "decoupled", "proximal": "loglinear"},
    "cispo": {**_BASE, "gradient_term": "reinforce", "eps_low": None, "eps_high": 0.28},
    "rloo": {**_BASE, "advantage": "rloo", "aggregation": "seq_sum"},
    "online_dpo": {**_BASE, "objective": "dpo", "advantage": "group_mean"},
}


class AlgorithmConfig(BaseModel):
    """The ``algorithm`` config section: a preset name plus optional per-field overrides.

    Fields left unset (None) take the preset's value; see ``rl_loop/ALGORITHMS.md``.
    ``eps_low``/``eps_high`` cannot be unset by override to "no clip" with None (None
    means "use the preset"); use ``clip_low_off``/``clip_high_off`` for that.
    """

    model_config = ConfigDict(extra="forbid")

    name: PresetName = Field("grpo", description="Preset algorithm; the fields below override it.")
    advantage: AdvantageName | None = Field(None, description="Advantage estimator on group rewards.")
    importance: ImportanceName | None = Field(None, description="Importance weight (off-policy correction).")
    proximal: ProximalName | None = Field(
        None, description="Decoupled PPO proximal policy: recomputed log-probs or A-3PO log-linear interpolation."
    )
    gradient_term: GradientName | None = Field(None, description="ppo_clip (gradient mask) or reinforce (CISPO-style).")
    eps_low: float | None = Field(None, ge=0, lt=1, description="Lower clip: ratio >= 1 - eps_low.")
    eps_high: float | None = Field(None, ge=0, description="Upper clip: ratio <= 1 + eps_high (clip-higher if > eps_low).")
    clip_low_off: bool = Field(False, description="Disable the lower clip regardless of preset.")
    clip_high_off: bool = Field(False, description="Disable the upper clip regardless of preset.")
    rho: float | None = Field(None, gt=0, description="AIPO one-sided truncation of pi/mu (LlamaRL: 2..10).")
    aggregation: AggregationName | None = Field(None, description="token_mean, seq_mean, seq_sum or max_len.")
    max_len_tokens: int | None = Field(
        None, ge=1, description="L_max of max_len aggregation; default generation.max_new_tokens."
    )
    kl_coef: float | None = Field(None, ge=0, description="Coefficient of the k3 KL to the reference model.")
    adv_eps: float | None = Field(None, gt=0, description="GRPO std epsilon: (r - mean) / (std + adv_eps).")
    objective: ObjectiveName | None = Field(
        None, description="policy_gradient (the modular loss) or dpo (online DPO on best/worst pairs of each group)."
    )
    beta: float | None = Field(None, gt=0, description="DPO inverse temperature: margin = beta * (h_chosen - h_rejected).")


@dataclass(frozen=True)
class AlgorithmSpec:
    """Every loss knob resolved; the only thing ``compute_loss`` reads."""

    advantage: str
    importance: str
    proximal: str
    gradient_term: str
    eps_low: float | None
    eps_high: float | None
    rho: float
    aggregation: str
    max_len_tokens: int | None
    kl_coef: float
    adv_eps: float
    objective: str = "policy_gradient"
    beta: float = 0.1
    name: str = "custom"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def resolve_algorithm(cfg: AlgorithmConfig | str, max_new_tokens: int | None = None) -> AlgorithmSpec:
    """Preset + overrides -> spec. ``max_new_tokens`` is the default L_max for max_len."""
    if isinstance(cfg, str):
        cfg = AlgorithmConfig(name=cfg)
    values = dict(PRESETS[cfg.name])
    for key in values:
        override = getattr(cfg, key, None)
        if override is not None:
            values[key] = override
    if cfg.clip_low_off:
        values["eps_low"] = None
    if cfg.clip_high_off:
        values["eps_high"] = None
    max_len = cfg.max_len_tokens if cfg.max_len_tokens is not None else max_new_tokens
    if values["aggregation"] == "max_len" and not max_len:
        raise ValueError("aggregation max_len needs algorithm.max_len_tokens or generation.max_new_tokens")
    return AlgorithmSpec(**values, max_len_tokens=max_len, name=cfg.name)
