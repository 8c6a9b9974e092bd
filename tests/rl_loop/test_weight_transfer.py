"""The weight group's transfer without vLLM or FSDP: shard pieces in, whole tensors out.

Two "trainer ranks" each hold half the rows of every parameter (as FSDP2 shards dim 0, one
rank holding an empty piece of a 1-row parameter) and one "engine" stages them. Expected
tensors are known by construction (version v of parameter i is `v * 1000 + i + arange`).
Each rank changes its parameters right after `export`, as the next optimizer step would
(after `before_update`, the sender's contract: sends read the live shards): the engine must
still receive exactly what was exported ("export now, load later"). With `hold`, the engine
keeps version 1 staged until the trainers have changed their weights after exporting
version 2, so version 2 cannot be sending yet and `before_update` must snapshot it.
"""
from __future__ import annotations

import multiprocessing as mp

import pytest

torch = pytest.importorskip("torch")

SHAPES = {"emb.weight": [5, 3], "norm.weight": [4], "head.bias": [1]}


def _full(name: str, version: int) -> torch.Tensor:
    i = list(SHAPES).index(name)
    n = 1
    for d in SHAPES[name]:
        n *= d
    return (version * 1000 + i + torch.arange(n, dtype=torch.float32)).view(SHAPES[name])


def _rows(name: str, rank: int) -> slice:
    n = SHAPES[name][0]
    per = -(-n // 2)  # torch.chunk sizes: ceil, remainder last
    return slice(min(rank * per, n), min((rank + 1) * per, n))


def _trainer(spec, rank, q, hold=False):
    try:
        from rl_loop.trainer_sync import ShardSender
        from rl_loop.weight_group import join

        model = torch.nn.Module()
        for name in SHAPES:
            mod, pname = name.split(".")
            if not hasattr(model, mod):
                model.add_module(mod, torch.nn.Module())
            getattr(model, mod).register_parameter(pname, torch.nn.Parameter(_full(name, 1)[_rows(name, rank)].clone()))
        sender = ShardSender(model, rank, 2)
        q.put(("plan", rank, sender.local_plan()))
        sender.join(*join(spec, rank), [2])
        live = []
        for v in (1, 2):
            with torch.no_grad():
                for name, p in model.named_parameters():
                    p.copy_(_full(name, v)[_rows(name, rank)])
            live.append(sender.export(v)["live"])
            sender.before_update()
            with torch.no_grad():  # the next "optimizer step" must not leak into version v
                for p in model.parameters():
                    p.add_(0.5)
        if hold:
            sender.store.add(f"changed{rank}", 1)
        import time

        while len(sender.sent) < 2 and sender._error is None:
            time.sleep(0.01)
        if sender._error:
            q.put(("done", rank, repr(sender._error)))
        elif not all(live) or (hold and sender.update_snapshots < 1):  # v2 could not be sending yet
            q.put(("done", rank, f"live exports {live}, snapshots taken before an update {sender.update_snapshots}"))
        else:
            q.put(("done", rank, None))
    except BaseException as exc:  # noqa: BLE001 - reported to the test
        q.put(("done", rank, repr(exc)))


def _engine(spec, plan, q, hold=False):
    try:
        from rl_loop.weight_group import join
        from rl_loop.weight_receiver import ShardReceiver

        from rl_loop.weight_group import backend_name

        pg, store = join(spec, 2)
        if backend_name(pg) != "gloo":  # "auto" on CPU members
            raise RuntimeError(f"members without GPUs chose {backend_name(pg)}")
        rx = ShardReceiver(pg, store, plan, 2, torch.device("cpu"), shared=spec["same_host"] == "shared_memory")
        rx.start()
        bad = []
        for v in (1, 2):
            for name, t in rx.take(v, 60):
                if not torch.equal(t, _full(name, v)):
                    bad.append((v, name, t.tolist()))
            if hold and v == 1:  # both trainers have changed their weights after exporting v2
                for r in range(2):
                    store.wait([f"changed{r}"])
            rx.release()
        q.put(("engine", bad, sorted(rx.shared_ranks)))
    except BaseException as exc:  # noqa: BLE001
        q.put(("engine", repr(exc)))


def two_ranks_and_an_engine(engine, engine_args, hold=False, same_host="shared_memory") -> list:
    """Start the weight group's store, two ``_trainer`` ranks and ``engine(spec, plan,
    *engine_args, q)`` (the plan merged from both ranks); the three results put on the queue."""
    from rl_loop.weight_group import GroupSpec, WeightStore, default_backend

    store = WeightStore("127.0.0.1", timeout_s=60)
    spec = GroupSpec("127.0.0.1", store.port, 3, default_backend(), timeout_s=60, same_host=same_host).to_dict()
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    trainers = [ctx.Process(target=_trainer, args=(spec, r, q, hold)) for r in range(2)]
    for p in trainers:
        p.start()
    plans = {}
    while len(plans) < 2:
        kind, rank, plan = q.get(timeout=60)
        assert kind == "plan", plan
        plans[rank] = plan
    # plain tensors report their local shape; FSDP's DTensors report the full one
    plan = [dict(p, shape=SHAPES[p["name"]], rows=[plans[0][i]["rows"], plans[1][i]["rows"]])
            for i, p in enumerate(plans[0])]
    assert plan[2]["rows"] == [1, 0]  # a rank may hold no rows of a parameter
    eng = ctx.Process(target=engine, args=(spec, plan, *engine_args, q))
    eng.start()
    results = [q.get(timeout=90) for _ in range(3)]
    for p in (*trainers, eng):
        p.join(timeout=30)
        if p.is_alive():
            p.kill()
    return results


def _engine_holding(spec, plan, hold, q):
    _engine(spec, plan, q, hold)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("same_host", ["shared_memory", "send"])
@pytest.mark.parametrize("hold", [False, True], ids=["engine-ready", "engine-holds-v1"])
def test_pieces_from_two_ranks_arrive_whole_and_as_exported(hold, same_host):
    """Both transports: rows written into the engine's shared buffer (one host, the default)
    and rows sent as gloo messages (what ranks on other hosts do)."""
    results = two_ranks_and_an_engine(_engine_holding, (hold,), hold, same_host)
    shared = [0, 1] if same_host == "shared_memory" else []
    assert ("engine", [], shared) in results, results
    assert sorted(r for r in results if r[0] == "done") == [("done", 0, None), ("done", 1, None)]


_OTHER = """
import os, sys
fd = os.memfd_create("x")
os.ftruncate(fd, int(sys.argv[1]))
print(fd, flush=True)
sys.stdin.read()
"""


def test_a_shared_buffer_is_used_only_when_it_is_the_engines_own():
    """The offer names a pid and a descriptor; a trainer rank must refuse a buffer that is
    not the one offered (another host, or a PID namespace where the pid is another process
    holding a same-sized memfd) and fall back to sending."""
    import subprocess
    import sys

    from rl_loop.weight_shm import SharedStaging, SharedTarget

    staging = SharedStaging(64)
    offer = staging.offer([[0, 32]])
    target = SharedTarget.attach(offer)
    assert target is not None
    target.write(0, 1, torch.arange(8, dtype=torch.float32))
    assert torch.equal(staging.tensor(torch.float32, 16)[8:], torch.arange(8, dtype=torch.float32))
    assert SharedTarget.attach(dict(offer, boot_id="another-host")) is None
    assert SharedTarget.attach(dict(offer, nonce="00" * 16)) is None
    assert SharedTarget.attach(dict(offer, fd=10_000)) is None
    assert SharedTarget.attach({}) is None
    other = subprocess.Popen([sys.executable, "-c", _OTHER, str(offer["size"])], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True)
    try:
        fd = int(other.stdout.readline())
        assert SharedTarget.attach(dict(offer, pid=other.pid, fd=fd)) is None  # same size, no nonce
    finally:
        other.communicate("")


def test_nccl_is_chosen_only_when_every_member_has_a_gpu_of_its_own():
    """NCCL refuses two members on one device ("Duplicate GPU detected", seen on a one-GPU
    machine with bench/gpu_paths.py): "auto" must fall back to gloo there, and on CPU."""
    from rl_loop.weight_group import choose_backend

    assert choose_backend(["GPU-a", "GPU-b", "GPU-c"]) == "nccl"
    assert choose_backend(["GPU-a", "GPU-a", "GPU-b"]) == "gloo"  # trainer and engine share a GPU
    assert choose_backend(["GPU-a", ""]) == "gloo"  # one member on CPU
    assert choose_backend(["", "", ""]) == "gloo"


def test_forcing_nccl_without_a_gpu_is_a_clear_error():
    from rl_loop.weight_group import GroupSpec, WeightStore, join

    if torch.cuda.is_available():
        pytest.skip("this member has a GPU")
    store = WeightStore("127.0.0.1", timeout_s=5)
    spec = GroupSpec("127.0.0.1", store.port, 1, "nccl", timeout_s=5).to_dict()
    with pytest.raises(RuntimeError, match="nccl needs a GPU"):
        join(spec, 0)


def test_weight_group_backend_is_a_validated_setting():
    from rl_loop.config import load_config

    assert load_config(None, ["distributed.weight_group_backend=gloo"]).distributed.weight_group_backend == "gloo"
    assert load_config(None, []).distributed.weight_group_backend == "auto"
    with pytest.raises(Exception, match="weight_group_backend"):
        load_config(None, ["distributed.weight_group_backend=mpi"])
