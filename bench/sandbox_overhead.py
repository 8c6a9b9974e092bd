"""Per-run sandbox overhead over bare execution, and throughput on all cores.

    .venv/bin/python bench/sandbox_overhead.py [--backends local,docker] [--runs 200]

For a Python A+B (``/usr/bin/python3 -S``) and a C++ A+B binary it measures:
- bare: ``subprocess.run`` of the program from this process (no sandbox at all);
- fresh bwrap: a new ``bwrap --unshare-all`` sandbox per run (the naive way);
- each backend: one run per batch against an already-compiled artifact, timed from the
  caller (so it includes the frames, the agent's fork/exec, setuid, rlimits, seccomp,
  scratch set-up and the kill/cleanup sweep);
the median per-run wall time and its ratio to bare (sequential, one run at a time), and
runs/s with every core busy (bare: a thread pool of ``cores`` workers; backend: one batch
of N runs, which the backend spreads over its ``capacity`` slots).
Prints a table and writes bench/results/sandbox.md. Not a test: figures only.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sandboxes.backends.registry import create_backend  # noqa: E402
from sandboxes.types import Artifact, Batch, Blob, RunSpec, Source  # noqa: E402

PY_SRC = "a, b = map(int, input().split())\nprint(a + b)\n"
CPP_SRC = "#include <cstdio>\nint main(){long long a,b;if(scanf(\"%lld %lld\",&a,&b)!=2)return 1;printf(\"%lld\\n\",a+b);}\n"
STDIN = b"123456 654321\n"
EXPECT = b"777777\n"


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bare_cmds(work: Path) -> dict[str, list[str]]:
    (work / "sol.py").write_text(PY_SRC)
    (work / "sol.cpp").write_text(CPP_SRC)
    subprocess.run(["g++", "-O2", "-std=gnu++17", "-o", str(work / "sol"), str(work / "sol.cpp")], check=True)
    return {"python": ["/usr/bin/python3", "-S", str(work / "sol.py")], "cpp": [str(work / "sol")]}


def bare_once(cmd: list[str]) -> float:
    t = time.perf_counter()
    p = subprocess.run(cmd, input=STDIN, capture_output=True)
    dt = time.perf_counter() - t
    assert p.stdout == EXPECT, p
    return dt


def fresh_bwrap_cmd(cmd: list[str], work: Path) -> list[str]:
    return ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
            "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--ro-bind", str(work), str(work),
            "--uid", "65534", "--gid", "65534", *cmd]


class Method:
    """One way to run a program: ``once()`` (sequential) and ``burst(n)`` (all cores)."""

    def __init__(self, name: str, cores: int):
        self.name, self.cores = name, cores
        self.seq: list[float] = []
        self.inner: list[float] = []
        self.rates: list[float] = []


class Bare(Method):
    def __init__(self, name, cmd, cores):
        super().__init__(name, cores)
        self.cmd = cmd

    async def once(self):
        self.seq.append(bare_once(self.cmd))

    async def burst(self, n):
        t = time.perf_counter()
        with concurrent.futures.ThreadPoolExecutor(self.cores) as pool:
            list(pool.map(lambda _: bare_once(self.cmd), range(n)))
        self.rates.append(n / (time.perf_counter() - t))


class InBackend(Method):
    def __init__(self, name, backend, art: Artifact, cores):
        super().__init__(name, cores)
        self.backend, self.art = backend, art

    async def once(self):
        one = Batch(program=self.art, runs=[RunSpec(id="x", stdin=Blob(data=STDIN))])
        t = time.perf_counter()
        res = await self.backend.run_batch(one)
        self.seq.append(time.perf_counter() - t)
        assert res.runs[0].stdout == EXPECT, res.runs[0]
        self.inner.append(res.runs[0].wall_time_s)

    async def burst(self, n):
        many = Batch(program=self.art, runs=[RunSpec(id=str(i), stdin=Blob(data=STDIN)) for i in range(n)])
        t = time.perf_counter()
        res = await self.backend.run_batch(many)
        self.rates.append(n / (time.perf_counter() - t))
        assert all(r.stdout == EXPECT for r in res.runs)


async def measure(methods: list[Method], runs: int, rounds: int) -> None:
    """Interleave the methods in rounds so all see the same machine load (a shared,
    busy machine makes absolute numbers drift; the ratios stay comparable)."""
    for m in methods:  # warm-up
        for _ in range(3):
            await m.once()
        m.seq.clear()
        m.inner.clear()
    per_round = max(1, runs // rounds)
    for _ in range(rounds):
        for m in methods:
            for _ in range(per_round):
                await m.once()
        for m in methods:
            await m.burst(per_round * 2)


def _variants(backends: list[str], baseline: str | None, no_cgroup: bool,
              python_exec: bool = False, baseline_rlimit: bool = False,
              unpinned: bool = False) -> list[tuple[str, str, dict]]:
    """(label, backend name, options): each backend, plus the comparison variants asked for."""
    out = []
    for name in backends:
        out.append((name, name, {}))
        if python_exec and name in ("local", "docker"):
            # The Python fork server off (every test execs python3): before/after, interleaved.
            out.append((f"{name} (python exec path)", name, {"python_fork_server": False}))
        if no_cgroup and name in ("local", "docker"):
            out.append((f"{name} (no cgroup: rlimit fallback)", name, {"cgroups": False}))
        if unpinned and name in ("local", "docker"):
            out.append((f"{name} (slots not pinned)", name, {"pin_cpus": False}))
        if baseline and name == "local":
            # The agent of another checkout in the same kind of slots (per-run cgroups as
            # ``local`` has them; --baseline-rlimit: without, for an agent from before them),
            # measured interleaved with this one: a side-by-side before/after. Unpinned: an
            # agent from before slot pinning does not know --cpu (local pins, so the pair
            # includes what pinning gives).
            out.append((f"local @ {baseline}", name, {"cgroups": not baseline_rlimit, "package_root": baseline,
                                                      "pin_cpus": False}))
    return out


async def run_all(cmds: dict, backends: list[str], runs: int, rounds: int, cores: int, work: Path,
                  baseline: str | None = None, no_cgroup: bool = False, python_exec: bool = False,
                  langs: tuple[str, ...] = ("python", "cpp"), baseline_rlimit: bool = False,
                  unpinned: bool = False):
    started = []
    results = {}
    try:
        arts = {}
        for label, name, opts in _variants(backends, baseline, no_cgroup, python_exec, baseline_rlimit, unpinned):
            be = create_backend(name, **opts)
            await be.start()
            be.label = label
            started.append(be)
            for lang, src in (("python", PY_SRC), ("cpp", CPP_SRC)):
                if lang not in langs:
                    continue
                first = await be.run_batch(Batch(program=Source(language=lang, code=src),
                                                 runs=[RunSpec(id="w", stdin=Blob(data=STDIN))]))
                arts[label, lang] = first.compile.artifact
        for lang, cmd in cmds.items():
            if lang not in langs:
                continue
            methods: list[Method] = [Bare("bare", cmd, cores)]
            if shutil.which("bwrap"):
                methods.append(Bare("fresh bwrap per run", fresh_bwrap_cmd(cmd, work), cores))
            for be in started:
                methods.append(InBackend(be.label, be, arts[be.label, lang], cores))
            await measure(methods, runs, rounds)
            results[lang] = methods
    finally:
        for be in started:
            await be.close()
    return results


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--backends", default="local")
    ap.add_argument("--runs", type=int, default=200, help="sequential runs per method")
    ap.add_argument("--rounds", type=int, default=10, help="interleaving rounds")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "sandbox.md"))
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="also run local with the agent of another checkout (e.g. /work/main)")
    ap.add_argument("--baseline-rlimit", action="store_true",
                    help="run that checkout's agent without per-run cgroups (one from before them)")
    ap.add_argument("--unpinned", action="store_true",
                    help="also run local/docker with slots not pinned to cores (what pinning gives)")
    ap.add_argument("--no-cgroup", action="store_true",
                    help="also run local/docker without per-run cgroups (what the cgroup costs)")
    ap.add_argument("--python-exec", action="store_true",
                    help="also run local/docker with the Python fork server off (before/after)")
    ap.add_argument("--langs", default="python,cpp", help="which A+B programs (python,cpp)")
    a = ap.parse_args()
    cores = os.cpu_count() or 1
    load0 = os.getloadavg()[0]
    work = Path(tempfile.mkdtemp(prefix="sbx-bench-"))
    os.chmod(work, 0o755)
    try:
        cmds = bare_cmds(work)
        for p in work.iterdir():
            os.chmod(p, 0o755)
        names = [n.strip() for n in a.backends.split(",") if n.strip()]
        langs = tuple(x.strip() for x in a.langs.split(",") if x.strip())
        results = asyncio.run(run_all(cmds, names, a.runs, a.rounds, cores, work, a.baseline, a.no_cgroup,
                                      a.python_exec, langs, a.baseline_rlimit, a.unpinned))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    rows = []
    for lang, methods in results.items():
        b = methods[0]
        for m in methods:
            med = _median_ms(m.seq)
            rate = statistics.median(m.rates)
            rows.append((lang, m.name, med, _median_ms(m.inner) if m.inner else None, rate,
                         med / _median_ms(b.seq), rate / statistics.median(b.rates)))
    lines = [
        "# Sandbox overhead",
        "",
        f"`bench/sandbox_overhead.py --backends {a.backends} --runs {a.runs} --rounds {a.rounds}"
        f"{' --baseline ' + a.baseline if a.baseline else ''}{' --baseline-rlimit' if a.baseline_rlimit else ''}"
        f"{' --no-cgroup' if a.no_cgroup else ''}{' --unpinned' if a.unpinned else ''}"
        f"{' --python-exec' if a.python_exec else ''}{' --langs ' + a.langs if a.langs != 'python,cpp' else ''}` on {platform.node()} "
        f"({cores} cores, {platform.machine()}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
        f"load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at the end.",
        "Per-run wall: median of sequential single-run calls timed by the caller. "
        "'in-box' is the wall time the runner itself measured for the program. "
        "Throughput: runs/s with all cores busy. Ratios are against bare.",
        "",
        "| program | how | per-run wall ms | ratio | in-box ms | runs/s (all cores) | throughput vs bare |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for lang, how, med, inner, rate, ratio, tput in rows:
        lines.append(f"| {lang} A+B | {how} | {med:.2f} | {ratio:.2f}x | "
                     f"{'' if inner is None else f'{inner:.2f}'} | {rate:.0f} | {tput:.0%} |")
    text = "\n".join(lines) + "\n"
    print(text)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
