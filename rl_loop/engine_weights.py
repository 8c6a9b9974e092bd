"""Direct copy-in: HF-named tensors -> the running vLLM model's own tensors, by plain copies.

vLLM's in-place reload (`reload_weights`) re-materialises every layer (fresh allocations,
meta-device bookkeeping) before re-running each layer's post-load processing; in one
engine it got slower with every reload here. This module maps each checkpoint name once to
a slice of an engine tensor (fused layers from the model's `packed_modules_mapping`: q/k/v
rows stacked into qkv_proj, gate/up into gate_up_proj, in list order; tensor parallel size
1) and then copies.

On the CPU build vLLM packs each linear weight into a oneDNN handle and frees the plain
tensor; the handle keeps its own copy, so a write to any tensor is not seen. We keep one
plain weight tensor per such layer (allocated once), copy into it, and re-run the layer's
own post-load step, which packs a new handle from it. The handle is kept rather than
switching to `torch.nn.functional.linear` because oneDNN's result for a row does not
depend on the batch it is computed in and torch's GEMM's does (seen: behaviour log-probs
1e-9 apart between two runs of one seed), which would break bit-identical runs. GPU layers
compute from their weight tensors and need only the copy. A model this mapping does not
cover (other module names, quantized or sharded weights) gets `None` from `build`, and
callers fall back to vLLM's reload.

`repack=False` (config `engine_copy_in: plain`) trades that away for speed: the CPU layers
switch once to torch's GEMM on the plain weights and a sync is copies only (about 0.5 s less
for 135M parameters here), at the price of runs that are no longer bit-identical.
"""
from __future__ import annotations

import torch


def _packed(module: torch.nn.Module) -> bool:
    """A CPU linear whose weight vLLM moved into a packed GEMM handle."""
    w = getattr(module, "weight", None)
    return hasattr(module, "cpu_linear") and w is not None and w.numel() == 0


class DirectCopyIn:
    def __init__(self, model: torch.nn.Module, dests: dict[str, tuple[str, str, int]],
                 new_weights: dict[str, tuple[int, ...]], repack: bool = True) -> None:
        self.model = model
        self.repack = repack
        self.dests = dests  # HF name -> (module path, parameter name, first row)
        self._targets: dict[str, torch.Tensor] = {}
        self._install(new_weights)

    @classmethod
    def build(cls, model: torch.nn.Module, shapes: dict[str, list[int]], repack: bool = True) -> "DirectCopyIn | None":
        """Map every HF name in `shapes` onto the model, or None when that is not possible."""
        fused_of: dict[str, tuple[str, list[str]]] = {}
        for fused, parts in (getattr(model, "packed_modules_mapping", None) or {}).items():
            for p in parts:
                fused_of[p] = (fused, parts)
        dests: dict[str, tuple[str, str, int]] = {}
        new_weights: dict[str, list[int]] = {}  # packed module path -> full weight shape
        for name, shape in shapes.items():
            mod_path, _, pname = name.rpartition(".")
            parent, _, leaf = mod_path.rpartition(".")
            row = 0
            if leaf in fused_of:
                fused, parts = fused_of[leaf]
                siblings = [f"{parent}.{p}.{pname}" for p in parts]
                if not all(s in shapes for s in siblings):
                    return None
                row = sum(shapes[s][0] for s in siblings[: parts.index(leaf)])
                mod_path = f"{parent}.{fused}"
                full = [sum(shapes[s][0] for s in siblings), *shape[1:]]
            else:
                full = list(shape)
            try:
                module = model.get_submodule(mod_path)
            except AttributeError:
                return None
            if _packed(module) and pname == "weight":
                new_weights[mod_path] = tuple(full)
            else:
                t = getattr(module, pname, None)
                if t is None or t.dim() != len(shape) or t.shape[0] < row + shape[0] or \
                        tuple(t.shape[1:]) != tuple(shape[1:]):
                    return None
            dests[name] = (mod_path, pname, row)
        for path, m in model.named_modules():  # a packed layer nobody writes would stay stale
            if _packed(m) and path not in new_weights:
                return None
        return cls(model, dests, new_weights, repack)

    def _install(self, new_weights: dict[str, tuple[int, ...]]) -> None:
        self._plain: dict[str, torch.Tensor] = {}
        for path, shape in new_weights.items():
            m = self.model.get_submodule(path)
            self._plain[path] = torch.zeros(shape, dtype=m.weight.dtype, device=m.weight.device)
        # Layers whose kernel reads a packed copy: packed-and-freed ones plus any other with
        # a CPU GEMM dispatch (a tied head keeps its tensor but packs a copy of it too).
        self._repack = [(p, m) for p, m in self.model.named_modules() if hasattr(m, "cpu_linear")]
        if not self.repack:
            for path, m in self._repack:
                if path in self._plain:
                    m.weight = torch.nn.Parameter(self._plain[path], requires_grad=False)
                m.cpu_linear = torch.nn.functional.linear  # reads the weight tensor we write
            self._repack = []
        for name, (path, pname, row) in self.dests.items():
            if path in self._plain and pname == "weight":
                self._targets[name] = self._plain[path]
            else:
                self._targets[name] = getattr(self.model.get_submodule(path), pname)

    def _pack(self) -> None:
        """Re-run each CPU GEMM layer's own post-load step on its new values."""
        for path, m in self._repack:
            if path in self._plain:
                m.weight = torch.nn.Parameter(self._plain[path], requires_grad=False)
            method = getattr(m, "quant_method", None)
            if method is not None and hasattr(method, "process_weights_after_loading"):
                method.process_weights_after_loading(m)

    @torch.no_grad()
    def copy(self, tensors) -> int:
        """Copy (HF name, tensor) pairs in; returns how many."""
        n = 0
        for name, t in tensors:
            dst = self._targets.get(name)
            if dst is None:
                if name == "lm_head.weight":  # tied to the embedding, which is copied
                    continue
                raise KeyError(f"{name}: not a parameter of the running model")
            row = self.dests[name][2]
            dst.data[row:row + t.shape[0]].copy_(t)
            n += 1
        return n

    def finish(self) -> None:
        """After the last `copy` of a version: packed kernels take the new values."""
        self._pack()
