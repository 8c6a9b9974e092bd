"""Checkpoint manager, weight-file round trip and the prompt sampler (no processes)."""
from __future__ import annotations

import json

import pytest

from rl_loop.checkpoint import CheckpointManager
from rl_loop.rollouts import Group, PromptSampler, Sample


def _fake_trainer_files(d):
    (d / "model.safetensors").write_bytes(b"m")
    (d / "optimizer.pt").write_bytes(b"o")


def test_commit_publishes_and_prunes(tmp_path):
    m = CheckpointManager(tmp_path, keep=2)
    assert m.latest() is None
    for step in (1, 2, 3):
        _fake_trainer_files(m.staging_dir(step))
        m.commit(step, {"step": step, "cursor": 10 * step})
    assert m.latest().name == "step_000003"
    assert CheckpointManager.read_snapshot(m.latest())["cursor"] == 30
    assert sorted(p.name for p in tmp_path.glob("step_*")) == ["step_000002", "step_000003"]


def test_half_written_checkpoint_is_invisible_and_cleaned(tmp_path):
    m = CheckpointManager(tmp_path)
    _fake_trainer_files(m.staging_dir(1))
    m.commit(1, {"step": 1})
    # a crash after the trainer wrote step 2 but before the snapshot: LATEST still names step 1
    _fake_trainer_files(m.staging_dir(2))
    assert m.latest().name == "step_000001"
    m2 = CheckpointManager(tmp_path)  # restart
    assert not list(tmp_path.glob("*.tmp"))
    assert m2.latest().name == "step_000001"


def test_commit_refuses_incomplete_model(tmp_path):
    m = CheckpointManager(tmp_path)
    (m.staging_dir(1) / "model.safetensors").write_bytes(b"m")
    with pytest.raises(FileNotFoundError, match="optimizer.pt"):
        m.commit(1, {})
    assert m.latest() is None


def test_sampler_is_a_pure_function_of_seed_and_index():
    ids = [f"p{i}" for i in range(7)]
    a, b = PromptSampler(ids, seed=3), PromptSampler(list(reversed(ids)), seed=3)
    seq = [a.problem_at(i) for i in range(30)]
    assert seq == [b.problem_at(i) for i in range(30)]
    # each epoch is a permutation of all problems
    assert sorted(seq[:7]) == sorted(ids) and sorted(seq[7:14]) == sorted(ids)
    assert seq != [PromptSampler(ids, seed=4).problem_at(i) for i in range(30)]
    # random access (as after a resume) gives the same answer as sequential access
    c = PromptSampler(ids, seed=3)
    assert [c.problem_at(i) for i in (25, 3, 17)] == [seq[25], seq[3], seq[17]]


def test_group_json_round_trip():
    g = Group(4, "p", [1, 2], [Sample([3, 4], [-0.5, -1.0], [2, 2], "x", 1.0)])
    back = Group.from_json(json.loads(json.dumps(g.to_json())))
    assert back == g and back.versions == [2, 2] and back.rewards == [1.0]


def test_weight_file_round_trip(tmp_path):
    torch = pytest.importorskip("torch")
    pytest.importorskip("safetensors")
    from safetensors.torch import load_file

    from rl_loop.weight_sync import write_state_dict

    emb = torch.randn(10, 4)
    sd = {"model.embed_tokens.weight": emb, "lm_head.weight": emb, "model.norm.weight": torch.ones(4)}
    info = write_state_dict(sd, tmp_path / "w.safetensors")
    back = load_file(str(tmp_path / "w.safetensors"))
    assert set(back) == {"model.embed_tokens.weight", "model.norm.weight"}  # tied head dropped
    assert torch.equal(back["model.embed_tokens.weight"], emb)
    assert info["bytes"] == (40 + 4) * 4
    assert not list(tmp_path.glob("*.tmp"))
