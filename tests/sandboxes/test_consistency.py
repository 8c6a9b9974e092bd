"""Cross-backend consistency: the same cases, the same verdicts, on every backend.

Parametrized over the ``backend`` fixture (env SANDBOX_BACKENDS). Judging answers
(WA) is the checker's job, not the sandbox's: here only OK/RE/TLE/MLE/OLE/CE and the
measured fields are checked.
"""

from __future__ import annotations

import hashlib

import pytest

from sandboxes.types import Artifact, Batch, Blob, RunSpec, Source, Status
from tests.sandboxes.backend_fixture import quick_limits

APLUSB = {
    "python": "a, b = map(int, input().split())\nprint(a + b)\n",
    "c": '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);printf("%ld\\n",a+b);return 0;}\n',
    "cpp": "#include <bits/stdc++.h>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<\"\\n\";}\n",
}


@pytest.mark.parametrize("language", sorted(APLUSB))
def test_each_language_runs_aplusb(backend, language):
    r = backend.run_code(language, APLUSB[language], b"20 22\n")
    assert r.status == Status.OK, r
    assert r.stdout == b"42\n"
    assert r.exit_code == 0 and r.signal is None
    assert r.output_bytes == 3
    assert 0 < r.wall_time_s < 4 and r.cpu_time_s >= 0 and r.memory_kb > 0


REOPEN_STDIO = {
    "python": ("import sys\nnums = open('/dev/stdin').read().split()\n"
               "open('/dev/stderr', 'w').write('err\\n')\n"
               "with open('/dev/stdout', 'w') as f:\n    f.write(str(int(nums[0]) + int(nums[1])) + '\\n')\n"),
    "c": ('#include <stdio.h>\nint main(void){long a,b;if(!freopen("/dev/stdin","r",stdin))return 3;'
          'if(scanf("%ld %ld",&a,&b)!=2)return 4;FILE*e=fopen("/dev/stderr","w");if(!e)return 5;'
          'fputs("err\\n",e);fclose(e);FILE*o=fopen("/dev/stdout","w");if(!o)return 6;'
          'fprintf(o,"%ld\\n",a+b);return fclose(o);}\n'),
}


@pytest.mark.parametrize("language", sorted(REOPEN_STDIO))
def test_stdio_reopened_by_path_works_as_bare(backend, language):
    """A program may open /dev/stdin, /dev/stdout or /dev/stderr by name, as it can when run
    bare from a shell: the run's pipes are its own, not the judge's (mode 0600, owner)."""
    r = backend.run_code(language, REOPEN_STDIO[language], b"20 22\n")
    assert (r.status, r.exit_code) == (Status.OK, 0), r
    assert r.stdout == b"42\n" and r.stderr == b"err\n"


@pytest.mark.parametrize("language,code", [
    ("python", "print(1\n"),
    ("c", "int main(void) { return x; }\n"),
    ("cpp", "int main() { std::vector<int> v; }\n"),
])
def test_compile_error_is_ce_with_log_and_runs_skipped(backend, language, code):
    res = backend.run(Batch(program=Source(language=language, code=code),
                            runs=[RunSpec(id="a"), RunSpec(id="b")]))
    assert res.compile.status == Status.CE
    assert res.compile.log.strip(), "a CE must carry the compiler's message"
    assert res.compile.artifact is None
    assert [r.skipped for r in res.runs] == [True, True]
    assert {r.status for r in res.runs} == {Status.CE}


def test_unknown_language_is_an_error_not_a_verdict(backend):
    res = backend.run(Batch(program=Source(language="cobol", code="x"), runs=[RunSpec(id="a")]))
    assert res.compile.status == Status.IE
    assert "cobol" in res.compile.log


