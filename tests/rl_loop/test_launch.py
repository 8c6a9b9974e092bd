"""Launch settings: multi-node torchrun lines, core shares, and the config checks around them."""
from __future__ import annotations

import pytest

from rl_loop.config import ConfigError, load_config
from rl_loop.launch import rank_cores, torchrun_cmd


def test_one_node_is_standalone_and_several_join_a_c10d_rendezvous():
    one = torchrun_cmd(2, 1, 0, None, "x")
    assert "--standalone" in one and "--nproc_per_node=2" in one
    two = torchrun_cmd(4, 2, 1, "10.0.0.1:29400", "job7")
    assert "--standalone" not in two
    for arg in ("--nproc_per_node=2", "--nnodes=2", "--node-rank=1", "--rdzv-backend=c10d",
                "--rdzv-endpoint=10.0.0.1:29400", "--rdzv-id=job7"):
        assert arg in two
    assert two[-2:] == ["-m", "rl_loop.trainer_worker"]


def test_core_shares_are_disjoint_and_cover_the_list():
    cores = [2, 3, 4, 5]
    shares = [rank_cores(cores, i, 2) for i in range(2)]
    assert shares == [[2, 3], [4, 5]]
    assert [rank_cores([7], i, 3) for i in range(3)] == [[7], [7], [7]]  # fewer cores than ranks: shared


@pytest.mark.parametrize("over,needle", [
    (["trainer.world_size=3", "distributed.nnodes=2", "distributed.rdzv_endpoint=h:1",
      "distributed.controller_port=5"], "divisible by distributed.nnodes"),
    (["distributed.nnodes=2", "trainer.world_size=2"], "rdzv_endpoint"),
    (["distributed.node_rank=1"], "node_rank=1 must be < distributed.nnodes=1"),
    (["generation.cpu_cores=[0, 1]", "trainer.cpu_cores=[1]", "staleness.max_staleness=1"], "overlap on [1]"),
    (["trainer.cpu_cores=[0, 0]"], "distinct"),
    (["distributed.weight_sync=nccl"], "weight_sync"),
])
def test_bad_distributed_settings_are_rejected_with_the_fields_named(over, needle):
    with pytest.raises(ConfigError) as e:
        load_config(None, over + ["trainer.micro_batch_size_seqs=1"])
    assert needle in str(e.value)


def test_a_synchronous_run_may_share_cores_between_generation_and_training():
    cfg = load_config(None, ["generation.cpu_cores=[0, 1]", "trainer.cpu_cores=[0, 1]", "staleness.max_staleness=0",
                             "trainer.micro_batch_size_seqs=1"])
    assert cfg.trainer.cpu_cores == [0, 1]


def test_disjoint_cores_and_two_nodes_are_accepted():
    cfg = load_config(None, ["generation.cpu_cores=[0]", "trainer.cpu_cores=[1]", "distributed.nnodes=2",
                             "trainer.world_size=2", "distributed.rdzv_endpoint=127.0.0.1:29400",
                             "distributed.controller_port=29500", "trainer.micro_batch_size_seqs=1"])
    assert cfg.distributed.weight_sync == "group" and cfg.trainer.world_size == 2


def test_a_rank_that_dies_before_connecting_is_reported_with_its_reason(tmp_path):
    """The controller's error carries the rank's own exception line, not only a log path
    (e.g. a GPU rank with no device of its own, or here a core this machine does not have)."""
    pytest.importorskip("torch")
    import os

    from rl_loop.trainer import Trainer, TrainerError, TrainerSettings

    log = tmp_path / "trainer.log"
    bad_core = max(os.sched_getaffinity(0)) + 1000
    t = Trainer(TrainerSettings(model_path=str(tmp_path / "unused"), world_size=1, cpu_cores=[bad_core],
                                log_path=str(log), start_timeout_s=120))
    with pytest.raises(TrainerError, match=r"before connecting: rank 0: OSError: .*Invalid argument") as err:
        t.start()
    assert str(log) in str(err.value)


def test_last_error_line_finds_the_reason_and_nothing_in_a_clean_log(tmp_path):
    from rl_loop.trainer import last_error_line

    log = tmp_path / "l.log"
    log.write_text("starting\nTraceback (most recent call last):\n  File \"x.py\", line 1\n"
                   "torch.distributed.DistBackendError: NCCL error: Duplicate GPU detected\nexit\n")
    assert last_error_line(str(log)) == "torch.distributed.DistBackendError: NCCL error: Duplicate GPU detected"
    from rl_loop.launch import FAIL_MARK

    log.write_text(f"{FAIL_MARK} rank 1: RuntimeError: no GPU of its own\nDistBackendError: rank 0 lost its peer\n")
    assert last_error_line(str(log)) == "rank 1: RuntimeError: no GPU of its own"  # the cause, not the aftermath
    log.write_text("all fine\n")
    assert last_error_line(str(log)) is None
    assert last_error_line(str(tmp_path / "missing.log")) is None
