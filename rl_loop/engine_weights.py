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

In-place syncs take the re-pack off the critical path: the receiver thread packs each layer's
next kernel as soon as its rows have arrived (`stage`, see `rl_loop.engine_prepack`), and
`load(..., prepared=True)` then copies only the tensors the engine reads directly (norms,
embedding) and swaps the kernels in. Same kernels from the same values as the serial path
(copy, then `finish`), which file loads and any version not fully prepared still take.

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
        # vLLM also packs the input embedding's weight (its embedding method shares the head's
        # post-load step), but an embedding only looks rows up; the tied head is a module of
        # its own with its own kernel. Packing it is a copy of the vocabulary per sync for
        # nothing: it computes with torch's GEMM on its live weight if anything ever calls it.
        emb = getattr(getattr(self.model, "model", None), "embed_tokens", None)
        head = getattr(self.model, "lm_head", None)
        if emb is not None and head is not None and emb is not head and hasattr(emb, "cpu_linear") \
                and getattr(emb, "weight", None) is not None and emb.weight.numel():
            emb.cpu_linear = torch.nn.functional.linear
            self._repack = [(p, m) for p, m in self._repack if m is not emb]
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
        # HF names that only feed a packed kernel (nothing reads their plain tensor)
        self._packed_only = frozenset(n for n, (p, pn, _) in self.dests.items() if p in self._plain and pn == "weight")
        self.next = self._plan_next()

    def _plan_next(self):
        """Which HF tensors make each CPU GEMM layer's weight, for packing ahead (None: the
        serial path only, e.g. on GPU, without re-pack, or a kernel that views its weight)."""
        from rl_loop.engine_prepack import NextKernels, kernels_own_their_weights

        if not self._repack:
            return None
        layers, scratch_init, probes = {}, {}, {}
        for path, m in self._repack:
            if not hasattr(getattr(m, "quant_method", None), "process_weights_after_loading"):
                return None
            if path in self._plain:  # packed and freed: rows from the fused HF names
                plain = self._plain[path]
                pieces = [(n, row) for n, (p, pn, row) in self.dests.items() if p == path and pn == "weight"]
                shape, dtype = tuple(plain.shape), plain.dtype
            else:  # keeps its weight (a tied head): the HF tensor written into that tensor
                w = m.weight
                pieces = [(n, self.dests[n][2]) for n, t in self._targets.items()
                          if n not in self._packed_only and t.data_ptr() == w.data_ptr()]
                if len(pieces) != 1:
                    return None
                shape, dtype = tuple(w.shape), w.dtype
                if tuple(self._targets[pieces[0][0]].shape) != shape:
                    return None
                scratch_init[path] = w.detach()  # rows no HF tensor covers (padding) stay
            layers[path] = (m, shape, pieces)
            probes.setdefault((type(m.quant_method), shape, dtype), m)
        for (_, shape, dtype), m in probes.items():
            if not kernels_own_their_weights(m, shape, dtype):
                return None
        return NextKernels(layers, scratch_init)

    def _pack(self) -> None:
        """Re-run each CPU GEMM layer's own post-load step on its new values."""
        for path, m in self._repack:
            if path in self._plain:
                m.weight = torch.nn.Parameter(self._plain[path], requires_grad=False)
            method = getattr(m, "quant_method", None)
            if method is not None and hasattr(method, "process_weights_after_loading"):
                method.process_weights_after_loading(m)

    def stage(self, name: str, tensor: torch.Tensor) -> None:
        """`name` of the next version has arrived in full (receiver thread): pack ahead."""
        if self.next is not None:
            self.next.stage(name, tensor)

    def load(self, tensors, retie=lambda: None, prepared: bool = False) -> int:
        """Copy a version in and make every kernel compute with it; returns tensors copied.

        `prepared`: the tensors are the staged version `stage` has seen, so kernels packed
        ahead are swapped in; when any is missing every layer is packed here (serial path).
        `retie` runs after the copies, before the kernels change (a tied head's tensor).
        """
        use_next = prepared and self.next is not None and self.next.complete()
        try:
            n = self.copy(tensors, skip=self._packed_only if use_next else frozenset())
            retie()
            if use_next:
                self.next.install()
            else:
                self._pack()
        finally:
            if prepared and self.next is not None:
                self.next.clear()
        return n

    @torch.no_grad()
    def copy(self, tensors, skip=frozenset()) -> int:
        """Copy (HF name, tensor) pairs in, but not the names in `skip`; returns how many."""
        n = 0
        for name, t in tensors:
            if name in skip:
                continue
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
