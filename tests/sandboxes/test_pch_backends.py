"""Precompiled headers on every backend (env SANDBOX_BACKENDS): GCC uses them, a compile
error stays CE, and nothing a submission runs can write them or plant one of its own."""

from __future__ import annotations

import json

from sandboxes.types import Batch, Blob, RunLimits, RunSpec, Source, Status

# Where each backend puts them (local: bind mount; docker and lambda: image files).
PCH_DIRS = ["/opt/oubliette-pch", "/opt/oubliette/pch", "/usr/local/lib/oubliette/pch"]
BITS_APLUSB = "#include <bits/stdc++.h>\nusing namespace std;\nint main(){long long a,b;cin>>a>>b;cout<<a+b<<'\\n';}\n"
IOSTREAM_APLUSB = ("#include <iostream>\n#include <vector>\nint main(){std::vector<long long> v(2);"
                   "std::cin>>v[0]>>v[1];std::cout<<v[0]+v[1]<<'\\n';}\n")


def _judge(backend, code: str, language: str = "cpp", stdin: bytes = b"20 22\n", **limits):
    spec = RunSpec(id="t", stdin=Blob(data=stdin), **({"limits": RunLimits(**limits)} if limits else {}))
    return backend.run(Batch(program=Source(language=language, code=code), runs=[spec]))


def test_gcc_uses_the_pch(backend):
    for code in (BITS_APLUSB, IOSTREAM_APLUSB):
        res = _judge(backend, code)
        assert res.compile.status == Status.OK, res.compile.log
        assert res.compile.pch == "used", (backend.name, code[:30])
        assert res.runs[0].status == Status.OK and res.runs[0].stdout == b"42\n"


def test_not_offered_when_something_comes_first(backend):
    res = _judge(backend, "#define NDEBUG\n" + BITS_APLUSB)
    assert res.compile.status == Status.OK and res.compile.pch is None
    assert res.runs[0].stdout == b"42\n"
    res = _judge(backend, '#include <stdio.h>\nint main(void){long a,b;scanf("%ld %ld",&a,&b);'
                          'printf("%ld\\n",a+b);return 0;}\n', language="c")
    assert res.compile.status == Status.OK and res.compile.pch is None


def test_a_real_error_is_still_ce(backend):
    res = _judge(backend, "#include <bits/stdc++.h>\nint main(){ return undeclared_thing; }\n")
    assert res.compile.status == Status.CE
    assert res.compile.pch == "retried" and "undeclared_thing" in res.compile.log


WRITE_PROBE = r"""
import json, os
dirs = %r
found, wrote = [], []
def attempt(what, fn):
    try:
        fn()
        wrote.append(what)
    except OSError:
        pass
for top in dirs:
    if not os.path.isdir(top):
        continue
    for dirpath, subdirs, files in os.walk(top):
        attempt("create in " + dirpath, lambda: open(os.path.join(dirpath, "planted.gch"), "xb").close())
        attempt("mkdir in " + dirpath, lambda: os.mkdir(os.path.join(dirpath, "planted")))
        attempt("chmod " + dirpath, lambda: os.chmod(dirpath, 0o777))
        for f in files:
            p = os.path.join(dirpath, f)
            found.append(p)
            attempt("write " + p, lambda: open(p, "r+b").close())
            attempt("truncate " + p, lambda: os.truncate(p, 0))
            attempt("rename " + p, lambda: os.rename(p, p + ".x"))
            attempt("unlink " + p, lambda: os.unlink(p))
print(json.dumps({"found": found, "wrote": wrote}))
"""


def test_runs_cannot_write_the_pch(backend):
    res = _judge(backend, WRITE_PROBE % PCH_DIRS, language="python", stdin=b"")
    assert res.runs[0].status == Status.OK, res.runs[0]
    got = json.loads(res.runs[0].stdout)
    assert any(p.endswith("bits/stdc++.h.gch") for p in got["found"]), got  # not vacuous
    assert got["wrote"] == []
    # ... and the PCH still works afterwards.
    assert _judge(backend, BITS_APLUSB).compile.pch == "used"


# A run builds a PCH of <iostream> that defines PLANTED, shows that it works when its dir is
# searched (-I), and leaves copies wherever it can write. The next compile must not see it.
PLANT = r"""
import os, shutil, subprocess
stub = "stub.h"
open(stub, "w").write("#include <iostream>\n#define PLANTED 1\n")
flags = ["-O2", "-std=gnu++17", "-DONLINE_JUDGE"]
subprocess.run(["g++", *flags, "-x", "c++-header", "-o", "iostream.gch", stub], check=True)
open("probe.cpp", "w").write(%r)
subprocess.run(["g++", *flags, "-I.", "-o", "probe", "probe.cpp"], check=True)
print(subprocess.run(["./probe"], capture_output=True, text=True).stdout.strip())
for d in (".", "bits", "/tmp", "/dev/shm", os.environ.get("HOME", "."), os.environ.get("TMPDIR", ".")):
    try:
        os.makedirs(os.path.join(d, "bits"), exist_ok=True)
        shutil.copy("iostream.gch", os.path.join(d, "iostream.gch"))
        shutil.copy("iostream.gch", os.path.join(d, "bits", "stdc++.h.gch"))
    except OSError:
        pass
"""
PLANT_PROBE = ('#include <iostream>\nint main(){\n#ifdef PLANTED\nstd::cout<<"planted\\n";\n#else\n'
               'std::cout<<"clean\\n";\n#endif\n}\n')


def test_a_run_cannot_plant_a_pch_for_the_next_compile(backend):
    res = _judge(backend, PLANT % PLANT_PROBE, language="python", stdin=b"",
                 cpu_time_s=60, wall_time_s=120, memory_mb=1024, max_processes=32,
                 file_size_bytes=256 << 20)
    assert res.runs[0].status == Status.OK, (res.runs[0].message, res.runs[0].stderr[-2000:])
    assert res.runs[0].stdout == b"planted\n"  # the planted PCH is real and would change the program
    for code in (PLANT_PROBE, PLANT_PROBE.replace("<iostream>", '"iostream"'),
                 "#include <bits/stdc++.h>\n" + PLANT_PROBE):
        nxt = _judge(backend, code, stdin=b"")
        assert nxt.compile.status == Status.OK, nxt.compile.log
        assert nxt.runs[0].stdout == b"clean\n", (backend.name, code[:30], nxt.compile.pch)
