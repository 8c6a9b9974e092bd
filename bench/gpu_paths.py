"""The CUDA paths of the RL loop, run where a GPU is: what works on how many GPUs.

    python bench/gpu_paths.py [--model models/tiny-llama] [--out gpu_paths.json]
                              [--reference reference.json] [--write-reference reference.json]

Prints one JSON object with a section per check; each has "ok" and what was measured:

* trainer: the torchrun trainer group with this machine's backend (NCCL and the GPU where
  CUDA is available, gloo on CPU), world size = visible GPUs (1 on CPU): log-probs, two
  training steps (loss, grad norm, log-probs moved with the advantage), save/load round
  trip; with --reference, the log-probs before and after training compared with a CPU run
  of the same steps (--write-reference makes that file on a CPU machine);
* too_many_ranks (GPU only): one more trainer rank than GPUs; NCCL cannot put two ranks on
  one device, so the start must fail with the rank's reason;
* trainer_to_engine: the trainer group's own FSDP shards (after a training step) over the
  weight group (default backend) to a receiver process on the GPU: what arrives must equal
  the full state the trainer writes with the file fallback, tensor for tensor;
* weight_group: the in-place weight transfer over the weight group with the default
  backend ("auto"): two "trainer ranks" holding half the rows of each parameter on GPU
  (rank % GPUs) and one "engine" (`ShardReceiver`); every tensor must arrive exactly.
  The section says which backend the members chose and where the engine staged: NCCL with
  a GPU per member, else gloo through host memory;
* weight_group_nccl: the same with NCCL forced. On fewer GPUs than members NCCL refuses
  ("Duplicate GPU detected"): the section then records that error, the reason "auto" exists.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))



def _expected():
    """The shard layout and values of the weight-transfer test (known by construction)."""
    from tests.rl_loop.test_weight_transfer import SHAPES, _full, _rows

    return SHAPES, _full, _rows


def _device(torch, rank: int):
    if torch.cuda.is_available():
        d = torch.device("cuda", rank % torch.cuda.device_count())
        torch.cuda.set_device(d)
        return d
    return torch.device("cpu")


def _sender(spec, rank, q):
    try:
        import torch

        from rl_loop.trainer_sync import ShardSender
        from rl_loop.weight_group import join

        dev = _device(torch, rank)
        SHAPES, _full, _rows = _expected()
        model = torch.nn.Module()
        for name in SHAPES:
            mod, pname = name.split(".")
            if not hasattr(model, mod):
                model.add_module(mod, torch.nn.Module())
            getattr(model, mod).register_parameter(
                pname, torch.nn.Parameter(_full(name, 1)[_rows(name, rank)].clone().to(dev)))
        sender = ShardSender(model, rank, 2)
        q.put(("plan", rank, sender.local_plan()))
        sender.join(*join(spec, rank), [2])
        for v in (1, 2):
            with torch.no_grad():
                for name, p in model.named_parameters():
                    p.copy_(_full(name, v)[_rows(name, rank)])
            sender.export(v)
            sender.before_update()
        deadline = time.monotonic() + 30
        while len(sender.sent) < 2 and sender._error is None and time.monotonic() < deadline:
            time.sleep(0.01)
        q.put(("done", rank, repr(sender._error) if sender._error else
               (None if len(sender.sent) == 2 else "not sent in 30 s")))
    except BaseException as exc:  # noqa: BLE001 - reported
        q.put(("done", rank, f"{type(exc).__name__}: {exc}"))


def _receiver(spec, plan, q):
    try:
        import torch

        from rl_loop.weight_group import backend_name, join
        from rl_loop.weight_receiver import ShardReceiver

        dev = _device(torch, 2)
        _, _full, _ = _expected()
        pg, store = join(spec, 2)
        rx = ShardReceiver(pg, store, plan, 2, dev)
        rx.start()
        bad = []
        for v in (1, 2):
            for name, t in rx.take(v, 30):
                if not torch.equal(t.to(dev).cpu(), _full(name, v)):
                    bad.append((v, name))
            rx.release()
        q.put(("engine", f"{backend_name(pg)}, staged on {rx.flat.device.type}", bad))
    except BaseException as exc:  # noqa: BLE001
        q.put(("engine", None, f"{type(exc).__name__}: {exc}"))


def weight_group(backend: str) -> dict:
    from rl_loop.weight_group import GroupSpec, WeightStore

    SHAPES = _expected()[0]
    store = WeightStore("127.0.0.1", timeout_s=60)
    spec = GroupSpec("127.0.0.1", store.port, 3, backend, timeout_s=60).to_dict()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    procs = [ctx.Process(target=_sender, args=(spec, r, q)) for r in range(2)]
    for p in procs:
        p.start()
    out: dict = {"backend": backend}
    try:
        plans = {}
        while len(plans) < 2:
            kind, rank, plan = q.get(timeout=90)
            if kind != "plan":
                raise RuntimeError(f"rank {rank}: {plan}")
            plans[rank] = plan
        plan = [dict(p, shape=SHAPES[p["name"]], rows=[plans[0][i]["rows"], plans[1][i]["rows"]])
                for i, p in enumerate(plans[0])]
        eng = ctx.Process(target=_receiver, args=(spec, plan, q))
        eng.start()
        procs.append(eng)
        results = [q.get(timeout=120) for _ in range(3)]
        out["results"] = [[k, r, v] for k, r, v in results]
        out["ok"] = all(not v for _, _, v in results)
    except Exception as exc:  # noqa: BLE001 - the failure is the finding
        out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    return out


def _seqs():
    from tests.rl_loop.test_trainer import _seqs as seqs

    return seqs()


def _trainer(model: str, world: int, **kw):
    """(a trainer group of `world` ranks on the tiny model, its work dir); not started."""
    from rl_loop.algorithms import resolve_algorithm
    from rl_loop.trainer import Trainer, TrainerSettings

    work = Path(tempfile.mkdtemp(prefix="gpu_paths_"))
    return Trainer(TrainerSettings(model_path=model, world_size=world, lr=1e-3, micro_batch_size_seqs=2,
                                   spec=resolve_algorithm("grpo", 8).to_dict(),
                                   log_path=str(work / "trainer.log"), **kw)), work


def _gpus() -> int:
    import torch

    return torch.cuda.device_count()


def trainer(model: str) -> dict:
    world = max(1, _gpus())
    t, work = _trainer(model, world)
    run = asyncio.new_event_loop().run_until_complete
    out: dict = {"world_size": world}
    try:
        info = t.start()
        out["backend"] = info.get("backend")
        seqs = _seqs()
        out["logprobs_before"] = run(t.logprobs(seqs[:2]))
        steps = []
        for _ in range(2):
            t0 = time.perf_counter()
            st = run(t.train(seqs, t.version, True))
            steps.append({"loss": st["loss"], "grad_norm": st["grad_norm"], "s": time.perf_counter() - t0})
        out["steps"] = steps
        after = run(t.logprobs(seqs[:2]))
        out["logprobs_after"] = after
        exp = run(t.export_weights(str(work / "w.safetensors")))  # the file fallback: gather on rank 0
        out["export_file"] = {"bytes": exp.get("bytes"), "s": exp.get("seconds")}
        run(t.save(str(work / "ckpt")))
        run(t.train(seqs, t.version, False))
        run(t.load(str(work / "ckpt")))
        back = run(t.logprobs(seqs[:2]))
        out["reload_max_abs_diff"] = max(abs(a - b) for x, y in zip(back, after) for a, b in zip(x, y))
        out["ok"] = (sum(after[0]) > sum(out["logprobs_before"][0]) and sum(after[1]) < sum(out["logprobs_before"][1])
                     and out["reload_max_abs_diff"] < 1e-5)
    except Exception as exc:  # noqa: BLE001
        out.update(ok=False, error=f"{type(exc).__name__}: {exc}", trace=traceback.format_exc()[-2000:])
        log = work / "trainer.log"
        if log.exists():
            out["trainer_log_tail"] = log.read_text(errors="replace")[-3000:]
    finally:
        t.stop()
    return out


def too_many_ranks(model: str) -> dict:
    """More trainer ranks on a node than it has GPUs: the start must fail and say why."""
    world = _gpus() + 1
    t, _ = _trainer(model, world, start_timeout_s=120)
    try:
        t.start()
        return {"world_size": world, "ok": False, "error": "started: a rank shares a GPU"}
    except Exception as exc:  # noqa: BLE001 - the expected outcome
        msg = str(exc)
        return {"world_size": world, "ok": "has no GPU of its own" in msg, "error": msg[:600]}
    finally:
        t.stop()


def _plain_engine(spec, plan, world, ref_path, q):
    """A receiver in its own process (on the GPU where there is one): what an engine gets,
    compared with the trainer's full-state file tensor for tensor."""
    try:
        import torch
        from safetensors.torch import load_file

        from rl_loop.weight_group import backend_name, join
        from rl_loop.weight_receiver import ShardReceiver

        dev = _device(torch, 0)
        pg, store = join(spec, world)
        rx = ShardReceiver(pg, store, plan, world, dev)
        rx.start()
        got = {name: t.cpu() for name, t in rx.take(1, 60)}
        ref = load_file(ref_path)
        bad = [n for n, v in ref.items() if n not in got or not torch.equal(got[n], v)]
        rx.release()
        q.put((f"{backend_name(pg)}, staged on {rx.flat.device.type}", len(ref), bad[:5]))
    except BaseException as exc:  # noqa: BLE001
        q.put((f"{type(exc).__name__}: {exc}", 0, None))