@pytest.mark.parametrize("case,code,limits,expected", [
    ("exit code", "import sys\nsys.exit(3)\n", {}, Status.RE),
    ("exception", "raise ValueError('boom')\n", {}, Status.RE),
    ("cpu spin", "while True:\n    pass\n", {"cpu_time_s": 0.5, "wall_time_s": 3}, Status.TLE),
    ("sleep", "import time\ntime.sleep(30)\n", {"cpu_time_s": 1, "wall_time_s": 0.5}, Status.TLE),
    ("memory", "x = bytearray(200 << 20)\nprint(len(x))\n", {"memory_mb": 64}, Status.MLE),
    ("output", "import sys\nwhile True:\n    sys.stdout.write('y' * 4096)\n", {"output_bytes": 10000}, Status.OLE),
])
def test_python_verdict_classes(backend, case, code, limits, expected):
    r = backend.run_code("python", code, b"", limits=quick_limits(**limits))
    assert r.status == expected, (case, r)
    assert r.message, "a non-OK verdict says why"


def test_re_exit_code_and_signal_are_reported(backend):
    r = backend.run_code("python", "import sys\nsys.exit(3)\n")
    assert (r.status, r.exit_code, r.signal) == (Status.RE, 3, None)
    r = backend.run_code("c", "int main(void){ volatile int *p = 0; *p = 1; return 0; }\n")
    assert r.status == Status.RE and r.signal == 11 and r.exit_code is None


@pytest.mark.parametrize("language,code", [
    ("python", "import os, signal\nprint(8, flush=True)\nos.kill(os.getpid(), signal.SIGKILL)\n"),
    ("c", "#include <signal.h>\n#include <stdio.h>\n"
          "int main(void){ printf(\"8\\n\"); fflush(stdout); raise(SIGKILL); return 0; }\n"),
])
def test_a_program_that_kills_itself_is_re_not_mle(backend, language, code):
    """Red-team finding: a self-SIGKILL far below the memory limit was reported MLE. With a
    run cgroup the kernel's memory kills are seen as such, so any other SIGKILL is RE; only
    rlimit accounting (no OOM counter) still reads an unexplained SIGKILL as the memory cap."""
    r = backend.run_code(language, code, limits=quick_limits(memory_mb=256))
    assert r.signal == 9 and r.stdout == b"8\n", r
    accounting = getattr(backend.backend, "accounting", "rlimit")
    assert r.status == (Status.MLE if accounting == "rlimit" else Status.RE), (accounting, r)


def test_cpp_memory_limit_is_mle(backend):
    code = "#include <vector>\n#include <cstdio>\nint main(){std::vector<int> v(200u<<20, 1); printf(\"%d\\n\", v[12345]);}\n"
    r = backend.run_code("cpp", code, limits=quick_limits(memory_mb=128))
    assert r.status == Status.MLE, r


def test_cpp_gets_a_large_stack(backend):
    # 1e6-deep recursion needs ~100 MB of stack: legal in judged code, limited by memory only.
    code = ("#include <cstdio>\nint f(int n){ volatile char pad[64]; pad[0]=n; return n==0?0:1+f(n-1)+pad[0]*0; }\n"
            "int main(){ printf(\"%d\\n\", f(1000000)); }\n")
    r = backend.run_code("cpp", code, limits=quick_limits(memory_mb=512))
    assert r.status == Status.OK, r
    assert r.stdout == b"1000000\n"


def test_cpu_tle_stops_near_the_limit(backend):
    r = backend.run_code("c", "int main(void){ volatile unsigned long x = 0; for(;;) x++; }\n",
                         limits=quick_limits(cpu_time_s=0.5, wall_time_s=5))
    assert r.status == Status.TLE
    assert r.cpu_time_s < 2.5, "killed by the CPU watch, not the wall limit"


def test_output_cap_is_exact_and_enforced_while_reading(backend):
    r = backend.run_code("c", '#include <stdio.h>\nint main(void){ for(;;) fputs("0123456789", stdout); }\n',
                         limits=quick_limits(output_bytes=100_000))
    assert r.status == Status.OLE
    assert r.output_bytes == 100_000 and len(r.stdout) == 100_000
    assert r.stdout.startswith(b"0123456789")


def test_stderr_is_kept_and_capped(backend):
    r = backend.run_code("python", "import sys\nsys.stderr.write('e' * 100000)\nprint('ok')\n",
                         limits=quick_limits(stderr_bytes=1000))
    assert r.status == Status.OK and r.stdout == b"ok\n"
    assert r.stderr == b"e" * 1000


