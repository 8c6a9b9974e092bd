"""Kernels packed ahead (receiver thread) vs packed after the copy (serial path), without vLLM.

A fake CPU GEMM method stands in for vLLM's: its post-load step packs a private copy of the
weight (as oneDNN's handle does) and frees the layer's tensor. Two identical models get the
same versions, one through `stage` + `load(prepared=True)`, one through the serial path;
every layer must then compute bit-identically, with values known by construction (the
concatenation of the HF tensors in vLLM's fused order). Also checked: staging changes
nothing until `load` (export now, load later), the staging buffer can be overwritten after
it, and a kernel that keeps a view of its weight turns packing ahead off.
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from rl_loop.engine_weights import DirectCopyIn  # noqa: E402

H, Q, KV, F, V = 4, 4, 2, 6, 10


class _Method:
    def __init__(self, keeps_view: bool = False) -> None:
        self.keeps_view = keeps_view

    def process_weights_after_loading(self, layer) -> None:
        w = layer.weight.detach()
        packed = w if self.keeps_view else w.t().contiguous().t() * 1.0  # a copy of its own
        layer.cpu_linear = lambda x, weight, bias: x @ packed.t()
        if w.shape[0] != V:  # linears free their tensor; the head keeps the embedding's
            layer.weight = torch.nn.Parameter(torch.empty(0), requires_grad=False)


class _Lin(torch.nn.Module):
    def __init__(self, out: int, inp: int, method: _Method) -> None:
        super().__init__()
        self.quant_method = method
        self.weight = torch.nn.Parameter(torch.zeros(out, inp), requires_grad=False)
        method.process_weights_after_loading(self)


class _Model(torch.nn.Module):
    packed_modules_mapping = {"qkv_proj": ["q_proj", "k_proj", "v_proj"], "gate_up_proj": ["gate_proj", "up_proj"]}

    def __init__(self, method: _Method) -> None:
        super().__init__()
        self.model = torch.nn.Module()
        self.model.embed_tokens = torch.nn.Module()
        self.model.embed_tokens.weight = torch.nn.Parameter(torch.zeros(V, H), requires_grad=False)
        self.model.norm = torch.nn.Module()
        self.model.norm.weight = torch.nn.Parameter(torch.zeros(H), requires_grad=False)
        layer = torch.nn.Module()
        layer.self_attn = torch.nn.Module()
        layer.self_attn.qkv_proj = _Lin(Q + 2 * KV, H, method)
        layer.self_attn.o_proj = _Lin(H, Q, method)
        layer.mlp = torch.nn.Module()
        layer.mlp.gate_up_proj = _Lin(2 * F, H, method)
        layer.mlp.down_proj = _Lin(H, F, method)
        self.model.layers = torch.nn.ModuleList([layer])
        self.lm_head = torch.nn.Module()  # tied: shares the embedding's tensor, own kernel
        self.lm_head.quant_method = method
        self.lm_head.weight = self.model.embed_tokens.weight
        method.process_weights_after_loading(self.lm_head)


P = "model.layers.0."
SHAPES = {"model.embed_tokens.weight": (V, H), P + "self_attn.q_proj.weight": (Q, H),
          P + "self_attn.k_proj.weight": (KV, H), P + "self_attn.v_proj.weight": (KV, H),
          P + "self_attn.o_proj.weight": (H, Q), P + "mlp.gate_proj.weight": (F, H),
          P + "mlp.up_proj.weight": (F, H), P + "mlp.down_proj.weight": (H, F), "model.norm.weight": (H,)}


def _version(v: int) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(v)
    return {k: torch.randn(s, generator=g) for k, s in SHAPES.items()}


def _staged(hf: dict[str, torch.Tensor]) -> tuple[torch.Tensor, list[tuple[str, torch.Tensor]]]:
    """The receiver's layout: one flat buffer, each parameter a view, in plan order."""
    flat = torch.cat([t.reshape(-1) for t in hf.values()])
    out, off = [], 0
    for k, t in hf.items():
        out.append((k, flat[off:off + t.numel()].view(t.shape)))
        off += t.numel()
    return flat, out


def _outputs(model: _Model) -> dict[str, torch.Tensor]:
    x = torch.randn(3, max(H, Q, F), generator=torch.Generator().manual_seed(99))
    out = {}
    for path, m in model.named_modules():
        if hasattr(m, "cpu_linear") and path != "model.embed_tokens":
            k = {"self_attn.o_proj": Q, "mlp.down_proj": F}.get(path.removeprefix(P), H)
            out[path] = m.cpu_linear(x[:, :k], m.weight, None)
    out["norm"] = model.model.norm.weight.clone()
    out["embed"] = model.model.embed_tokens.weight.clone()
    return out


def _expected(hf: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """Each layer's output computed from the HF tensors directly (fused in vLLM's order)."""
    x = torch.randn(3, max(H, Q, F), generator=torch.Generator().manual_seed(99))
    w = {"model.layers.0.self_attn.qkv_proj": torch.cat([hf[P + f"self_attn.{p}_proj.weight"] for p in "qkv"]),
         "model.layers.0.self_attn.o_proj": hf[P + "self_attn.o_proj.weight"],
         "model.layers.0.mlp.gate_up_proj": torch.cat([hf[P + "mlp.gate_proj.weight"], hf[P + "mlp.up_proj.weight"]]),
         "model.layers.0.mlp.down_proj": hf[P + "mlp.down_proj.weight"], "lm_head": hf["model.embed_tokens.weight"]}
    return {k: x[:, :t.shape[1]] @ t.t() for k, t in w.items()}


def _serial_and_prepared():
    shapes = {k: list(s) for k, s in SHAPES.items()}
    models = [_Model(_Method()), _Model(_Method())]
    copies = [DirectCopyIn.build(m, shapes) for m in models]
    assert all(c is not None and c.next is not None for c in copies)
    return models, copies


def test_kernels_packed_ahead_compute_exactly_like_the_serial_path():
    (serial_m, prep_m), (serial, prep) = _serial_and_prepared()
    for v in (1, 2):
        hf = _version(v)
        serial.load(iter(hf.items()))
        flat, staged = _staged(hf)
        before = _outputs(prep_m)
        for name, t in staged:
            prep.stage(name, t)
        assert prep.next.complete()
        after_stage = _outputs(prep_m)  # staged, not loaded: still the previous version
        assert all(torch.equal(before[k], after_stage[k]) for k in before)
        prep.load(iter(staged), prepared=True)
        a, b = _outputs(serial_m), _outputs(prep_m)
        assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a), v
        exp = _expected(hf)
        assert all(torch.allclose(b[k], exp[k]) for k in exp)
        flat.fill_(7.0)  # the receiver reuses its buffer for the next version
        c = _outputs(prep_m)
        assert all(torch.equal(b[k], c[k]) for k in b)


def test_an_incomplete_preparation_falls_back_to_packing_at_load():
    (serial_m, prep_m), (serial, prep) = _serial_and_prepared()
    hf = _version(3)
    serial.load(iter(hf.items()))
    _, staged = _staged(hf)
    for name, t in staged[:2]:  # only part of the version was seen
        prep.stage(name, t)
    assert not prep.next.complete()
    prep.load(iter(staged), prepared=True)
    a, b = _outputs(serial_m), _outputs(prep_m)
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_a_kernel_that_views_its_weight_turns_packing_ahead_off():
    model = _Model(_Method(keeps_view=True))
    direct = DirectCopyIn.build(model, {k: list(s) for k, s in SHAPES.items()})
    assert direct is not None and direct.next is None