def trainer_to_engine(model: str) -> dict:
    """The real trainer group's FSDP shards -> the weight group -> a receiver process; what
    arrives must equal the full state the trainer exports to a file."""
    from rl_loop.weight_group import GroupSpec, WeightStore, default_backend

    world = max(1, _gpus())
    t, work = _trainer(model, world)
    run = asyncio.new_event_loop().run_until_complete
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    eng = None
    out: dict = {"world_size": world}
    try:
        t.start()
        run(t.train(_seqs(), t.version, False))  # weights that differ from the file on disk
        run(t.export_weights(str(work / "w.safetensors")))  # the reference: the same weights
        plan = run(t.sync_plan())
        store = WeightStore("127.0.0.1", timeout_s=60)
        spec = GroupSpec("127.0.0.1", store.port, world + 1, default_backend(), timeout_s=60).to_dict()
        eng = ctx.Process(target=_plain_engine, args=(spec, plan, world, str(work / "w.safetensors"), q))
        eng.start()
        t0 = time.perf_counter()
        run(t.sync_join(spec, [world]))
        run(t.sync_export(1))
        how, n, bad = q.get(timeout=120)
        out.update(seconds=time.perf_counter() - t0, how=how)
        if bad is None:
            out.update(ok=False, error=how)
        else:
            out.update(ok=not bad, tensors=n, mismatched=bad)
    except Exception as exc:  # noqa: BLE001
        out.update(ok=False, error=f"{type(exc).__name__}: {exc}")
    finally:
        t.stop()
        if eng is not None:
            eng.join(timeout=10)
            if eng.is_alive():
                eng.kill()
    return out