def test_file_size_limit(backend):
    code = "f = open('big', 'wb')\nf.write(b'x' * (2 << 20))\nf.close()\n"
    r = backend.run_code("python", code, limits=quick_limits(file_size_bytes=1 << 20))
    assert r.status == Status.RE, r
    ok = backend.run_code("python", code, limits=quick_limits(file_size_bytes=4 << 20))
    assert ok.status == Status.OK, ok


def test_open_files_limit(backend):
    code = ("n = 0\nfs = []\ntry:\n    while n < 1000:\n        fs.append(open('/dev/null')); n += 1\n"
            "except OSError as e:\n    print('stopped', n)\n")
    r = backend.run_code("python", code, limits=quick_limits(open_files=32))
    assert r.status == Status.OK
    assert r.stdout.startswith(b"stopped") and int(r.stdout.split()[1]) < 32


def test_process_limit(backend):
    code = ("import os\nn = 0\ntry:\n    while n < 200:\n        pid = os.fork()\n        if pid == 0:\n"
            "            import time; time.sleep(5); os._exit(0)\n        n += 1\n"
            "except OSError:\n    pass\nprint(n)\n")
    r = backend.run_code("python", code, limits=quick_limits(max_processes=8, wall_time_s=3))
    assert r.status == Status.OK, r
    assert int(r.stdout) < 8


SHA_PROG = ("import sys, hashlib\nd = sys.stdin.buffer.read()\n"
            "print(len(d), hashlib.sha256(d).hexdigest())\n")


