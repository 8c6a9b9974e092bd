"""Typed configuration of an RL run, loaded from YAML plus command-line overrides.

One pydantic model per section, every field documented and unit-named, unknown keys
rejected. Combinations that cannot work are rejected at load with a message naming the
fields (``RLConfig._check_combinations``), not discovered hours into a run.

    cfg = load_config("run.yaml", ["algorithm.name=aipo", "trainer.lr=1e-6"])

Override values are parsed as YAML scalars (``true``, ``3``, ``1e-6``, ``[1, 2]``, ``null``).
Sections owned by the systems side (generation, trainer, checkpoint, ...) may gain fields;
add them to the section's model, never as loose top-level keys.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal, Sequence

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rl_loop.algorithms.presets import AlgorithmConfig, AlgorithmSpec, resolve_algorithm
from rl_loop.prompts import PromptOptions


class ConfigError(ValueError):
    """The configuration file, an override or a combination of fields is invalid."""


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class ModelConfig(_Section):
    path: str = Field("models/tiny-llama", description="HuggingFace model directory the policy starts from.")
    dtype: Literal["float32", "bfloat16", "float16"] = Field(
        "float32", description="Parameter/compute dtype for trainer and generators (float32 on CPU)."
    )
    max_model_len_tokens: int = Field(2048, ge=16, description="Prompt + completion length limit, tokens.")
    reference_path: str | None = Field(
        None, description="Frozen reference model for the KL term (None: no reference, kl_coef must be 0)."
    )


class DataConfig(_Section):
    store_uri: str = Field("file://data/store", description="Problem store URI (file://DIR or s3://bucket/prefix).")
    problem_ids: list[str] | None = Field(None, description="Explicit problem ids (None: every problem matching the filters).")
    splits: list[Literal["train", "heldout"]] = Field(["train"], description="Manifest splits to train on.")
    kinds: list[Literal["stdio", "function", "math"]] = Field(
        ["stdio", "function"], description="Problem kinds to train on."
    )
    language: str = Field("python", description="Language the model is asked to write (sandbox language key).")
    prompt: PromptOptions = Field(default_factory=PromptOptions, description="Prompt rendering options.")


class GenerationConfig(_Section):
    n_samples: int = Field(8, ge=1, description="Completions sampled per prompt (the group size).")
    temperature: float = Field(1.0, gt=0, description="Sampling temperature.")
    top_p: float = Field(1.0, gt=0, le=1, description="Nucleus sampling mass.")
    max_new_tokens: int = Field(512, ge=1, description="Completion length limit, tokens.")
    num_generators: int = Field(1, ge=1, description="Number of generator (vLLM) engines.")
    reload_every: int = Field(
        1, ge=1, description="Generators load new weights every k trainer versions (RLAX reload staleness)."
    )
    prompts_per_call: int = Field(
        0, ge=0, description="Prompts per generator call (0: trainer.batch_size_prompts). Smaller calls overlap finer."
    )
    kv_cache_gib: int = Field(1, ge=1, description="vLLM CPU KV-cache size, GiB (VLLM_CPU_KVCACHE_SPACE; CPU build only).")
    gpu_memory_utilization: float = Field(0.5, gt=0, le=1, description="vLLM GPU memory share (GPU build only).")
    interruptible: bool = Field(
        False, description="Partial rollouts: generate in segments of segment_tokens; a sequence still running when "
        "the schedule moves to a newer version continues under the new weights (each token keeps its version)."
    )
    segment_tokens: int = Field(64, ge=1, description="Tokens per generation segment (generation.interruptible).")
    cpu_cores: list[int] | None = Field(
        None, description="CPU cores the generator engines run on (CPU build; None: no pinning), split evenly "
        "between engines. Async runs must give generators and trainer.cpu_cores disjoint cores (they run at once); "
        "a synchronous run may give both the same cores (they take turns).")
    max_groups_per_step: int = Field(
        0, ge=0, description="Give up with an error after this many groups judged without filling one batch "
        "(0: 50 x batch_size_prompts); stops a run whose every group is filtered from looping forever."
    )


class RewardsConfig(_Section):
    mode: Literal["embedded", "http"] = Field(
        "embedded", description="Verifier in-process (embedded) or over HTTP at verifier_url."
    )
    verifier_url: str | None = Field(None, description="Base URL of the verifier service (mode=http).")
    backend: Literal["local", "docker", "lambda"] = Field("local", description="Sandbox backend (mode=embedded).")
    reward_rule: Literal["all_pass", "fraction"] = Field(
        "all_pass", description="1 if every test passes, else 0 (all_pass); or the fraction of tests passed."
    )
    ie_retries: int = Field(
        2, ge=0, description="Retries of a sample whose judging hit an internal error; then it is dropped, never scored 0."
    )
    timeout_s: float = Field(120.0, gt=0, description="Per-request verifier timeout, seconds.")


class FilteringConfig(_Section):
    dynamic: bool = Field(True, description="Drop groups whose rewards are all equal and refill (DAPO / RLAX 6.2).")


class StalenessConfig(_Section):
    max_staleness: int = Field(
        1, ge=0, description="Trainer accepts a rollout at most this many versions old (0: synchronous on-policy)."
    )


class TrainerConfig(_Section):
    world_size: int = Field(1, ge=1, description="Trainer processes (torchrun ranks, data-parallel FSDP).")
    lr: float = Field(1e-6, ge=0, description="AdamW learning rate.")
    betas: tuple[float, float] = Field((0.9, 0.999), description="AdamW betas.")
    weight_decay: float = Field(0.0, ge=0, description="AdamW weight decay.")
    grad_clip: float | None = Field(1.0, gt=0, description="Global gradient-norm clip (None: off).")
    batch_size_prompts: int = Field(8, ge=1, description="Prompts (groups) per optimizer step.")
    micro_batch_size_seqs: int = Field(4, ge=1, description="Sequences per forward/backward on one rank.")
    recompute_logprobs: bool = Field(
        False, description="Recompute old log-probs with the trainer before the update (RLAX 5.1; decoupled PPO recompute)."
    )
    behaviour_logprobs: Literal["generator", "recomputed"] = Field(
        "generator", description="mu in the loss: the generator's log-probs, or the trainer's recomputed ones (RLAX 5.1) "
        "on every token sampled by the trainer's current version (stale tokens keep the generator's: the trainer no "
        "longer holds their weights). The generator-vs-trainer gap stays logged (loss/recompute_gap_*)."
    )
    ppo_epochs: int = Field(
        1, ge=1, description="Passes over each batch (PPO epochs); > 1 lets the clip bind around pi_start."
    )
    mini_batches: int = Field(
        1, ge=1, description="Optimizer steps per pass: the batch is cut into this many mini-batches."
    )
    seed: int = Field(0, description="Seed of every RNG the run owns.")
    total_steps: int = Field(100, ge=1, description="Optimizer steps to train.")
    time_budget_s: float | None = Field(
        None, gt=0, description="Stop (after a final checkpoint) once the run has trained this long, seconds."
    )
    start_timeout_s: float = Field(600.0, gt=0, description="Seconds the trainer ranks may take to start and connect.")
    cpu_cores: list[int] | None = Field(
        None, description="CPU cores this node's trainer ranks run on (None: no pinning); split evenly "
        "between the node's ranks, each rank uses as many threads as it has cores.")


class DistributedConfig(_Section):
    nnodes: int = Field(1, ge=1, description="Trainer nodes (torchrun launches). trainer.world_size ranks are "
                        "split evenly over them; the controller's machine launches node 0's.")
    node_rank: int = Field(0, ge=0, description="This node's index (`rl-loop trainer-node` on the other nodes). "
                           "Torch's c10d rendezvous numbers ranks itself; this only names the launch.")
    rdzv_endpoint: str | None = Field(
        None, description="host:port of the c10d rendezvous every trainer node joins (required when nnodes > 1).")
    rdzv_id: str = Field("rl-loop", description="Rendezvous id; one per job.")
    controller_host: str = Field(
        "127.0.0.1", description="Address of the controller's machine that trainer nodes reach: its command "
        "socket and the weight group's store listen there.")
    controller_port: int = Field(
        0, ge=0, le=65535, description="Port of the controller's command socket (0: any; must be fixed when nnodes > 1 "
        "so the other nodes know it). Their ranks authenticate with the hex key in env RL_LOOP_AUTHKEY.")
    weight_sync: Literal["group", "file"] = Field(
        "group", description="group: in place, each trainer rank sends its shards to every engine over a "
        "weight group (NCCL when every trainer rank and engine has a GPU of its own, else gloo); file: rank 0 gathers the full state to a safetensors file on /dev/shm (fallback).")
    engine_copy_in: Literal["direct", "plain", "reload"] = Field(
        "direct", description="How synced weights enter an engine: direct (copies into the model's own tensors, "
        "then each CPU GEMM layer re-packs its oneDNN kernel), plain (CPU: copies only, layers switch to torch's "
        "GEMM; faster, but its results depend on batching, so runs are no longer bit-identical) or reload "
        "(vLLM's layer-wise reload). Models direct/plain cannot map use reload.")
    weight_group_backend: Literal["auto", "nccl", "gloo"] = Field(
        "auto", description="Backend of the weight group: auto (the members compare GPU UUIDs at join and use NCCL "
        "only when every trainer rank and engine has a GPU of its own; NCCL refuses two members on one GPU), nccl, "
        "or gloo (host memory; GPU members copy through pinned CPU buffers).")
    weight_group_same_host: Literal["shared_memory", "send"] = Field(
        "shared_memory", description="How a gloo weight group moves a trainer rank's rows to an engine on the same "
        "host: shared_memory (the rank writes them into the engine's staging buffer, an anonymous shared mapping, "
        "and sends only the version header; ranks on other hosts send) or send (every byte as a gloo message "
        "over loopback TCP, as between hosts).")
    weight_sync_timeout_s: float = Field(300.0, gt=0, description="Weight-group join/transfer timeout, seconds.")


class EvalConfig(_Section):
    """Held-out evaluation during training (`rl-loop eval` does the same offline)."""

    every_steps: int = Field(0, ge=0, description="Evaluate every this many trainer versions (0: never).")
    split: Literal["train", "heldout"] = Field("heldout", description="Split whose problems are evaluated.")
    problem_ids: list[str] | None = Field(None, description="Explicit problem ids (None: every problem of the split).")
    samples: int = Field(4, ge=1, description="Samples per problem (pass@1 is their mean; pass@k needs k <= samples).")
    temperature: float = Field(1.0, gt=0, description="Sampling temperature of evaluation.")
    seed: int = Field(0, description="Evaluation seed: the same problems get the same seeds at every evaluation.")


class CheckpointConfig(_Section):
    dir: str = Field("runs/default/checkpoints", description="Checkpoint directory.")
    every_steps: int = Field(10, ge=1, description="Write a checkpoint every this many steps.")
    keep: int = Field(2, ge=1, description="Newest checkpoints kept on disk.")
    resume: bool = Field(True, description="Resume from the newest complete checkpoint in dir, if there is one.")


class LoggingConfig(_Section):
    run_dir: str = Field("runs/default", description="Directory for metrics.jsonl, TensorBoard events and plots.")
    tensorboard: bool = Field(True, description="Also write TensorBoard scalars/histograms.")


class RLConfig(_Section):
    """A whole RL run. Sections are separate models so each part reads only its own."""

    model: ModelConfig = Field(default_factory=ModelConfig, description="Policy model.")
    data: DataConfig = Field(default_factory=DataConfig, description="Problems and prompts.")
    generation: GenerationConfig = Field(default_factory=GenerationConfig, description="Sampling.")
    rewards: RewardsConfig = Field(default_factory=RewardsConfig, description="Verifier and reward rule.")
    filtering: FilteringConfig = Field(default_factory=FilteringConfig, description="Dynamic and pre-filtering.")
    staleness: StalenessConfig = Field(default_factory=StalenessConfig, description="Off-policy bound.")
    algorithm: AlgorithmConfig = Field(default_factory=AlgorithmConfig, description="Loss preset and overrides.")
    trainer: TrainerConfig = Field(default_factory=TrainerConfig, description="Optimisation.")
    eval: EvalConfig = Field(default_factory=EvalConfig, description="Periodic held-out evaluation.")
    distributed: DistributedConfig = Field(default_factory=DistributedConfig,
                                           description="Trainer nodes and the weight-sync path.")
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig, description="Checkpoints.")
    logging: LoggingConfig = Field(default_factory=LoggingConfig, description="Metrics output.")

    @model_validator(mode="after")
    def _check_combinations(self) -> "RLConfig":
        errors = list(combination_errors(self))
        if errors:
            raise ValueError("; ".join(errors))
        return self

    def algorithm_spec(self) -> AlgorithmSpec:
        """The resolved loss configuration (preset + overrides)."""
        return resolve_algorithm(self.algorithm, self.generation.max_new_tokens)

    def to_yaml(self) -> str:
        return yaml.safe_dump(self.model_dump(mode="json"), sort_keys=False)


def combination_errors(cfg: RLConfig) -> list[str]:
    """Messages for field combinations that cannot produce a working run."""
    errs: list[str] = []
    spec = resolve_algorithm(cfg.algorithm, cfg.generation.max_new_tokens)
    s, k = cfg.staleness.max_staleness, cfg.generation.reload_every
    if s < k - 1:
        errs.append(
            f"staleness.max_staleness={s} < generation.reload_every-1={k - 1}: generators keep weights "
            f"for {k} versions, so rollouts would be discarded as stale before new weights arrive"
        )
    seqs = cfg.trainer.batch_size_prompts * cfg.generation.n_samples
    per_step = cfg.trainer.world_size * cfg.trainer.micro_batch_size_seqs
    if seqs % per_step:
        errs.append(
            f"trainer.batch_size_prompts*generation.n_samples={seqs} sequences is not divisible by "
            f"trainer.world_size*trainer.micro_batch_size_seqs={per_step}"
        )
    if cfg.generation.n_samples < 2:
        errs.append(
            f"generation.n_samples={cfg.generation.n_samples}: group advantage estimators ({spec.advantage}) need "
            "at least 2 samples per prompt"
        )
    if spec.importance == "decoupled" and spec.proximal == "loglinear" and s == 0:
        errs.append("A-3PO (proximal=loglinear) needs staleness.max_staleness > 0: on-policy it is plain PPO")
    if spec.importance == "decoupled" and spec.proximal == "recompute" and not cfg.trainer.recompute_logprobs:
        errs.append("decoupled PPO with proximal=recompute needs trainer.recompute_logprobs=true")
    if spec.objective == "dpo" and not cfg.model.reference_path:
        errs.append("online DPO (algorithm.objective=dpo) needs model.reference_path (the frozen reference policy; "
                    "usually the starting model)")
    if spec.kl_coef > 0 and not cfg.model.reference_path:
        errs.append(f"algorithm kl_coef={spec.kl_coef} > 0 needs model.reference_path (a reference model)")
    if spec.eps_low is not None and spec.eps_low >= 1:
        errs.append(f"algorithm eps_low={spec.eps_low} must be < 1 (the lower clip bound 1-eps_low must be > 0)")
    if cfg.rewards.mode == "http" and not cfg.rewards.verifier_url:
        errs.append("rewards.mode=http needs rewards.verifier_url")
    if cfg.generation.max_new_tokens >= cfg.model.max_model_len_tokens:
        errs.append(
            f"generation.max_new_tokens={cfg.generation.max_new_tokens} leaves no room for the prompt within "
            f"model.max_model_len_tokens={cfg.model.max_model_len_tokens}"
        )
    d = cfg.distributed
    if cfg.trainer.world_size % d.nnodes:
        errs.append(f"trainer.world_size={cfg.trainer.world_size} is not divisible by distributed.nnodes={d.nnodes}")
    if d.node_rank >= d.nnodes:
        errs.append(f"distributed.node_rank={d.node_rank} must be < distributed.nnodes={d.nnodes}")
    if d.nnodes > 1 and (not d.rdzv_endpoint or not d.controller_port):
        errs.append("distributed.nnodes > 1 needs distributed.rdzv_endpoint (host:port) and a fixed "
                    "distributed.controller_port")
    cores = [cfg.generation.cpu_cores, cfg.trainer.cpu_cores]
    if s > 0 and all(c is not None for c in cores) and set(cores[0]) & set(cores[1]):
        errs.append(f"generation.cpu_cores and trainer.cpu_cores overlap on {sorted(set(cores[0]) & set(cores[1]))}: "
                    "an async run (staleness.max_staleness > 0) generates and trains at once, give them disjoint cores")
    for name, c in zip(("generation", "trainer"), cores):
        if c is not None and (not c or min(c) < 0 or len(set(c)) != len(c)):
            errs.append(f"{name}.cpu_cores={c} must be distinct non-negative core ids")
    return errs


def apply_overrides(data: dict[str, Any], overrides: Sequence[str]) -> dict[str, Any]:
    """Apply ``section.key=value`` strings (values parsed as YAML) to a nested dict copy."""
    out = _deep_copy(data)
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"override {item!r} is not of the form key.sub=value")
        key, raw = item.split("=", 1)
        parts = key.strip().split(".")
        if not all(parts):
            raise ConfigError(f"override {item!r} has an empty key component")
        try:
            value = _parse_scalar(raw)
        except yaml.YAMLError as exc:
            raise ConfigError(f"override {item!r}: value is not valid YAML: {exc}") from exc
        node = out
        for p in parts[:-1]:
            child = node.get(p)
            if child is None:
                child = node[p] = {}
            elif not isinstance(child, dict):
                raise ConfigError(f"override {item!r}: {p!r} is a value, not a section")
            node = child
        node[parts[-1]] = value
    return out


_FLOAT_RE = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)$")


def _parse_scalar(raw: str) -> Any:
    """YAML scalar, except that ``1e-6`` is a float (YAML 1.1 wants ``1.0e-6``)."""
    if not raw.strip():
        return ""
    value = yaml.safe_load(raw)
    if isinstance(value, str) and _FLOAT_RE.match(value.strip()):
        return float(value)
    return value


def _deep_copy(d: dict[str, Any]) -> dict[str, Any]:
    return {k: _deep_copy(v) if isinstance(v, dict) else v for k, v in d.items()}


def load_config(path: str | Path | None = None, overrides: Sequence[str] = ()) -> RLConfig:
    """Read YAML (or start from defaults when ``path`` is None), apply overrides, validate."""
    data: dict[str, Any] = {}
    if path is not None:
        p = Path(path)
        try:
            loaded = yaml.safe_load(p.read_text())
        except OSError as exc:
            raise ConfigError(f"cannot read config {p}: {exc}") from exc
        except yaml.YAMLError as exc:
            raise ConfigError(f"config {p} is not valid YAML: {exc}") from exc
        if loaded is None:
            loaded = {}
        if not isinstance(loaded, dict):
            raise ConfigError(f"config {p} must be a mapping of sections, got {type(loaded).__name__}")
        data = loaded
    data = apply_overrides(data, overrides)
    try:
        return RLConfig.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(_format_validation(exc, path)) from exc


def _format_validation(exc: ValidationError, path: str | Path | None) -> str:
    where = f" in {path}" if path else ""
    lines = []
    for err in exc.errors():
        loc = ".".join(str(x) for x in err["loc"]) or "(config)"
        msg = err["msg"].removeprefix("Value error, ")
        lines.append(f"{loc}: {msg}")
    return f"invalid RL config{where}: " + "; ".join(lines)
