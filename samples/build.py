"""(Re)generate every stdio problem's tests by running its gen.py.

    python -m samples.build [--out DIR] [--only ID ...] [--jobs N]

Without ``--out`` each generator writes into its own problem's ``tests/`` (the big
ones are gitignored, see samples/.gitignore). With ``--out`` the whole set is copied to
DIR (stdio/, function/, math/) and the tests are generated there, leaving the
checkout untouched: DIR is then ready for ``pstore upload DIR/stdio``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from samples import layout

REPO = layout.ROOT.parent


def _copy_tree(out: Path) -> None:
    for sub in ("stdio", "function", "math"):
        src = layout.ROOT / sub
        if src.is_dir():
            shutil.copytree(src, out / sub, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))


def run_generator(problem_dir: Path, tests_dir: Path) -> tuple[str, float, str]:
    """Run one gen.py in a child process; returns (id, seconds, error text or '')."""
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED="0")
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(problem_dir / "gen.py"), "--out", str(tests_dir)],
                          capture_output=True, text=True, env=env, cwd=str(REPO))
    err = "" if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]
    return problem_dir.name, time.perf_counter() - t0, err


def build(out: Path | None = None, only: list[str] | None = None, jobs: int = 2) -> dict:
    """Generate tests; returns a summary dict (problems, tests, bytes, seconds, failures)."""
    t0 = time.perf_counter()
    probs = [p for p in layout.problems("stdio", only) if (p.path / "gen.py").exists()]
    if out is not None:
        _copy_tree(out)
    targets = []
    for p in probs:
        base = (out / "stdio" / p.path.name) if out is not None else p.path
        targets.append((p.path, base / "tests"))
    with ThreadPoolExecutor(max(1, jobs)) as pool:
        results = list(pool.map(lambda t: run_generator(*t), targets))
    failures = {pid: err for pid, _, err in results if err}
    n_tests = n_bytes = 0
    for _, tests_dir in targets:
        for f in tests_dir.glob("*"):
            if f.suffix in (".in", ".ans"):
                n_bytes += f.stat().st_size
                n_tests += f.suffix == ".in"
    slowest = sorted(results, key=lambda r: -r[1])[:3]
    return {"problems": len(probs), "tests": n_tests, "bytes": n_bytes,
            "seconds": time.perf_counter() - t0, "failures": failures,
            "slowest": [(pid, round(s, 2)) for pid, s, _ in slowest]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=None, help="write a full copy of the set here")
    ap.add_argument("--only", nargs="+", default=None, metavar="ID", help="only these problem ids")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="generators run at once")
    args = ap.parse_args(argv)
    s = build(args.out, args.only, args.jobs)
    print(f"built {s['problems']} stdio problems: {s['tests']} tests, "
          f"{s['bytes'] / 1e6:.1f} MB in {s['seconds']:.1f} s; slowest {s['slowest']}")
    for pid, err in s["failures"].items():
        print(f"  FAILED {pid}: {err}", file=sys.stderr)
    return 1 if s["failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
