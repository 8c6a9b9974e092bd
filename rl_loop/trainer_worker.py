"""One trainer rank, run under torchrun: FSDP2 policy, AdamW, the modular loss. Passive.

Rank 0 holds the only connection to the controller (a `multiprocessing.connection` socket
on 127.0.0.1, authenticated); every command it receives is broadcast to all ranks, every
rank executes it (FSDP collectives need all of them), and rank 0 sends the reply. Nothing
here acts on its own: no timers, no data loading (RLAX principle #1: passive executors).

Commands (dicts with "cmd"): init, train, logprobs, export_weights, save, load, shutdown, and
for the in-place weight sync (`rl_loop.trainer_sync`): sync_plan, sync_join, sync_export.
Sequences arrive as dicts with prompt_ids, completion_ids, behaviour_logprobs, versions,
advantage (see `rl_loop.trainer.Sequence`).

Launched by `rl_loop.launch` as `python -m torch.distributed.run ... -m rl_loop.trainer_worker`
(one node, or one launch per node with a c10d rendezvous); env RL_TRAINER_ADDR=host:port
and RL_TRAINER_AUTHKEY (hex) reach the controller from whichever rank torchrun numbers 0.
"""
from __future__ import annotations

import math
import os
import threading
import time
import traceback
from multiprocessing.connection import Client
from pathlib import Path

import torch
import torch.distributed as dist


def _backend() -> str:
    return "nccl" if torch.cuda.is_available() else "gloo"


def _device() -> torch.device:
    if torch.cuda.is_available():
        return torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0")))
    return torch.device("cpu")