def _big_input(n: int) -> bytes:
    return bytes((i * 7 + i // 251) % 256 for i in range(256)) * (n // 256)


@pytest.mark.parametrize("how", ["inline", "link"])
def test_large_input_by_link_and_inline(backend, how):
    data = _big_input(6 << 20)
    blob = Blob(data=data) if how == "inline" else Blob(link=backend.store.put(data)[0])
    res = backend.run(Batch(program=Source(language="python", code=SHA_PROG),
                            runs=[RunSpec(id=str(i), stdin=blob, limits=quick_limits()) for i in range(3)]))
    want = f"{len(data)} {hashlib.sha256(data).hexdigest()}\n".encode()
    for r in res.runs:
        assert r.status == Status.OK, r
        assert r.stdout == want


def test_large_output_round_trips(backend):
    r = backend.run_code("python", "import sys\nsys.stdout.buffer.write(bytes(range(256)) * 20000)\n")
    assert r.status == Status.OK
    assert r.stdout == bytes(range(256)) * 20000 and r.output_bytes == 256 * 20000


def test_binary_output_bytes_0_to_255(backend):
    r = backend.run_code("python", "import sys\nsys.stdout.buffer.write(bytes(range(256)))\n")
    assert r.status == Status.OK and r.stdout == bytes(range(256))


def test_binary_stdin_is_passed_unchanged(backend):
    data = bytes(range(256)) * 3
    r = backend.run_code("c", '#include <stdio.h>\nint main(void){int c; while((c=getchar())!=EOF) putchar(255-c); return 0;}\n', data)
    assert r.status == Status.OK and r.stdout == bytes(255 - b for b in data)


@pytest.mark.parametrize("stdin", [b"", None])
def test_empty_input(backend, stdin):
    r = backend.run_code("python", "import sys\nprint(len(sys.stdin.buffer.read()))\n", stdin)
    assert r.status == Status.OK and r.stdout == b"0\n"


def test_args_and_files(backend):
    code = "import sys\nprint(sys.argv[1:], open('data.txt').read(), open('other.bin','rb').read().hex())\n"
    link = backend.store.put(b"\x00\x01")[0]
    res = backend.run(Batch(program=Source(language="python", code=code), runs=[RunSpec(
        id="a", args=["x", "y z"], files={"data.txt": Blob(data=b"hello"), "other.bin": Blob(link=link)})]))
    assert res.runs[0].status == Status.OK, res.runs[0]
    assert res.runs[0].stdout == b"['x', 'y z'] hello 0001\n"


def test_stop_on_failure_skips_the_rest(backend):
    # Run 0 fails at once; OK runs take a little CPU so the failure is known before most start.
    code = "import sys\nn = int(sys.stdin.read())\nif n == 0: sys.exit(1)\ns = sum(range(3_000_000))\nprint(n)\n"
    n = backend.backend.capacity + 4
    res = backend.run(Batch(program=Source(language="python", code=code), stop_on_failure=True,
                            runs=[RunSpec(id=str(i), stdin=Blob(data=str(i).encode())) for i in range(n)]))
    assert [r.id for r in res.runs] == [str(i) for i in range(n)]
    assert res.runs[0].status == Status.RE and not res.runs[0].skipped
    assert res.runs[-1].skipped and res.runs[-1].status == Status.RE
    assert all(r.status == Status.OK for r in res.runs if not r.skipped and r.id != "0")


def test_without_stop_on_failure_every_run_runs(backend):
    code = "import sys\nsys.exit(int(sys.stdin.read()))\n"
    res = backend.run(Batch(program=Source(language="python", code=code),
                            runs=[RunSpec(id=str(i), stdin=Blob(data=str(i % 2).encode())) for i in range(5)]))
    assert [r.status for r in res.runs] == [Status.OK, Status.RE, Status.OK, Status.RE, Status.OK]
    assert not any(r.skipped for r in res.runs)


def test_artifact_is_reused_across_batches(backend):
    first = backend.run(Batch(program=Source(language="cpp", code=APLUSB["cpp"]),
                              runs=[RunSpec(id="a", stdin=Blob(data=b"1 2\n"))]))
    art = first.compile.artifact
    assert first.compile.status == Status.OK and art is not None and art.language == "binary"
    assert first.runs[0].stdout == b"3\n"
    again = backend.run(Batch(program=art, runs=[RunSpec(id=str(i), stdin=Blob(data=f"{i} {i}\n".encode()))
                                                 for i in range(6)]))
    assert again.compile is None, "an artifact is not compiled again"
    assert [r.stdout for r in again.runs] == [f"{2 * i}\n".encode() for i in range(6)]
    # The same artifact stored in the blob store and given by link.
    link = backend.store.put(art.blob.data)[0]
    by_link = backend.run(Batch(program=Artifact(language="binary", blob=Blob(link=link)),
                                runs=[RunSpec(id="l", stdin=Blob(data=b"40 2\n"))]))
    assert by_link.runs[0].stdout == b"42\n"


def test_python_artifact_is_the_source(backend):
    res = backend.run(Batch(program=Source(language="python", code="print(7)\n"), runs=[RunSpec(id="a")]))
    art = res.compile.artifact
    assert art.language == "python" and art.blob.data == b"print(7)\n"
    again = backend.run(Batch(program=art, runs=[RunSpec(id="b")]))
    assert again.runs[0].stdout == b"7\n"


def test_output_to_store_returns_links(backend):
    res = backend.run(Batch(program=Source(language="python", code="print('stored')\n"),
                            runs=[RunSpec(id="a")], output_to_store=True))
    r = res.runs[0]
    assert r.status == Status.OK and r.stdout is None and r.stdout_link
    assert backend.store.get(r.stdout_link) == b"stored\n"


def test_missing_input_link_is_ie_not_a_verdict(backend):
    res = backend.run(Batch(program=Source(language="python", code="print(input())\n"),
                            runs=[RunSpec(id="a", stdin=Blob(link="blob://sha256/" + "0" * 64))]))
    assert res.runs[0].status == Status.IE
    assert "0" * 16 in res.runs[0].message


def test_results_keep_batch_order_and_ids(backend):
    runs = [RunSpec(id=f"t{i:02d}", stdin=Blob(data=f"{i} 0\n".encode())) for i in range(12)]
    res = backend.run(Batch(program=Source(language="c", code=APLUSB["c"]), runs=runs))
    assert [r.id for r in res.runs] == [s.id for s in runs]
    assert [r.stdout for r in res.runs] == [f"{i}\n".encode() for i in range(12)]
    assert res.backend == backend.name
