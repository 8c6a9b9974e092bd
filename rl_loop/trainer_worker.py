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
        local, n = int(os.environ.get("LOCAL_RANK", "0")), torch.cuda.device_count()
        if local >= n:  # NCCL refuses two ranks on one GPU ("Duplicate GPU detected")
            raise RuntimeError(f"trainer rank with LOCAL_RANK {local} has no GPU of its own: this node has {n}; "
                               f"set trainer.world_size / distributed.nnodes so each node runs at most {n} ranks")
        return torch.device("cuda", local)
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
        return self._shard_units([[s] for s in seqs])

    def _shard_units(self, units: list[list[dict]]) -> list[list[dict]]:
        """Micro-batches of whole units (a sequence, or a DPO pair that must stay together)."""
        mine = units[self.rank :: self.world]
        per_unit = max(len(units[0]), 1)
        mbs = max(1, self.cfg["micro_batch_size_seqs"] // per_unit)
        per_rank = math.ceil(len(units) / self.world)
        n_micro = max(1, math.ceil(per_rank / mbs))
        out = []
        for k in range(n_micro):
            mb = [s for u in mine[k * mbs : (k + 1) * mbs] for s in u]
            if not mb:  # pad with a zero-weight copy so collectives line up
                mb = [dict(s, weight=0.0, dpo_role=0) for s in units[0]]
            out.append(mb)
        return out

    # ---- commands ------------------------------------------------------------------------
    @torch.no_grad()
    def _all_logprobs(self, model, seqs: list[dict]) -> list[list[float]]:
        """Per-sequence completion log-probs under `model` (no grad), the same on every rank."""
        was_training = model.training
        model.eval()
        res: dict[int, list[float]] = {}
        indexed = [dict(s, _i=i) for i, s in enumerate(seqs)]
        for mb in self._shard(indexed):
            lp, _ = self._token_logprobs(model, mb, False)
            for j, s in enumerate(mb):
                if s.get("weight", 1.0) > 0:
                    res[s["_i"]] = lp[j, : len(s["completion_ids"])].cpu().tolist()
        if was_training:
            model.train()
        self._reshard()
        gathered = [None] * self.world
        dist.all_gather_object(gathered, res)
        merged: dict[int, list[float]] = {}
        for g in gathered:
            merged.update(g)
        return [merged[i] for i in range(len(seqs))]

    def cmd_logprobs(self, m: dict) -> dict:
        return {"logprobs": self._all_logprobs(self.model, m["seqs"])}

    # ---- train step / loss path (algorithms; weight export lives below) ---------------------
    def _units(self, seqs: list[dict]) -> list[list[dict]]:
        """Sequences grouped into what must share a micro-batch: DPO pairs, else singletons."""
        if self.spec.objective != "dpo":
            return [[s] for s in seqs]
        units = []
        for i in range(0, len(seqs) - 1, 2):
            if seqs[i].get("dpo_role") != 1 or seqs[i + 1].get("dpo_role") != -1:
                raise ValueError("online DPO batches must hold (chosen, rejected) pairs in order")
            units.append([seqs[i], seqs[i + 1]])
        return units

    def cmd_train(self, m: dict) -> dict:
        from rl_loop.algorithms import LossInputs, Normaliser, compute_loss, merge_stats, plan_updates

        t0 = time.perf_counter()
        trainer_version = m["trainer_version"]
        seqs = [dict(s) for s in m["seqs"]]
        units = self._units(seqs)
        epochs, n_mini = int(self.cfg.get("ppo_epochs", 1)), int(self.cfg.get("mini_batches", 1))
        plan = plan_updates(len(units), epochs, n_mini, self.cfg.get("seed", 0), trainer_version)
        replace_mu = self.cfg.get("behaviour_logprobs", "generator") == "recomputed"
        need_start = bool(m.get("recompute_logprobs")) or replace_mu or (
            len(plan) > 1 and self.spec.importance == "decoupled")
        # pi_start and the reference: one no-grad pass over the batch with the weights at
        # the start of this batch's updates (the proximal policy of decoupled PPO).
        t_rec = time.perf_counter()
        gaps: list[float] = []
        replaced = total = 0
        if need_start and seqs:
            for s, lp in zip(seqs, self._all_logprobs(self.model, seqs)):
                s["_start"] = lp
                ver = s.get("versions") or [0] * len(lp)
                mu = list(s.get("behaviour_logprobs") or [0.0] * len(lp))
                # Like-with-like gap: only tokens sampled with the trainer's current weights,
                # where recomputed and behaviour log-probs differ by numerics alone.
                same = [t for t, v in enumerate(ver) if v == trainer_version]
                gaps.extend(abs(lp[t] - mu[t]) for t in same)
                total += len(lp)
                if replace_mu:
                    for t in same:
                        mu[t] = lp[t]
                    replaced += len(same)
                    s["behaviour_logprobs"] = mu
        if self.ref is not None and seqs:
            for s, lp in zip(seqs, self._all_logprobs(self.ref, seqs)):
                s["_ref"] = lp
        t_rec = time.perf_counter() - t_rec
        first_parts: list[dict] = []
        last_parts: list[dict] = []
        grad_norms: list[float] = []
        per_epoch = max(len(plan) // epochs, 1)
        for u, idx in enumerate(plan):
            mb_units = [units[i] for i in idx]
            mb_seqs = [s for unit in mb_units for s in unit]
            n_tok = sum(len(s["completion_ids"]) for s in mb_seqs)
            norm = Normaliser(num_tokens=max(n_tok, 1), num_sequences=len(mb_seqs), dp_world_size=self.world)
            parts = self._accumulate(mb_units, norm, trainer_version, LossInputs, compute_loss, len(plan) > 1)
            if self.cfg.get("grad_clip"):
                gn = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg["grad_clip"])
                grad_norms.append(float(gn.full_tensor() if hasattr(gn, "full_tensor") else gn))
            if self.sender is not None:  # an export may still be reading the shards
                self.sender.before_update()
            self.opt.step()
            if u < per_epoch:  # the first pass: ratios against pi_start as the batch arrived
                first_parts.extend(parts)
            if u >= len(plan) - per_epoch:
                last_parts.extend(parts)
        self.version = trainer_version + 1
        gathered = [None] * self.world
        dist.all_gather_object(gathered, (first_parts, last_parts))
        firsts = [p for g in gathered for p in g[0]]
        lasts = [p for g in gathered for p in g[1]]
        stats = merge_stats(firsts) if firsts else {}
        for key in ("loss", "policy_loss", "kl_loss"):  # mean over the epoch's mini-batches
            if key in stats:
                stats[key] /= per_epoch
        if len(plan) > 1 and lasts:
            last = merge_stats(lasts)
            for key in ("clip_fraction", "ratio_mean", "ratio_max", "ratio_min", "importance_weight_mean"):
                if key in last:
                    stats[f"last_update_{key}"] = last[key]
        if gaps:
            g = torch.tensor(gaps, dtype=torch.float64)
            stats["recompute_gap_mean"] = float(g.mean())
            stats["recompute_gap_p95"] = float(torch.quantile(g, 0.95))
        if replace_mu:
            stats["behaviour_replaced_fraction"] = replaced / max(total, 1)
        if grad_norms:
            stats["grad_norm"] = grad_norms[0] if len(grad_norms) == 1 else sum(grad_norms) / len(grad_norms)
        stats["ppo_updates"] = len(plan)
        stats["recompute_s"] = t_rec
        stats["train_s"] = time.perf_counter() - t0
        stats["train_tokens"] = sum(len(s["completion_ids"]) for s in seqs)
        return {"stats": stats, "version": self.version}

    def _accumulate(self, mb_units, norm, trainer_version, LossInputs, compute_loss, several: bool) -> list[dict]:
        """One optimizer update's gradient: forward/backward over this rank's micro-batches."""
        parts: list[dict] = []
        self.opt.zero_grad(set_to_none=True)
        for mb in self._shard_units(mb_units):
            _, _, msk, mu, ver, T = self._pad(mb)
            logp, ent = self._token_logprobs(self.model, mb, True)
            start = self._completion_tensor(mb, "_start", T)
            adv = torch.tensor([float(s.get("advantage", 0.0)) for s in mb])
            staleness = (trainer_version - ver).clamp(min=0)
            decoupled_recompute = self.spec.importance == "decoupled" and self.spec.proximal == "recompute"
            inputs = LossInputs(
                logprobs=logp,
                behaviour_logprobs=mu.to(self.device),
                advantages=adv.to(self.device),
                mask=msk.to(self.device),
                proximal_logprobs=start if decoupled_recompute else None,
                staleness=staleness.to(self.device),
                ref_logprobs=self._completion_tensor(mb, "_ref", T),
                entropy=ent,
                start_logprobs=start if several else None,
                dpo_role=torch.tensor([int(s.get("dpo_role", 0)) for s in mb], device=self.device)
                if self.spec.objective == "dpo" else None,
            )
            out = compute_loss(inputs, self.spec, norm)
            out.loss.backward()
            if msk.sum() > 0:
                parts.append(out.stats)
        return parts

    def _completion_tensor(self, mb: list[dict], key: str, T: int):
        """[B, T] tensor of a per-token list stored on each sequence under `key` (or None)."""
        if not all(key in s for s in mb):
            return None
        out = torch.zeros(len(mb), T)
        for i, s in enumerate(mb):
            vals = s[key]
            if vals:
                out[i, : len(vals)] = torch.tensor(vals)
        return out.to(self.device)

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
        """Queue this rank's shards of the current weights; a thread sends them (from the live
        shards: the next update waits for that send, see `rl_loop.trainer_sync`)."""
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
        if self.sender is not None:
            self.sender.before_update()
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
    from rl_loop.launch import FAIL_MARK, pin_this_rank

    _exit_with_parent()
    try:
        pin_this_rank()  # before any torch thread pool exists
        device = _device()
        dist.init_process_group(backend=_backend())
    except Exception as exc:
        # One line the controller quotes (`rl_loop.trainer.last_error_line`): torchrun's own
        # summary does not carry the reason, and the other ranks die of this one's absence.
        print(f"{FAIL_MARK} rank {os.environ.get('RANK', '?')}: {type(exc).__name__}: {exc}", flush=True)
        raise
    if device.type == "cuda":
        torch.cuda.set_device(device)
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
            # Every rank has the message before any tears its group down: rank 0 destroying
            # its side while another node still reads the broadcast aborted that node's
            # worker ("terminate called without an active exception", once in a CI run).
            dist.barrier()
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
