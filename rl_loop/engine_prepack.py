"""Next-version CPU GEMM kernels, packed while the engine still computes with the current ones.

On vLLM's CPU build every linear layer (and a tied output head) computes with a kernel handle
packed from its weight (oneDNN; see `rl_loop.engine_weights`). Packing was most of a sync's
copy-in (0.35 s for SmolLM2-135M fp32, 2 cores), and it was paid after the whole transfer.
A handle is an object of its own, so one packed from version v + 1 can be built while the
layer still computes with version v's, and installed later by swapping one attribute. The
receiver thread therefore packs each layer as soon as all of its rows have arrived
(`stage`, overlapping the rest of the transfer), and `load` only swaps them in (`install`).

Each handle is made by the layer's own post-load step (`quant_method.process_weights_after_loading`)
run on a stand-in module that holds only the new weight: the same vLLM code that packs at
start-up and in the serial path, so the engine computes with the same kernels and values and
runs stay bit-identical. This needs a packed handle to own a copy of its weight (the staging
buffer it is packed from is overwritten by the next version); `kernels_own_their_weights`
checks that once on the running engine, and without it the caller keeps the serial path.
"""
from __future__ import annotations

import torch


def _stand_in(layer: torch.nn.Module, weight: torch.Tensor) -> torch.nn.Module:
    """A module with only what a CPU GEMM dispatch reads: the weight (and a skip flag)."""
    s = torch.nn.Module()
    s.weight = torch.nn.Parameter(weight, requires_grad=False)
    # No bias: the kernels take the live layer's bias at call time, and a dispatch that
    # converts a bias in place must not touch the live one while the engine computes.
    s.bias = None
    if hasattr(layer, "_cpu_skip_gemm_dispatch"):
        s._cpu_skip_gemm_dispatch = layer._cpu_skip_gemm_dispatch
    return s


def pack_like(layer: torch.nn.Module, weight: torch.Tensor):
    """The `cpu_linear` kernel `layer`'s own post-load step packs from `weight`."""
    s = _stand_in(layer, weight)
    layer.quant_method.process_weights_after_loading(s)
    return s.cpu_linear


@torch.no_grad()
def kernels_own_their_weights(layer: torch.nn.Module, shape: tuple[int, ...], dtype: torch.dtype) -> bool:
    """Pack `layer`'s kernel from a probe weight, then change the probe: same output?

    A kernel that keeps a view of its weight (e.g. an unpacked fallback) would compute with
    the next version's values as soon as they land in the staging buffer.
    """
    g = torch.Generator().manual_seed(0)
    probe = torch.randn(shape, generator=g).to(dtype)
    x = torch.randn(2, shape[1], generator=g).to(dtype)
    kernel = pack_like(layer, probe)
    before = kernel(x, probe, None).clone()
    probe.add_(1.0)
    return torch.equal(kernel(x, probe, None), before)


class NextKernels:
    """Packs each layer's next kernel as its rows arrive; `install` swaps them all in.

    `layers`: module path -> (module, full weight shape, [(HF name, first row), ...]) with
    the pieces that tile the weight's rows. `scratch_init`: for a layer whose live weight has
    rows no piece covers (a padded vocabulary), its current weight, so those rows are kept.
    """

    def __init__(self, layers: dict[str, tuple[torch.nn.Module, tuple[int, ...], list[tuple[str, int]]]],
                 scratch_init: dict[str, torch.Tensor] | None = None) -> None:
        self.layers = layers
        self.pack_cpu_s = 0.0  # CPU seconds of all packs so far
        self.pack_minflt = 0  # their page faults
        self._uses: dict[str, list[str]] = {}
        for path, (_, _, pieces) in layers.items():
            for name, _ in pieces:
                self._uses.setdefault(name, []).append(path)
        self._scratch_init = scratch_init or {}
        self._scratch: dict[str, torch.Tensor] = {}
        self._staged: dict[str, torch.Tensor] = {}
        self._ready: dict[str, object] = {}

    def names(self) -> set[str]:
        return set(self._uses)

    @torch.no_grad()
    def stage(self, name: str, tensor: torch.Tensor) -> None:
        """`name`'s new value has fully arrived (receiver thread): pack every layer it completes."""
        if name not in self._uses:
            return
        self._staged[name] = tensor
        for path in self._uses[name]:
            layer, shape, pieces = self.layers[path]
            if path not in self._ready and all(n in self._staged for n, _ in pieces):
                self._ready[path] = self._pack(layer, self._source(path, shape, pieces))

    def _pack(self, layer: torch.nn.Module, src: torch.Tensor):
        from rl_loop.weight_receiver import _thread_usage

        c0, f0 = _thread_usage()
        kernel = pack_like(layer, src)
        c1, f1 = _thread_usage()
        self.pack_cpu_s += c1 - c0
        self.pack_minflt += f1 - f0
        return kernel

    def _source(self, path: str, shape, pieces) -> torch.Tensor:
        """The full new weight: the staging tensors themselves when they are one contiguous
        block in row order (q, k, v arrive adjacent), else a copy into a scratch tensor."""
        parts = sorted(((row, self._staged[n]) for n, row in pieces), key=lambda p: p[0])
        first = parts[0][1]
        adjacent, expect_row, expect_ptr = True, 0, first.data_ptr()
        for row, t in parts:
            if row != expect_row or not t.is_contiguous() or t.data_ptr() != expect_ptr:
                adjacent = False
                break
            expect_row += t.shape[0]
            expect_ptr += t.numel() * t.element_size()
        if adjacent and expect_row == shape[0] and tuple(first.shape[1:]) == tuple(shape[1:]):
            return first.as_strided(tuple(shape), first.new_empty(tuple(shape)).stride())
        dst = self._scratch.get(path)
        if dst is None:
            init = self._scratch_init.get(path)
            dst = init.clone() if init is not None else torch.zeros(shape, dtype=first.dtype, device=first.device)
            self._scratch[path] = dst
        for row, t in parts:
            dst[row:row + t.shape[0]].copy_(t)
        return dst

    def complete(self) -> bool:
        return len(self._ready) == len(self.layers)

    def install(self) -> None:
        """Every layer computes with its new kernel from now on (the old handles are freed)."""
        for path, (layer, _, _) in self.layers.items():
            layer.cpu_linear = self._ready[path]
        self.clear()

    def clear(self) -> None:
        self._staged.clear()
        self._ready.clear()
