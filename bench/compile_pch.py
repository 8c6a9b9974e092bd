"""Compile time with and without precompiled headers: bare g++, local and docker backends.

Interleaved rounds (every variant once per round, in turn) so a load change on the shared
machine hits all of them alike; the median over rounds is printed. "without" compiles the
same program behind a leading ``#define BENCH_NO_PCH``: the runner's gate then offers no PCH
and the compile argv is the plain one (what every compile was before). Also prints what the
PCH costs once: building it (host cache / image layer) and its size.

    PYTHONPATH=$PWD .venv/bin/python bench/compile_pch.py --rounds 7 [--backends local,docker]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import tempfile
import time

from sandboxes.backends.registry import create_backend
from sandboxes.languages import LANGUAGES
from sandboxes.runner import pch
from sandboxes.types import Batch, Blob, RunSpec, Source

PROGRAMS = {
    "bits A+B": ("cpp", "#include <bits/stdc++.h>\nusing namespace std;\n"
                        "int main(){long long a,b;cin>>a>>b;cout<<a+b<<'\\n';}\n"),
    "iostream+vector+algorithm": ("cpp", "#include <iostream>\n#include <vector>\n#include <algorithm>\n"
                                         "int main(){std::vector<long long> v(2);std::cin>>v[0]>>v[1];"
                                         "std::sort(v.begin(),v.end());std::cout<<v[0]+v[1]<<'\\n';}\n"),
    "C stdio/stdlib/math": ("c", '#include <stdio.h>\n#include <stdlib.h>\n#include <math.h>\nint main(void)'
                                 '{long a,b;if(scanf("%ld %ld",&a,&b)!=2)return 1;printf("%ld\\n",a+b);return 0;}\n'),
}


def bare(language: str, code: str, pch_dir: str | None) -> float:
    lang = LANGUAGES[language]
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, lang.source_name), "w").write(code)
        argv = [a.format(source=lang.source_name, output=lang.artifact_name) for a in lang.compile_argv]
        if pch_dir:
            argv[1:1] = ["-isystem", pch_dir]
        t = time.perf_counter()
        subprocess.run(argv, cwd=d, check=True)
        return time.perf_counter() - t


async def judged(backend, language: str, code: str) -> tuple[float, float, str | None]:
    batch = Batch(program=Source(language=language, code=code), runs=[RunSpec(id="r", stdin=Blob(data=b"2 40\n"))])
    t = time.perf_counter()
    res = await backend.run_batch(batch)
    total = time.perf_counter() - t
    assert res.compile.status.value == "OK" and res.runs[0].stdout == b"42\n", res
    return res.compile.wall_time_s, total, res.compile.pch


async def main_async(args) -> None:
    root = "/var/cache/oubliette/pch"
    t = time.perf_counter()
    with tempfile.TemporaryDirectory() as fresh:
        made = pch.build(fresh)
        build_s = time.perf_counter() - t
        size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(made[0]) for f in fs)
    pch.build(root)
    pch_dir = os.path.join(root, pch.dir_name(LANGUAGES["cpp"]))
    backends = {}
    for name in args.backends.split(","):
        t = time.perf_counter()
        b = create_backend(name, capacity=1) if name == "local" else create_backend(name)
        await b.start()
        backends[name] = (b, time.perf_counter() - t)
    samples: dict[tuple[str, str, str], list[float]] = {}
    how: dict[tuple[str, str, str], str | None] = {}
    for rnd in range(args.rounds):
        for prog, (language, code) in PROGRAMS.items():
            for mode in ("without", "with"):
                src = ("#define BENCH_NO_PCH\n" if mode == "without" else "") + code + f"// round {rnd}\n"
                key = (prog, "bare g++", mode)
                samples.setdefault(key, []).append(bare(language, src, pch_dir if mode == "with" else None))
                for name, (b, _) in backends.items():
                    comp, total, used = await judged(b, language, src)
                    samples.setdefault((prog, name, mode), []).append(comp)
                    samples.setdefault((prog, name + " (batch)", mode), []).append(total)
                    how[(prog, name, mode)] = used
    for b, _ in backends.values():
        await b.close()
    print(f"load before/after: {args.load} / {os.getloadavg()}")
    print(f"PCH build (bits/stdc++.h + iostream, fresh dir): {build_s:.1f} s, {size / 1e6:.0f} MB")
    for name, (_, s) in backends.items():
        print(f"{name} backend start (PCH cache present): {s:.1f} s")
    print(f"{'program':28} {'where':18} {'without':>9} {'with':>9} {'ratio':>6}  pch")
    for prog in PROGRAMS:
        for where in ["bare g++", *[w for n in backends for w in (n, n + " (batch)")]]:
            a = statistics.median(samples[(prog, where, "without")])
            w = statistics.median(samples[(prog, where, "with")])
            print(f"{prog:28} {where:18} {a:8.3f}s {w:8.3f}s {w / a:6.2f}  {how.get((prog, where, 'with'), '')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--backends", default="local,docker")
    args = ap.parse_args()
    args.load = os.getloadavg()
    if shutil.which("g++") is None:
        raise SystemExit("needs g++")
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