class TrainerRank:
    def __init__(self) -> None:
        self.rank = dist.get_rank()
        self.world = dist.get_world_size()
        self.device = _device()
        self.model = None
        self.ref = None
        self.opt = None
        self.spec = None
        self.cfg: dict = {}
        self.version = 0
        self.sender = None

    # ---- model construction -------------------------------------------------------------
    def _load_hf(self, path: str, dtype: torch.dtype, shard: bool):
        from torch.distributed.fsdp import fully_shard
        from transformers import AutoModelForCausalLM

        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype).to(self.device)
        model.config.use_cache = False
        if shard:
            # One FSDP unit per decoder layer plus the root (embeddings, norm, tied head).
            for layer in model.model.layers:
                fully_shard(layer)
            fully_shard(model)
        return model

    def cmd_init(self, m: dict) -> dict:
        from rl_loop.algorithms import AlgorithmSpec

        torch.manual_seed(m["seed"])
        self.cfg = m
        dtype = getattr(torch, m["dtype"])
        self.model = self._load_hf(m["model_path"], dtype, shard=True)
        self.model.train()
        if m.get("ref_path"):
            self.ref = self._load_hf(m["ref_path"], dtype, shard=True)
            self.ref.eval()
            for p in self.ref.parameters():
                p.requires_grad_(False)
        self.opt = torch.optim.AdamW(
            self.model.parameters(), lr=m["lr"], betas=tuple(m["betas"]), weight_decay=m["weight_decay"]
        )
        self.spec = AlgorithmSpec(**m["spec"])
        n_params = sum(p.numel() for p in self.model.parameters())  # local shards
        return {"world_size": self.world, "local_params": n_params, "backend": _backend()}

    # ---- forward helpers ----------------------------------------------------------------
    def _pad(self, seqs: list[dict]):
        """Right-padded [B, L] input ids plus completion-aligned [B, T] tensors."""
        lens = [len(s["prompt_ids"]) + len(s["completion_ids"]) for s in seqs]
        L, T = max(lens), max(max(len(s["completion_ids"]) for s in seqs), 1)
        B = len(seqs)
        ids = torch.zeros(B, L, dtype=torch.long)
        attn = torch.zeros(B, L, dtype=torch.long)
        mask = torch.zeros(B, T)
        mu = torch.zeros(B, T)
        ver = torch.zeros(B, T, dtype=torch.long)
        for i, s in enumerate(seqs):
            full = list(s["prompt_ids"]) + list(s["completion_ids"])
            ids[i, : len(full)] = torch.tensor(full)
            attn[i, : len(full)] = 1
            c = len(s["completion_ids"])
            if c:
                mask[i, :c] = float(s.get("weight", 1.0) > 0)
                mu[i, :c] = torch.tensor(s.get("behaviour_logprobs") or [0.0] * c)
                ver[i, :c] = torch.tensor(s.get("versions") or [0] * c)
        return ids, attn, mask, mu, ver, T

    def _token_logprobs(self, model, seqs: list[dict], want_entropy: bool):
        """Log-prob of each completion token under `model`, [B, T] (and entropy)."""
        ids, attn, mask, _, _, T = self._pad(seqs)
        ids, attn = ids.to(self.device), attn.to(self.device)
        logits = model(input_ids=ids, attention_mask=attn).logits.float()
        B = len(seqs)
        out = torch.zeros(B, T, device=self.device)
        ent = torch.zeros(B, T, device=self.device) if want_entropy else None
        for i, s in enumerate(seqs):
            p, c = len(s["prompt_ids"]), len(s["completion_ids"])
            if c == 0:
                continue
            # Token at position p+k is predicted by the logits at position p+k-1.
            lg = logits[i, p - 1 : p - 1 + c]
            lp = torch.log_softmax(lg, dim=-1)
            out[i, :c] = lp.gather(-1, ids[i, p : p + c].unsqueeze(-1)).squeeze(-1)
            if want_entropy:
                with torch.no_grad():
                    ent[i, :c] = -(lp.exp() * lp).sum(-1)
        return out, ent

    def _shard(self, seqs: list[dict]) -> list[list[dict]]:
        """This rank's micro-batches; every rank runs the same number (FSDP collectives)."""
        mine = seqs[self.rank :: self.world]
        mbs = self.cfg["micro_batch_size_seqs"]
        per_rank = math.ceil(len(seqs) / self.world)
        n_micro = max(1, math.ceil(per_rank / mbs))
        out = []
        for k in range(n_micro):
            mb = mine[k * mbs : (k + 1) * mbs]
            if not mb:  # pad with a zero-weight copy so collectives line up
                mb = [dict(seqs[0], weight=0.0)]
            out.append(mb)
        return out

    # ---- commands ------------------------------------------------------------------------
    @torch.no_grad()
    def cmd_logprobs(self, m: dict) -> dict:
        self.model.eval()
        res: dict[int, list[float]] = {}
        idx = list(range(len(m["seqs"])))
        seqs = [dict(s, _i=i) for i, s in zip(idx, m["seqs"])]
        for mb in self._shard(seqs):
            lp, _ = self._token_logprobs(self.model, mb, False)
            for j, s in enumerate(mb):
                if s.get("weight", 1.0) > 0:
                    res[s["_i"]] = lp[j, : len(s["completion_ids"])].cpu().tolist()
        self.model.train()
        self._reshard()
        gathered = [None] * self.world
        dist.all_gather_object(gathered, res)
        merged: dict[int, list[float]] = {}
        for g in gathered:
            merged.update(g)
        return {"logprobs": [merged[i] for i in idx]}

    def cmd_train(self, m: dict) -> dict:
        from rl_loop.algorithms import LossInputs, Normaliser, compute_loss, merge_stats

        t0 = time.perf_counter()
        seqs = m["seqs"]
        trainer_version = m["trainer_version"]
        n_tokens = sum(len(s["completion_ids"]) for s in seqs)
        norm = Normaliser(num_tokens=max(n_tokens, 1), num_sequences=len(seqs), dp_world_size=self.world)
        micro = self._shard(seqs)
        stats_parts: list[dict] = []
        gap_recompute: list[torch.Tensor] = []
        prox: list[torch.Tensor | None] = [None] * len(micro)
        refs: list[torch.Tensor | None] = [None] * len(micro)
        t_rec = time.perf_counter()
        if m.get("recompute_logprobs") or self.ref is not None:
            with torch.no_grad():
                self.model.eval()
                for k, mb in enumerate(micro):
                    if m.get("recompute_logprobs"):
                        prox[k], _ = self._token_logprobs(self.model, mb, False)
                        _, msk, mu, ver = self._pad(mb)[1:5]
                        # Like-with-like gap: only tokens sampled with the trainer's current
                        # weights, where recomputed and behaviour log-probs should agree.
                        sel = (msk > 0) & (ver == trainer_version)
                        gap_recompute.append((prox[k].cpu() - mu).abs()[sel])
                    if self.ref is not None:
                        refs[k], _ = self._token_logprobs(self.ref, mb, False)
                self.model.train()
        t_rec = time.perf_counter() - t_rec
        self.opt.zero_grad(set_to_none=True)
        for k, mb in enumerate(micro):
            _, _, msk, mu, ver, _ = self._pad(mb)
            logp, ent = self._token_logprobs(self.model, mb, True)
            adv = torch.tensor([float(s.get("advantage", 0.0)) for s in mb])
            staleness = (trainer_version - ver).clamp(min=0)
            inputs = LossInputs(
                logprobs=logp,
                behaviour_logprobs=mu.to(self.device),
                advantages=adv.to(self.device),
                mask=msk.to(self.device),
                proximal_logprobs=prox[k],
                staleness=staleness.to(self.device),
                ref_logprobs=refs[k],
                entropy=ent,
            )
            out = compute_loss(inputs, self.spec, norm)
            out.loss.backward()
            if msk.sum() > 0:
                stats_parts.append(out.stats)
        grad_norm = None
        if self.cfg.get("grad_clip"):
            gn = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["grad_clip"])
            grad_norm = float(gn.full_tensor() if hasattr(gn, "full_tensor") else gn)
        self.opt.step()
        self.version = trainer_version + 1
        gathered = [None] * self.world
        dist.all_gather_object(gathered, (stats_parts, [g.tolist() for g in gap_recompute]))
        all_parts = [p for g in gathered for p in g[0]]
        gaps = torch.tensor([x for g in gathered for gg in g[1] for x in gg], dtype=torch.float64)
        stats = merge_stats(all_parts) if all_parts else {}
        if gaps.numel():
            stats["recompute_gap_mean"] = float(gaps.mean())
            stats["recompute_gap_p95"] = float(torch.quantile(gaps, 0.95))
        if grad_norm is not None:
            stats["grad_norm"] = grad_norm
        stats["recompute_s"] = t_rec
        stats["train_s"] = time.perf_counter() - t0
        stats["train_tokens"] = n_tokens
        return {"stats": stats, "version": self.version}

    def _reshard(self) -> None:
        """FSDP2 keeps the root's parameters unsharded after a forward without backward (a
        no-grad log-prob pass); state-dict load/save expect sharded DTensors again."""
        for m in self.model.modules():
            if hasattr(m, "reshard"):
                m.reshard()

    def _full_state(self) -> dict:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        self._reshard()
        opts = StateDictOptions(full_state_dict=True, cpu_offload=True)
        return get_model_state_dict(self.model, options=opts)

    def cmd_export_weights(self, m: dict) -> dict:
        """Gather the full state dict on rank 0 and write it as one safetensors file."""
        from rl_loop.weight_sync import write_state_dict

        t0 = time.perf_counter()
        sd = self._full_state()  # collective: every rank takes part, rank 0 gets tensors
        t_gather = time.perf_counter() - t0
        info = {"gather_s": t_gather}
        if self.rank == 0:
            tied = bool(getattr(self.model.config, "tie_word_embeddings", False))
            info.update(write_state_dict(sd, m["path"], drop_tied_head=tied))
        dist.barrier()
        info["seconds"] = time.perf_counter() - t0
        return info

    # ---- in-place weight sync ---------------------------------------------------------------
    def cmd_sync_plan(self, m: dict) -> dict:
        """Every rank's rows of every parameter (all ranks take part; rank 0 replies)."""
        from rl_loop.trainer_sync import ShardSender

        self._reshard()
        if self.sender is None:
            self.sender = ShardSender(self.model, self.rank, self.world, m.get("max_pending", 2))
        mine = self.sender.local_plan()
        every = [None] * self.world
        dist.all_gather_object(every, mine)
        plan = [dict(p, rows=[e[i]["rows"] for e in every]) for i, p in enumerate(mine)]
        return {"plan": plan}

    def cmd_sync_join(self, m: dict) -> dict:
        """Join the weight group (group rank = this rank); blocks until every member joined."""
        from rl_loop.weight_group import join

        t0 = time.perf_counter()
        self.sender.join(*join(m["spec"], self.rank), m["generator_ranks"])
        return {"join_s": time.perf_counter() - t0}

    def cmd_sync_export(self, m: dict) -> dict:
        """Snapshot this rank's shards of the current weights; a thread sends them."""
        self._reshard()
        info = self.sender.export(m["version"])
        times = [None] * self.world
        dist.all_gather_object(times, info["snapshot_s"])
        return {"snapshot_s": max(times), "buffer_wait_s": info["buffer_wait_s"]}

    def cmd_save(self, m: dict) -> dict:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_optimizer_state_dict

        t0 = time.perf_counter()
        out = Path(m["dir"])
        info = self.cmd_export_weights({"path": str(out / "model.safetensors")})
        osd = get_optimizer_state_dict(
            self.model, self.opt, options=StateDictOptions(full_state_dict=True, cpu_offload=True)
        )
        if self.rank == 0:
            tmp = out / "optimizer.pt.tmp"
            torch.save({"optimizer": osd, "version": self.version}, tmp)
            os.replace(tmp, out / "optimizer.pt")
        dist.barrier()
        return {"seconds": time.perf_counter() - t0, "export": info}

    def cmd_load(self, m: dict) -> dict:
        """Load model + optimizer from a checkpoint directory `save` wrote (every rank reads)."""
        from safetensors.torch import load_file
        from torch.distributed.checkpoint.state_dict import (
            StateDictOptions,
            set_model_state_dict,
            set_optimizer_state_dict,
        )

        d = Path(m["dir"])
        self._reshard()
        sd = load_file(str(d / "model.safetensors"))
        if "lm_head.weight" not in sd and getattr(self.model.config, "tie_word_embeddings", False):
            sd["lm_head.weight"] = sd["model.embed_tokens.weight"]
        opts = StateDictOptions(full_state_dict=True)
        set_model_state_dict(self.model, sd, options=opts)
        blob = torch.load(d / "optimizer.pt", weights_only=False)
        set_optimizer_state_dict(self.model, self.opt, blob["optimizer"], options=opts)
        self.version = int(blob["version"])
        return {"version": self.version}


