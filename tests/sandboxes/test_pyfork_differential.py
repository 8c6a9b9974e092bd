"""Differential oracle: the sandbox's Python (a fork of the slot's zygote where the backend
has one) against a bare ``python3 -S -B main.py`` subprocess, on a generated corpus.

Nothing here states what a program should print: both sides run the same source on the
same stdin with the same environment, and stdout, the exit status and stderr's last line
must agree (tracebacks name different paths, so only their last line is compared).
"""

from __future__ import annotations

import concurrent.futures
import os
import subprocess
import sys
import tempfile

import pytest

from sandboxes.languages import get_language
from sandboxes.types import Batch, Blob, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import quick_limits
from tests.sandboxes.pyfork_corpus import corpus, fork_end_case

PY = get_language("python")
CORPUS = corpus()


_FRESH_SIGNALS = ("import os, signal, sys\n"
                  "for s in ('SIGHUP', 'SIGINT', 'SIGQUIT', 'SIGTERM', 'SIGUSR1', 'SIGUSR2', 'SIGALRM',"
                  " 'SIGCHLD'):\n"
                  "    signal.signal(getattr(signal, s), signal.SIG_DFL)\n"
                  "os.execv(sys.argv[1], sys.argv[1:])\n")


def bare(source: str, stdin: str) -> tuple[bytes, tuple, bytes]:
    """The reference: the program run by a fresh interpreter, no sandbox."""
    with tempfile.TemporaryDirectory() as d, tempfile.TemporaryFile() as inp:
        path = os.path.join(d, "main.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(source)
        inp.write(stdin.encode())
        inp.seek(0)
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
               "HOME": d, "TMPDIR": d, **PY.env}
        # Signal dispositions are inherited: under nohup (SIGHUP ignored) or as a background
        # job (SIGINT, SIGQUIT ignored) the reference would differ from a fresh interpreter,
        # which is what the sandbox gives. So reset them, then exec the interpreter.
        p = subprocess.run([sys.executable, "-c", _FRESH_SIGNALS, PY.run_argv[0], "-S", "-B", path],
                           cwd=d, env=env, stdin=inp, capture_output=True, timeout=60)
    status = ("signal", -p.returncode) if p.returncode < 0 else ("exit", p.returncode)
    return p.stdout, status, _last_line(p.stderr)


def _last_line(err: bytes) -> bytes:
    lines = err.rstrip(b"\n").split(b"\n")
    return lines[-1] if lines else b""


def sandboxed(backend, source: str, stdin: str):
    res = backend.run(Batch(program=Source(language="python", code=source),
                            runs=[RunSpec(id="t", stdin=Blob(data=stdin.encode()),
                                          limits=quick_limits(wall_time_s=20, cpu_time_s=10))]))
    assert res.compile is not None and res.compile.status == Status.OK, res.compile
    r = res.runs[0]
    assert r.status not in (Status.IE, Status.TLE, Status.MLE, Status.OLE), r
    status = ("signal", r.signal) if r.signal is not None else ("exit", r.exit_code)
    return r.stdout, status, _last_line(r.stderr)


def test_corpus_is_large_and_distinct():
    names = [n for n, _, _ in CORPUS]
    assert len(names) == len(set(names)) and len(names) >= 150


def _cases(backend, every: int = 1) -> list:
    """The corpus for `backend`: all of it where Python is a fork of the zygote; elsewhere
    (the exec path) without the cases about the fork's end, and every `every`-th case."""
    if backend.name in ("local", "docker"):
        return CORPUS
    return [c for c in CORPUS if not fork_end_case(c[0])][::every]


def test_fork_server_matches_bare_python(backend):
    # A run through the Lambda service's emulation (a container per invocation) costs ~0.6 s;
    # a third of the corpus (every category: the corpus is grouped) keeps the oracle there,
    # and the `full` run below takes all of it. lambda-aws (one warm environment) is cheap.
    _compare(backend, _cases(backend, every=3 if backend.name == "lambda" else 1))


@pytest.mark.full
def test_fork_server_matches_bare_python_whole_corpus(backend):
    if backend.name != "lambda":
        pytest.skip("the whole corpus already runs in test_fork_server_matches_bare_python")
    _compare(backend, _cases(backend))


def _compare(backend, cases: list) -> None:
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        ref = dict(zip([n for n, _, _ in cases], pool.map(lambda c: bare(c[1], c[2]), cases)))
        got = dict(zip([n for n, _, _ in cases], pool.map(lambda c: sandboxed(backend, c[1], c[2]), cases)))
    mismatches = []
    for name, _src, _in in cases:
        (r_out, r_st, r_err), (g_out, g_st, g_err) = ref[name], got[name]
        if (r_out, r_st, r_err) != (g_out, g_st, g_err):
            mismatches.append(f"{name}: bare={r_st} {r_out[:120]!r} / {r_err[:160]!r}\n"
                              f"{' ' * len(name)}  box ={g_st} {g_out[:120]!r} / {g_err[:160]!r}")
    assert not mismatches, f"{len(mismatches)} of {len(cases)} differ:\n" + "\n".join(mismatches)


@pytest.mark.parametrize("code", ["x = (\n", "def f(:\n    pass\n", "print('a'\n", "\tx = 1\n  y = 2\n",
                                  "return 5\n", "x = 1 +\n", "s = 'abc\n", "a\x00b = 1\n"])
def test_compile_errors_read_like_py_compile(backend, code):
    """CE on the fork path carries what ``python3 -S -m py_compile main.py`` prints."""
    res = backend.run(Batch(program=Source(language="python", code=code), runs=[RunSpec(id="t")]))
    assert res.compile is not None and res.compile.status == Status.CE, res.compile
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "main.py"), "w") as f:
            f.write(code)
        p = subprocess.run([PY.run_argv[0], "-S", "-m", "py_compile", "main.py"], cwd=d,
                           capture_output=True, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
    assert p.returncode == 1
    expected = (p.stdout + p.stderr).decode(errors="replace").strip()
    assert expected and expected in res.compile.log, (expected, res.compile.log)
