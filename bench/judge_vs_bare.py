"""Judging through the HTTP service vs running the same programs bare, in one run.

    python bench/judge_vs_bare.py [--backends local,docker] [--n 50] [--rounds 3]
                                  [--concurrency 8] [--seed 1] [--langs python,cpp]
                                  [--baseline CHECKOUT] [--cpu-split] [--quick]

Workload (bench/judge_workload.py, deterministic in --seed): 7 beginner sample problems,
the first --tests (10) tests of each; N unique Python and N unique C++ submissions, 70 % AC,
20 % WA, 10 % RE, half the C++ with <bits/stdc++.h>; every test run (no stop on first
failure). Targets, alternated within each round so machine load hits all alike:
  bare    the programs as plain subprocesses on a thread pool of --workers (CPU cores); C++
          compiled once per submission with the flags of sandboxes/languages.py (included in
          the time), Python run as /usr/bin/python3 -S -B main.py;
  local / docker
          ``verifier serve`` (spawned on 127.0.0.1, temp store) with that backend; all
          submissions of a language sent through /v1/verify with --concurrency requests in
          flight; wall = first request to last reply.
  base    (--baseline CHECKOUT) the local backend served by another checkout of the project,
          e.g. a worktree of the commit before a change: before and after in the same run.
runs/s = tests run / wall. Verdicts: every service test verdict is compared with the bare
run's (judged by bench.judge_bare's own comparators) and every submission's overall verdict
with the label it was generated with; any mismatch fails the run (exit 1).
Prints the per-round and median tables and writes bench/results/judge_vs_bare.md. With
--cpu-split, also the machine time per test by process role (service, agents, sandboxed
processes, ...: bench/cpu_split.py), read from /proc around every round of every target.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "bench")]

import cpu_split  # noqa: E402
import judge_report  # noqa: E402
from judge_bare import run_all  # noqa: E402
from judge_workload import PROBLEMS, Submission, checker_of, generate  # noqa: E402
from samples import layout  # noqa: E402


def build_store(root: Path, problems: list[str], n_tests: int) -> tuple[str, dict]:
    """Copy the problems into a temp set, upload it; returns (store, {id: [(name, in, ans)]})."""
    from samples.build import run_generator

    set_dir = root / "set"
    tests: dict[str, list[tuple[str, Path, Path]]] = {}
    for pid in problems:
        src = layout.STDIO / pid
        dst = set_dir / pid
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns("solutions", "__pycache__"))
        if not list((dst / "tests").glob("*.in")):
            _, _, err = run_generator(src, dst / "tests")
            if err:
                raise SystemExit(f"generating tests of {pid} failed: {err}")
        names = sorted((p.stem for p in (dst / "tests").glob("*.in")), key=_natural)[:n_tests]
        tests[pid] = [(n, dst / "tests" / f"{n}.in", dst / "tests" / f"{n}.ans") for n in names]
    store = root / "store"
    proc = subprocess.run([sys.executable, "-m", "problem_store.cli", "--store", str(store),
                           "upload", "--no-progress", "--strict", str(set_dir)],
                          cwd=REPO, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)))
    if proc.returncode != 0:
        raise SystemExit(f"pstore upload failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return str(store), tests


def _natural(name: str) -> tuple:
    return tuple(int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name))


BASE = "base"


def start_servers(store: str, backends: list[str], concurrency: int, baseline: str | None = None) -> dict:
    """One server per target; target ``base`` is the local backend served by another
    checkout (``--baseline``), so a before/after pair is measured in the same run."""
    from tests.e2e.server import ServerProcess

    servers = {}
    try:
        for b in backends:
            # feedback=all: hidden tests keep their run times (verifier.redact zeroes them),
            # which the A+B per-run figure reads; it changes messages only, not the judging.
            env = {"VERIFIER_LOG_LEVEL": "WARNING", "VERIFIER_FEEDBACK": "all"}
            backend, repo = ("local", baseline) if b == BASE else (b, None)
            servers[b] = ServerProcess(store, backend, env=env, repo=repo, extra_args=[
                "--max-inflight", str(max(16, concurrency)), "--queue-size", "1024"]).start(300)
    except BaseException:
        for s in servers.values():
            s.stop()
        raise
    return servers


async def judge_service(url: str, subs: list[Submission], tests: dict, round_no: int,
                        target: str, concurrency: int) -> tuple[float, list]:
    """All submissions through /v1/verify, ``concurrency`` in flight; (wall s, responses)."""
    from verifier.client import VerifierClient

    sem = asyncio.Semaphore(concurrency)
    async with VerifierClient(url, timeout_s=900) as client:
        async def one(s: Submission):
            names = [n for n, _, _ in tests[s.problem]]
            async with sem:
                return await client.verify(s.problem, s.language, s.tagged(round_no, target),
                                           tests=names, stop_on_first_failure=False)

        t0 = time.perf_counter()
        replies = await asyncio.gather(*(one(s) for s in subs))
        return time.perf_counter() - t0, replies


def judge_bare(subs: list[Submission], tests: dict, round_no: int, workers: int):
    jobs = [(s.language, s.tagged(round_no, "bare"), [i for _, i, _ in tests[s.problem]])
            for s in subs]
    return run_all(jobs, workers)


def bare_verdicts(subs, results, tests) -> list[list[str]]:
    return [r.verdicts(checker_of(s.problem), [a.read_bytes() for _, _, a in tests[s.problem]])
            for s, r in zip(subs, results)]


def check(subs, tests, bare_v, replies, target, round_no) -> list[str]:
    """Test-by-test service vs bare, and overall verdicts vs labels; the mismatches found."""
    bad = []
    for s, bv, rep in zip(subs, bare_v, replies):
        sv = [t.verdict.value for t in rep.tests]
        want = [n for n, _, _ in tests[s.problem]]
        got_names = [t.name for t in rep.tests]
        where = f"round {round_no} {target} {s.language} #{s.index} {s.problem} ({s.label})"
        if got_names != want:
            bad.append(f"{where}: service judged tests {got_names}, asked for {want}")
        elif sv != bv:
            bad.append(f"{where}: service {sv} vs bare {bv}")
        if rep.verdict.value != s.label:
            bad.append(f"{where}: service overall {rep.verdict.value}, generated as {s.label}")
    return bad


def label_check(subs, bare_v, round_no) -> list[str]:
    bad = []
    for s, bv in zip(subs, bare_v):
        first = next((v for v in bv if v != "AC"), "AC")
        if first != s.label:
            bad.append(f"round {round_no} bare {s.language} #{s.index} {s.problem}: "
                       f"bare overall {first} ({bv}), generated as {s.label}")
    return bad


def uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    except OSError:
        one, five, fifteen = os.getloadavg()
        return f"load average: {one:.2f}, {five:.2f}, {fifteen:.2f}"


def _cpu_of(row: dict, before: dict | None) -> None:
    """``--cpu-split``: the row's machine time per test by process role, since ``before``."""
    if before is not None:
        row["cpu_ms"] = cpu_split.per_test_ms(cpu_split.split(before, cpu_split.snapshot()), row["runs"])


