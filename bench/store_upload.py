"""Upload throughput of the problem store: file backend and S3 (moto on loopback).

Generates a problem set in the own format (default 100 problems x 100 tests = 10,000
tests, sizes mixed: mostly under 1 KiB, some 16 KiB, a few 128 KiB), uploads it to a fresh
file store and to a fresh S3 prefix on a moto server started on 127.0.0.1, then uploads
it again (every problem unchanged: the cost of a no-op re-upload). Prints tests/s and
MB/s and writes them to bench/results/store.md.

    .venv/bin/python bench/store_upload.py [--problems 100] [--tests 100] [--no-s3]

moto keeps objects in its own process and answers on 2 shared cores here, so the S3
figure is a floor for moto, not a prediction for real S3.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from problem_store.blobs.file import FileBlobStore  # noqa: E402
from problem_store.blobs.s3 import S3BlobStore  # noqa: E402
from problem_store.problems import ProblemStore  # noqa: E402
from problem_store.upload import upload  # noqa: E402


def generate(root: Path, problems: int, tests: int, seed: int = 1) -> int:
    """Write the set; return its total bytes of test data."""
    rng = random.Random(seed)
    total = 0
    for p in range(problems):
        d = root / f"bench-{p:04d}"
        (d / "tests").mkdir(parents=True)
        (d / "problem.yaml").write_text(f"title: Bench problem {p}\nkind: stdio\nchecker: tokens\n")
        for t in range(tests):
            r = rng.random()
            size = rng.randint(8, 1024) if r < 0.75 else (16 * 1024 if r < 0.98 else 128 * 1024)
            data = rng.randbytes(size // 2).hex().encode()[:size - 1] + b"\n"
            answer = b"YES\n" if rng.random() < 0.3 else f"{rng.randint(0, 10**9)}\n".encode()
            (d / "tests" / f"{t:03d}.in").write_bytes(data)
            (d / "tests" / f"{t:03d}.ans").write_bytes(answer)
            total += len(data) + len(answer)
    return total


def timed_upload(src: Path, store: ProblemStore) -> tuple[float, object]:
    t0 = time.perf_counter()
    report = upload(src, store, "own")
    elapsed = time.perf_counter() - t0
    if not report.ok:
        raise SystemExit(f"bench upload rejected problems: {report.rejected[:3]}")
    return elapsed, report


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problems", type=int, default=100)
    ap.add_argument("--tests", type=int, default=100)
    ap.add_argument("--no-s3", action="store_true")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "store.md")
    args = ap.parse_args()

    rows = []
    with tempfile.TemporaryDirectory(prefix="store-bench-") as tmp:
        tmp = Path(tmp)
        src = tmp / "set"
        nbytes = generate(src, args.problems, args.tests)
        ntests = args.problems * args.tests
        mb = nbytes / 1e6
        print(f"set: {args.problems} problems, {ntests} tests, {mb:.1f} MB of test data")

        targets: list[tuple[str, ProblemStore]] = [("file", ProblemStore(FileBlobStore(tmp / "store")))]
        stop = None
        if not args.no_s3:
            from tests.moto_server import start_moto_server

            os.environ.setdefault("AWS_ACCESS_KEY_ID", "testing")
            os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "testing")
            endpoint, stop = start_moto_server()
            targets.append(("s3 (moto, 127.0.0.1)",
                            ProblemStore(S3BlobStore("bench", "store", endpoint_url=endpoint, create_bucket=True))))
        try:
            for name, store in targets:
                for phase in ("fresh", "re-upload (unchanged)"):
                    elapsed, report = timed_upload(src, store)
                    row = (name, phase, elapsed, ntests / elapsed, mb / elapsed, report.blobs_written,
                           report.bytes_deduplicated / 1e6)
                    rows.append(row)
                    print(f"{name:22s} {phase:22s} {elapsed:7.2f} s {row[3]:9.0f} tests/s {row[4]:7.2f} MB/s "
                          f"blobs written {row[5]}, dedup {row[6]:.2f} MB")
        finally:
            if stop:
                stop()
        write_results(args, rows, ntests, mb)  # before the (slow) removal of the temp set


def write_results(args: argparse.Namespace, rows: list, ntests: int, mb: float) -> None:
    args.out.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        "# Problem store upload throughput",
        "",
        f"`bench/store_upload.py --problems {args.problems} --tests {args.tests}`: {ntests} tests, "
        f"{mb:.1f} MB of test data (inputs mostly < 1 KiB, 23% 16 KiB, 2% 128 KiB; 30% of answers identical).",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared), Python {platform.python_version()}; "
        f"measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average "
        f"{os.getloadavg()[0]:.1f} at the end (other jobs share the machine).",
        "File store: fsync on every blob and manifest. S3: moto server over HTTP on 127.0.0.1 "
        "(in-memory, same 2 cores): a floor for moto, not a forecast for real S3.",
        "",
        "| store | upload | seconds | tests/s | MB/s | blobs written | deduplicated MB |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    lines += [f"| {r[0]} | {r[1]} | {r[2]:.2f} | {r[3]:.0f} | {r[4]:.2f} | {r[5]} | {r[6]:.2f} |" for r in rows]
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
