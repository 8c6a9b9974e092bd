"""The Lambda image in one warm, non-root execution environment (tests/sandboxes/lambda_aws.py).

What only this emulation can show (moto starts a fresh root container per invoke): the
function really is non-root and reused, and a run that attacks the handler it shares a
uid with gets IE, never a verdict, and does not leave the environment dirty for the next
invocation. The security suite runs on it too (``lambda-aws`` in SANDBOX_BACKENDS).
"""

from __future__ import annotations

import asyncio

import pytest

from sandboxes.types import Batch, RunSpec, Source, Status

pytestmark = [pytest.mark.docker, getattr(pytest.mark, "lambda")]

_WHO = ("import json, os\nst = open('/proc/self/status').read()\n"
        "w = []\nfor p in ('/', '/usr', '/var/task', '/etc'):\n"
        "    try:\n        open(os.path.join(p, 'x'), 'w'); w.append(p)\n    except OSError:\n        pass\n"
        "print(json.dumps({'uid': os.getuid(), 'ppid_uid': os.stat('/proc/%d' % os.getppid()).st_uid,"
        " 'writable': w, 'caps': [l for l in st.splitlines() if l.startswith('CapEff')]}))\n")


@pytest.fixture(scope="module")
def aws_env():
    from tests.sandboxes.lambda_aws import start_aws_env
    env = start_aws_env(timeout_s=30)
    yield env
    env.stop()


async def _run(env, batch: Batch):
    from tests.sandboxes.lambda_aws import make_backend
    be = make_backend(env, timeout_s=30)
    await be.start()
    try:
        return await be.run_batch(batch)
    finally:
        await be.close()


async def test_one_non_root_environment_serves_every_invocation(aws_env):
    import json
    from tests.sandboxes.lambda_aws import FUNCTION_UID
    before = aws_env.inits()
    outs = []
    for _ in range(3):
        res = await _run(aws_env, Batch(program=Source(language="python", code=_WHO), runs=[RunSpec(id="a")]))
        assert res.runs[0].status == Status.OK, res.runs[0]
        outs.append(json.loads(res.runs[0].stdout))
    assert all(o == {"uid": FUNCTION_UID, "ppid_uid": FUNCTION_UID, "writable": [],
                     "caps": ["CapEff:\t0000000000000000"]} for o in outs), outs
    assert aws_env.inits() == max(before, 1), "the same runtime process served all three"


async def test_killing_the_handler_is_ie_never_a_verdict(aws_env):
    """A run shares the handler's uid, so it can kill it. It prints the right answer first;
    the result must still be IE (the handler never answered), and it cannot answer in the
    handler's place: the Runtime API is a TCP endpoint and runs get no network sockets."""
    code = ("import os, signal, socket\nprint(42, flush=True)\n"
            "try:\n    socket.create_connection(('127.0.0.1', 9001), timeout=1); print('reached runtime api')\n"
            "except OSError:\n    pass\nos.kill(-1, signal.SIGKILL)\n")
    before = aws_env.inits()
    res = await _run(aws_env, Batch(program=Source(language="python", code=code), runs=[RunSpec(id="a")]))
    assert res.runs[0].status == Status.IE, res.runs[0]
    assert "Runtime exited" in res.runs[0].message or "Runtime.ExitError" in res.runs[0].message, res.runs[0]
    ok = await _run(aws_env, Batch(program=Source(language="python", code="print(6 * 7)\n"), runs=[RunSpec(id="b")]))
    assert (ok.runs[0].status, ok.runs[0].stdout) == (Status.OK, b"42\n")
    assert aws_env.inits() == before + 1, "the runtime was started afresh"


async def test_the_runtime_answers_concurrent_invokes_in_turn(aws_env):
    batches = [Batch(program=Source(language="python", code=f"print({i})\n"), runs=[RunSpec(id="a")]) for i in range(3)]
    results = await asyncio.gather(*(_run(aws_env, b) for b in batches))
    assert [r.runs[0].stdout for r in results] == [b"0\n", b"1\n", b"2\n"]


_ROOT_SHM = ("import ctypes, sys\nlibc = ctypes.CDLL(None)\n"
             "ident = libc.shmget(0x0c0ffee, 4096, 0o1000 | 0o600)\n"
             "if sys.argv[1] == 'rm':\n    assert libc.shmctl(ident, 0, None) == 0\nelse:\n    assert ident >= 0\n")


async def test_a_dirty_environment_is_not_reused(aws_env):
    """When a run's clean-up cannot remove something (here a SysV segment of another uid,
    planted as root in the environment's IPC namespace), the runtime answers and then exits,
    so the next invocation gets a fresh runtime instead of a contaminated one."""
    import subprocess
    cid = aws_env.container.id
    warm = await _run(aws_env, Batch(program=Source(language="python", code="print(1)\n"), runs=[RunSpec(id="w")]))
    assert warm.runs[0].status == Status.OK
    before = aws_env.inits()
    subprocess.run(["docker", "exec", "-u", "0", cid, "/usr/bin/python3", "-c", _ROOT_SHM, "mk"], check=True)
    try:
        res = await _run(aws_env, Batch(program=Source(language="python", code="print(2)\n"), runs=[RunSpec(id="a")]))
        assert (res.runs[0].status, res.runs[0].stdout) == (Status.OK, b"2\n"), "the run itself is judged"
        nxt = await _run(aws_env, Batch(program=Source(language="python", code="print(3)\n"), runs=[RunSpec(id="b")]))
        assert nxt.runs[0].stdout == b"3\n"
        assert aws_env.inits() == before + 1, "the runtime exited after the dirty invocation and was started again"
    finally:
        subprocess.run(["docker", "exec", "-u", "0", cid, "/usr/bin/python3", "-c", _ROOT_SHM, "rm"], check=True)
    await _run(aws_env, Batch(program=Source(language="python", code="print(4)\n"), runs=[RunSpec(id="c")]))
    settled = aws_env.inits()
    again = await _run(aws_env, Batch(program=Source(language="python", code="print(5)\n"), runs=[RunSpec(id="d")]))
    assert again.runs[0].stdout == b"5\n" and aws_env.inits() == settled, "clean again: reused"
