"""Weight-sync seconds: FSDP trainer ranks -> running vLLM engine, both paths, with a breakdown.

    python bench/rl_weight_sync.py [--models models/SmolLM2-135M-Instruct] [--methods group file]
                                   [--world-size 2] [--generators 1] [--repeats 3]

For each model and method: start the trainer group (gloo) and the engine(s), then push the
weights `repeats` times (the first push is a warm-up and is not counted) and print medians:

* group (in place, `GroupWeightSync`): snapshot (the export call: each rank queues its live
  shards, no gather; a copy only if an update comes before the send starts), transfer (the
  engine's receiver thread, first byte to last, all ranks' pieces; measured inside the
  engine), wait (what `load` still waited for the transfer after `export` returned),
  copy-in (staged tensors -> running engine), prepack (seconds the engine's receiver thread
  spent packing next-version CPU kernels while the transfer went on: part of transfer and
  wait, not of copy-in), pack_cpu / pack_minflt (CPU seconds and page faults of those
  packs), total = export + load as the controller sees them;
  pushes_total_s / pushes_detail: every push, the warm-up first;
* group-plain: the same, copy-in without re-packing (CPU layers on torch's GEMM; not
  batch-invariant, so not for bit-identical runs);
* group-reload: the same, but the engine copies in through vLLM's layer-wise reload;
* group-send: the same as group, but the trainer ranks send every byte as gloo messages
  (loopback TCP, what ranks on another host do) instead of writing their rows into the
  engine's shared staging buffer (`distributed.weight_group_same_host`);
* gen_tok_s before/after: the engine's decode speed before the first sync and after the
  last (plain copy-in switches CPU linears from vLLM's packed oneDNN GEMM to torch's);
* file (fallback, `FileWeightSync`): gather (rank 0 gathers the full state), write
  (safetensors on /dev/shm), load (engine reads the file and copies in), total.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def gen_tok_s(gen, n_tokens: int = 64) -> float:
    """Decode speed of the engine as it is now (fixed prompt, fixed length)."""
    import time

    from vllm import SamplingParams

    p = SamplingParams(max_tokens=n_tokens, ignore_eos=True, temperature=0.0)
    t0 = time.perf_counter()
    gen.llm.generate([{"prompt_token_ids": [1, 504, 3060, 314, 253, 1345]}] * 4, p, use_tqdm=False)
    return 4 * n_tokens / (time.perf_counter() - t0)


async def one(model: str, method: str, repeats: int, world: int, n_gen: int, copy_in: str = "direct",
              same_host: str = "shared_memory") -> dict:
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.generator import Generator, GeneratorSettings
    from rl_loop.trainer import Trainer, TrainerSettings
    from rl_loop.weight_sync import FileWeightSync, GroupWeightSync

    gens = [Generator(GeneratorSettings(model_path=model, max_model_len_tokens=512, max_new_tokens=16))
            for _ in range(n_gen)]
    tr = Trainer(TrainerSettings(model_path=model, world_size=world, spec=resolve_algorithm("grpo").to_dict(),
                                 log_path=os.path.join(tempfile.gettempdir(), "rl_bench_sync_trainer.log")))
    med = statistics.median
    try:
        await asyncio.gather(asyncio.to_thread(tr.start), *(asyncio.to_thread(g.start) for g in gens))
        tok_before = gen_tok_s(gens[0])
        if method == "group":
            sync = GroupWeightSync(tr, gens, copy_in=copy_in, same_host=same_host)
            setup = await sync.setup(world)
        else:
            sync = FileWeightSync(tr, gens)
        file_detail = []
        for v in range(1, repeats + 2):
            if method == "file":
                info = await tr.export_weights(str(sync.path_for(v)))
                sync._exported[v] = (info["seconds"], int(info.get("bytes", 0)))
                await sync.load(v)
                file_detail.append({"gather_s": info["gather_s"], "write_s": info.get("write_s", 0.0)})
            else:
                await sync.push(v)
        h = sync.history[1:]
        mb = h[0].bytes / 2**20
        out = {"model": Path(model).name,
               "method": method if method == "file" else f"group/{setup['copy_in'][0]}/{same_host}",
               "gen_tok_s_before": tok_before, "gen_tok_s_after": gen_tok_s(gens[0]), "trainer_ranks": world, "generators": n_gen,
               "mbytes": round(mb, 1), "total_s": med(r.total_s for r in h)}
        if method == "group":
            d = sync.detail[1:]
            out.update(snapshot_s=med(x["snapshot_s"] for x in d), transfer_s=med(x["recv_s"] for x in d),
                       wait_s=med(x["transfer_wait_s"] for x in d), copy_in_s=med(x["copy_in_s"] for x in d),
                       prepack_s=med(x.get("prepack_s", 0.0) for x in d),
                       receiver_cpu_s=med(x.get("receiver_cpu_s", 0.0) for x in d),
                       receiver_minflt=med(x.get("receiver_minflt", 0) for x in d),
                       pack_cpu_s=med(x.get("pack_cpu_s", 0.0) for x in d),
                       pack_minflt=med(x.get("pack_minflt", 0) for x in d))
            out["pushes_detail"] = [{k: round(v, 3) if isinstance(v, float) else v for k, v in x.items()} for x in sync.detail]
        else:
            d = file_detail[1:]
            out.update(gather_s=med(x["gather_s"] for x in d), write_s=med(x["write_s"] for x in d),
                       load_s=med(r.load_s for r in h))
        out["mb_per_s"] = mb / out["total_s"]
        out["pushes_total_s"] = [round(r.total_s, 3) for r in h]  # each counted push, in order
        sync.cleanup()
        return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}
    finally:
        tr.stop()
        for g in gens:
            g.stop()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", nargs="+", default=["models/SmolLM2-135M-Instruct"])
    ap.add_argument("--methods", nargs="+", default=["group", "group-send", "group-plain", "group-reload", "file"],
                    choices=["group", "group-send", "group-plain", "group-reload", "file"])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--world-size", type=int, default=2)
    ap.add_argument("--generators", type=int, default=1)
    a = ap.parse_args()
    for m in a.models:
        if not (Path(m) / "config.json").is_file():
            raise SystemExit(f"{m}: no model directory (build it with `rl-loop prepare-model`)")
        for method in a.methods:
            copy_in = {"group-reload": "reload", "group-plain": "plain"}.get(method, "direct")
            same_host = "send" if method == "group-send" else "shared_memory"
            res = asyncio.run(one(m, method.split("-")[0], a.repeats, a.world_size, a.generators, copy_in, same_host))
            print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