def _exit_with_parent(poll_s: float = 0.2) -> None:
    """Exit as soon as the launching torchrun process is gone.

    Ranks run in process groups of their own, so a SIGKILL of the job's group does not
    reach them; without this they would compute on for tens of seconds. A watcher thread
    polls the parent pid instead of PR_SET_PDEATHSIG, which fires when the *thread* that
    forked us exits, not the process.
    """
    parent = os.getppid()

    def watch() -> None:
        while True:
            if os.getppid() != parent:
                os._exit(1)
            time.sleep(poll_s)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def main() -> None:
    from rl_loop.launch import pin_this_rank

    _exit_with_parent()
    pin_this_rank()  # before any torch thread pool exists
    dist.init_process_group(backend=_backend())
    if torch.cuda.is_available():
        torch.cuda.set_device(_device())
    worker = TrainerRank()
    conn = None
    if worker.rank == 0:
        host, port = os.environ["RL_TRAINER_ADDR"].rsplit(":", 1)
        conn = Client((host, int(port)), authkey=bytes.fromhex(os.environ["RL_TRAINER_AUTHKEY"]))
    while True:
        box = [conn.recv() if conn is not None else None]
        dist.broadcast_object_list(box, src=0)
        msg = box[0]
        cmd = msg["cmd"]
        if cmd == "shutdown":
            if conn is not None:
                conn.send({"ok": True})
            break
        try:
            reply = {"ok": True, **getattr(worker, f"cmd_{cmd}")(msg)}
        except Exception as exc:  # reported to the controller, which raises it there
            reply = {"ok": False, "error": f"{type(exc).__name__}: {exc}", "trace": traceback.format_exc()}
        if conn is not None:
            conn.send(reply)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
