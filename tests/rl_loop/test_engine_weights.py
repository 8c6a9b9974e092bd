"""Direct copy-in's name mapping, on a model laid out like vLLM's Llama (no vLLM needed).

The expected engine tensors are built independently, by concatenating the HF tensors in the
order vLLM fuses them (q, k, v -> qkv_proj; gate, up -> gate_up_proj).
"""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from rl_loop.engine_weights import DirectCopyIn  # noqa: E402

H, Q, KV, F = 4, 4, 2, 6


class _Lin(torch.nn.Module):
    def __init__(self, out: int, inp: int, packed: bool = False) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.empty(0 if packed else out, *([] if packed else [inp])),
                                         requires_grad=False)
        if packed:
            self.cpu_linear = "packed"  # what vLLM's CPU dispatch leaves behind


class _Model(torch.nn.Module):
    packed_modules_mapping = {"qkv_proj": ["q_proj", "k_proj", "v_proj"], "gate_up_proj": ["gate_proj", "up_proj"]}

    def __init__(self, packed: bool) -> None:
        super().__init__()
        self.model = torch.nn.Module()
        self.model.embed_tokens = _Lin(10, H)
        self.model.norm = torch.nn.Module()
        self.model.norm.weight = torch.nn.Parameter(torch.zeros(H), requires_grad=False)
        layer = torch.nn.Module()
        layer.self_attn = torch.nn.Module()
        layer.self_attn.qkv_proj = _Lin(Q + 2 * KV, H, packed)
        layer.self_attn.o_proj = _Lin(H, Q, packed)
        layer.mlp = torch.nn.Module()
        layer.mlp.gate_up_proj = _Lin(2 * F, H, packed)
        layer.mlp.down_proj = _Lin(H, F, packed)
        self.model.layers = torch.nn.ModuleList([layer])


def _hf() -> dict[str, torch.Tensor]:
    shapes = {"model.embed_tokens.weight": (10, H), "model.norm.weight": (H,),
              "model.layers.0.self_attn.q_proj.weight": (Q, H), "model.layers.0.self_attn.k_proj.weight": (KV, H),
              "model.layers.0.self_attn.v_proj.weight": (KV, H), "model.layers.0.self_attn.o_proj.weight": (H, Q),
              "model.layers.0.mlp.gate_proj.weight": (F, H), "model.layers.0.mlp.up_proj.weight": (F, H),
              "model.layers.0.mlp.down_proj.weight": (H, F)}
    g = torch.Generator().manual_seed(0)
    return {k: torch.randn(s, generator=g) for k, s in shapes.items()}


@pytest.mark.parametrize("packed", [False, True])
def test_checkpoint_names_land_in_the_fused_engine_tensors(packed):
    model, hf = _Model(packed), _hf()
    direct = DirectCopyIn.build(model, {k: list(v.shape) for k, v in hf.items()}, repack=False)
    assert direct is not None
    assert direct.copy(hf.items()) == len(hf)
    p = "model.layers.0."
    qkv = torch.cat([hf[p + f"self_attn.{x}_proj.weight"] for x in "qkv"])
    gate_up = torch.cat([hf[p + "mlp.gate_proj.weight"], hf[p + "mlp.up_proj.weight"]])
    layer = model.model.layers[0]
    assert torch.equal(layer.self_attn.qkv_proj.weight, qkv)
    assert torch.equal(layer.mlp.gate_up_proj.weight, gate_up)
    assert torch.equal(layer.mlp.down_proj.weight, hf[p + "mlp.down_proj.weight"])
    assert torch.equal(model.model.norm.weight, hf["model.norm.weight"])
    if packed:  # plain mode: the layers now compute with torch's GEMM on the written tensors
        assert layer.self_attn.o_proj.cpu_linear is torch.nn.functional.linear


def test_a_model_the_mapping_does_not_cover_falls_back():
    hf = _hf()
    shapes = {k: list(v.shape) for k, v in hf.items()}
    assert DirectCopyIn.build(_Model(False), dict(shapes, **{"model.extra.weight": [3]})) is None
    assert DirectCopyIn.build(_Model(False), dict(shapes, **{"model.norm.weight": [H + 1, 2]})) is None
    model = _Model(True)
    model.model.layers[0].mlp.add_module("stray", _Lin(3, 3, packed=True))  # packed, never written
    assert DirectCopyIn.build(model, shapes) is None