def compare(res: dict, ref: dict) -> dict:
    diffs = {}
    for key in ("logprobs_before", "logprobs_after"):
        a, b = res.get(key), ref.get(key)
        if a and b:
            diffs[key] = max(abs(x - y) for r, s in zip(a, b) for x, y in zip(r, s))
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default=str(REPO / "models/tiny-llama"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--reference", default=None)
    ap.add_argument("--write-reference", default=None)
    ap.add_argument("--only", nargs="*", default=["trainer", "too_many_ranks", "trainer_to_engine", "weight_group",
                                                    "weight_group_nccl"])
    a = ap.parse_args()
    import torch

    from rl_loop.weight_group import default_backend

    res: dict = {"torch": torch.__version__, "cuda": torch.cuda.is_available(),
                 "gpus": torch.cuda.device_count(),
                 "gpu_name": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None}
    if "trainer" in a.only:
        res["trainer"] = trainer(a.model)
        if a.write_reference:
            Path(a.write_reference).write_text(json.dumps(res["trainer"]))
        if a.reference and Path(a.reference).exists():
            res["trainer"]["vs_reference_max_abs_diff"] = compare(res["trainer"], json.loads(Path(a.reference).read_text()))
    if "too_many_ranks" in a.only and torch.cuda.is_available():
        res["too_many_ranks"] = too_many_ranks(a.model)
    if "trainer_to_engine" in a.only:
        res["trainer_to_engine"] = trainer_to_engine(a.model)
    if "weight_group" in a.only:
        res["weight_group"] = weight_group(default_backend())
    if "weight_group_nccl" in a.only and torch.cuda.is_available():
        res["weight_group_nccl"] = weight_group("nccl")
    text = json.dumps(res, indent=1)
    print(text)
    if a.out:
        Path(a.out).write_text(text)


if __name__ == "__main__":
    main()
