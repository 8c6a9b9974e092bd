"""Config: YAML + overrides, documented fields, invalid combinations rejected at load."""
from __future__ import annotations

import pytest
from pydantic import BaseModel

from rl_loop.config import ConfigError, RLConfig, apply_overrides, load_config

VALID = """
model: {path: models/tiny-llama}
generation: {n_samples: 4, max_new_tokens: 64, reload_every: 2}
staleness: {max_staleness: 2}
algorithm: {name: aipo, rho: 3.0}
trainer: {batch_size_prompts: 2, micro_batch_size_seqs: 4, lr: 1e-6}
"""


def write(tmp_path, text):
    p = tmp_path / "run.yaml"
    p.write_text(text)
    return p


def test_yaml_and_overrides(tmp_path):
    cfg = load_config(write(tmp_path, VALID), ["trainer.lr=1e-5", "logging.tensorboard=false", "trainer.betas=[0.8, 0.9]"])
    assert cfg.generation.n_samples == 4 and cfg.trainer.lr == 1e-5 and cfg.logging.tensorboard is False
    assert cfg.trainer.betas == (0.8, 0.9)
    assert load_config(write(tmp_path, VALID)).trainer.lr == 1e-6  # YAML 1.1 reads 1e-6 as a string
    spec = cfg.algorithm_spec()
    assert (spec.name, spec.importance, spec.rho, spec.gradient_term) == ("aipo", "aipo", 3.0, "reinforce")


def test_defaults_are_valid_and_round_trip(tmp_path):
    cfg = load_config(None)
    again = load_config(write(tmp_path, cfg.to_yaml()))
    assert again == cfg


def test_preset_field_override_and_clip_off():
    cfg = load_config(None, ["algorithm.name=grpo", "algorithm.eps_high=0.28", "algorithm.clip_low_off=true"])
    spec = cfg.algorithm_spec()
    assert spec.eps_high == 0.28 and spec.eps_low is None and spec.aggregation == "seq_mean"


def test_max_len_defaults_to_max_new_tokens():
    spec = load_config(None, ["algorithm.name=dr_grpo", "generation.max_new_tokens=100"]).algorithm_spec()
    assert spec.aggregation == "max_len" and spec.max_len_tokens == 100
    spec = load_config(None, ["algorithm.name=dr_grpo", "algorithm.max_len_tokens=50"]).algorithm_spec()
    assert spec.max_len_tokens == 50


@pytest.mark.parametrize(
    "overrides, message",
    [
        (["generation.reload_every=4", "staleness.max_staleness=2"], "max_staleness=2 < generation.reload_every-1=3"),
        (["trainer.batch_size_prompts=3", "generation.n_samples=3", "trainer.micro_batch_size_seqs=2"], "not divisible"),
        (["trainer.world_size=3"], "world_size\\*trainer.micro_batch_size_seqs=12"),
        (["algorithm.name=a3po", "staleness.max_staleness=0"], "A-3PO"),
        (["algorithm.name=decoupled_ppo"], "recompute_logprobs"),
        (["algorithm.kl_coef=0.1"], "reference_path"),
        (["generation.n_samples=1", "trainer.micro_batch_size_seqs=1"], "at least 2 samples"),
        (["rewards.mode=http"], "verifier_url"),
        (["generation.max_new_tokens=4096"], "max_model_len_tokens"),
        (["trainer.lr=-1"], "trainer.lr"),
        (["algorithm.name=ppo9"], "algorithm.name"),
        (["trainer.learning_rate=1"], "trainer.learning_rate"),
        (["nonsense.x=1"], "nonsense"),
    ],
)
def test_invalid_combinations_rejected(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_valid_combinations_accepted():
    load_config(None, ["algorithm.name=decoupled_ppo", "trainer.recompute_logprobs=true"])
    load_config(None, ["algorithm.kl_coef=0.1", "model.reference_path=models/tiny-llama"])
    load_config(None, ["algorithm.name=a3po", "staleness.max_staleness=3", "generation.reload_every=4"])
    load_config(None, ["staleness.max_staleness=0"])  # synchronous


def test_bad_override_syntax_and_files(tmp_path):
    with pytest.raises(ConfigError, match="key.sub=value"):
        load_config(None, ["trainer.lr"])
    with pytest.raises(ConfigError, match="not a section"):
        load_config(None, ["trainer.lr=1", "trainer.lr.x=2"])
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
    with pytest.raises(ConfigError, match="mapping"):
        load_config(write(tmp_path, "- a\n- b\n"))
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(write(tmp_path, "a: [\n"))


def test_apply_overrides_parses_yaml_scalars():
    out = apply_overrides({"a": {"b": 1}}, ["a.b=2", "a.c=true", "a.d=null", "e.f=1e-3", "a.s=hello"])
    assert out == {"a": {"b": 2, "c": True, "d": None, "s": "hello"}, "e": {"f": 1e-3}}


def _walk(model: type[BaseModel], path=""):
    for name, field in model.model_fields.items():
        yield f"{path}{name}", field
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from _walk(ann, f"{path}{name}.")


def test_every_field_is_documented():
    missing = [p for p, f in _walk(RLConfig) if not (f.description and f.description.strip())]
    assert missing == []