def run(args) -> int:
    backends = [b for b in args.backends.split(",") if b]
    if args.baseline:
        backends.append(BASE)
    workload = generate(args.n, args.seed, args.wa_pct, args.re_pct)
    root = Path(tempfile.mkdtemp(prefix="judge-vs-bare-"))
    load_before = uptime()
    store, tests = build_store(root, sorted(PROBLEMS), args.tests)
    servers = start_servers(store, backends, args.concurrency, args.baseline)
    rows: list[dict] = []
    mismatches: list[str] = []
    try:
        for b, srv in servers.items():  # warm-up: first-request costs are not judging
            warm = [workload[lang][0] for lang in args.langs.split(",")]
            asyncio.run(judge_service(srv.url, warm, tests, 0, f"warmup-{b}", 2))
        for round_no in range(1, args.rounds + 1):
            for lang in args.langs.split(","):
                subs = workload[lang]
                before = cpu_split.snapshot() if args.cpu_split else None
                wall, results = judge_bare(subs, tests, round_no, args.workers)
                bare_v = bare_verdicts(subs, results, tests)
                mismatches += label_check(subs, bare_v, round_no)
                rows.append(judge_report.bare_row(round_no, lang, subs, wall, results))
                _cpu_of(rows[-1], before)
                _progress(rows[-1])
                for b, srv in servers.items():
                    before = cpu_split.snapshot() if args.cpu_split else None
                    wall, replies = asyncio.run(judge_service(
                        srv.url, subs, tests, round_no, b, args.concurrency))
                    rows.append(judge_report.service_row(round_no, lang, b, subs, wall, replies))
                    _cpu_of(rows[-1], before)
                    mismatches += check(subs, tests, bare_v, replies, b, round_no)
                    _progress(rows[-1])
    finally:
        for srv in servers.values():
            srv.stop()
        shutil.rmtree(root, ignore_errors=True)
    load_after = uptime()
    text = judge_report.render(args, backends, rows, mismatches, load_before, load_after)
    print(text)
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}")
    if mismatches:
        print(f"FAILED: {len(mismatches)} verdict mismatches", file=sys.stderr)
        for m in mismatches[:50]:
            print("  " + m, file=sys.stderr)
        return 1
    return 0


def _progress(row: dict) -> None:
    print(f"  round {row['round']} {row['language']:6} {row['target']:6} {row['runs']} runs "
          f"in {row['wall_s']:.2f} s = {row['runs_per_s']:.1f} runs/s", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backends", default="local,docker", help="comma-separated: local, docker")
    ap.add_argument("--n", type=int, default=50, help="submissions per language")
    ap.add_argument("--tests", type=int, default=10, help="tests judged per submission")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--langs", default="python,cpp", help="comma-separated: python, cpp")
    ap.add_argument("--baseline", metavar="CHECKOUT",
                    help="also judge with the local backend of another checkout (target 'base'), "
                         "alternated with the others in every round: before/after in one run")
    ap.add_argument("--concurrency", type=int, default=8, help="requests in flight per service")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="bare threads")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--wa-pct", type=int, default=20)
    ap.add_argument("--re-pct", type=int, default=10)
    ap.add_argument("--cpu-split", action="store_true",
                    help="also report machine time per test by process role (bench/cpu_split.py; "
                         "meant for an otherwise idle machine)")
    ap.add_argument("--quick", action="store_true", help="smoke run: --n 6 --rounds 1")
    ap.add_argument("--out", default=str(REPO / "bench" / "results" / "judge_vs_bare.md"),
                    help="markdown results file ('' for none; --quick writes none)")
    args = ap.parse_args(argv)
    if args.quick:
        args.n, args.rounds, args.out = 6, 1, ""
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
