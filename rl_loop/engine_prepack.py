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

import math
import threading
from concurrent.futures import Future, ThreadPoolExecutor

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

    `workers` > 1: packs run on that many threads, started by the first `stage` (so they
    inherit the staging thread's cores), and `wait` collects them. Packing is single-threaded
    CPU work that lagged behind the transfer (0.25-0.35 s of it against ~0.2 s of gloo for
    SmolLM2-135M); with one packer the tail after the last byte ran on one core while the
    other idled. Each kernel is still made by the same call on the same values.
    """

    def __init__(self, layers: dict[str, tuple[torch.nn.Module, tuple[int, ...], list[tuple[str, int]]]],
                 scratch_init: dict[str, torch.Tensor] | None = None, workers: int = 1) -> None:
        self.layers = layers
        self.workers = workers
        self._pool: list[ThreadPoolExecutor] | None = None
        self._usage_lock = threading.Lock()
        self.pack_cpu_s = 0.0  # CPU seconds of all packs so far (every thread)
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
                src = self._source(path, shape, pieces)
                if self.workers > 1:
                    self._ready[path] = self._packer(path, shape).submit(self._pack, layer, src)
                else:
                    self._ready[path] = self._pack(layer, src)

    def _packer(self, path: str, shape) -> ThreadPoolExecutor:
        """The thread that packs `path`: fixed per layer, first come to the least loaded one.
        Fixed so each thread allocates the same kernels every version: the memory they free
        is then what the next version reuses (with one shared pool, layers moved between
        threads and later syncs paid 31k-51k page faults instead of 27.6k, the head's alone)."""
        if self._pool is None:
            self._pool = [ThreadPoolExecutor(1, thread_name_prefix=f"rl-pack{i}") for i in range(self.workers)]
            self._load = [0] * self.workers
            self._thread_of: dict[str, int] = {}
        i = self._thread_of.get(path)
        if i is None:
            i = self._thread_of[path] = min(range(self.workers), key=self._load.__getitem__)
            self._load[i] += math.prod(shape)
        return self._pool[i]

    def _pack(self, layer: torch.nn.Module, src: torch.Tensor):
        from rl_loop.weight_receiver import _thread_usage

        c0, f0 = _thread_usage()
        with torch.no_grad():  # grad mode is per thread
            kernel = pack_like(layer, src)
        c1, f1 = _thread_usage()
        with self._usage_lock:
            self.pack_cpu_s += c1 - c0
            self.pack_minflt += f1 - f0
        return kernel

    def wait(self) -> None:
        """Every pack submitted so far has finished (raises what a pack raised)."""
        for path, k in list(self._ready.items()):
            if isinstance(k, Future):
                self._ready[path] = k.result()

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
        self.wait()
        return len(self._ready) == len(self.layers)

    def install(self) -> None:
        """Every layer computes with its new kernel from now on (the old handles are freed)."""
        self.wait()
        for path, (layer, _, _) in self.layers.items():
            layer.cpu_linear = self._ready[path]
        self.clear()

    def clear(self) -> None:
        for k in self._ready.values():  # no pack may still run on a buffer about to be reused
            if isinstance(k, Future):
                k.cancel() or k.exception()
        self._staged.clear()
        self._ready.clear()
