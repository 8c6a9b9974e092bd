"""`pstore`: upload, list, show, remove, export and check problems in a store.

Exit codes: 0 ok; 1 some problems rejected / not found / corrupt blobs; 2 usage (bad
arguments, a path or store URI that cannot be used at all).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from problem_store.blobs.base import CorruptBlob, StoreError
from problem_store.importers import FORMATS, FormatError
from problem_store.problems import ProblemNotFound, ProblemStore
from problem_store.transient import TransientStore
from problem_store.uri import open_store

EXIT_OK, EXIT_REJECTED, EXIT_USAGE = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="pstore", description="Problem store: upload and manage problem sets.")
    p.add_argument("--store", help="store URI: file:///path, a path, or s3://bucket/prefix[?endpoint=URL] "
                                   "(default: $OUBLIETTE_STORE, else ~/.local/share/oubliette/store)")
    sub = p.add_subparsers(dest="cmd", required=True)

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help_, description=help_)
        sp.add_argument("--store", default=argparse.SUPPRESS, help="store URI (as above)")
        return sp

    up = add("upload", "import a problem set and store every valid problem")
    up.add_argument("path", type=Path)
    up.add_argument("--format", default="auto", choices=FORMATS)
    up.add_argument("--strict", action="store_true", help="all or nothing: roll back the run on any rejection")
    up.add_argument("--split", choices=("train", "heldout"), help="set every problem's RL split")
    up.add_argument("--id-prefix", default="", help="prepend to every problem id")
    up.add_argument("--no-progress", action="store_true", help="no progress bar")
    ls = add("ls", "list problems")
    ls.add_argument("--kind", choices=("stdio", "function", "math"))
    ls.add_argument("--split", choices=("train", "heldout"))
    ls.add_argument("--json", action="store_true", help="one JSON summary per line")
    show = add("show", "print a problem's manifest JSON")
    show.add_argument("id")
    rm = add("rm", "remove a problem (its blobs go at the next gc)")
    rm.add_argument("id")
    ex = add("export", "write a problem back as the own directory format, to DIR/<id>/")
    ex.add_argument("id")
    ex.add_argument("dir", type=Path)
    add("fsck", "re-hash every blob and check every manifest's links")
    gc = add("gc", "delete unreferenced blobs and expired transient objects")
    gc.add_argument("--grace-s", type=float, default=3600.0,
                    help="keep unreferenced blobs younger than this (an upload may be in progress)")
    return p


def _upload(store: ProblemStore, args: argparse.Namespace) -> int:
    from problem_store.upload import upload

    progress = not args.no_progress and sys.stderr.isatty()
    report = upload(args.path, store, args.format, strict=args.strict, split=args.split,
                    id_prefix=args.id_prefix, progress=progress)
    for r in report.rejected:
        print(f"rejected: {r}", file=sys.stderr)
    print(report.summary())
    return EXIT_OK if report.ok else EXIT_REJECTED


def _ls(store: ProblemStore, args: argparse.Namespace) -> int:
    for s in store.list(kind=args.kind, split=args.split):
        if args.json:
            print(s.model_dump_json())
        else:
            print(f"{s.id}\t{s.kind}\t{s.split or '-'}\t{s.n_tests}\t{s.title}")
    return EXIT_OK


def _fsck(store: ProblemStore) -> int:
    bad = 0
    checked = 0
    for link in store.blobs.iter_links():
        checked += 1
        try:
            store.blobs.get(link)
        except CorruptBlob as e:
            bad += 1
            print(f"corrupt: {e}")
    problems = 0
    for pid in store.ids():
        problems += 1
        try:
            p = store.get(pid)
        except (ProblemNotFound, ValueError) as e:
            bad += 1
            print(f"bad manifest {pid}: {e}")
            continue
        for link in store.missing_links(p):
            bad += 1
            print(f"missing: problem {pid} links {link}, which is not stored")
    print(f"checked {checked} blobs and {problems} manifests: {bad} problem(s)")
    return EXIT_REJECTED if bad else EXIT_OK


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        store = ProblemStore(open_store(args.store))
    except StoreError as e:
        print(f"pstore: {e}", file=sys.stderr)
        return EXIT_USAGE
    try:
        if args.cmd == "upload":
            return _upload(store, args)
        if args.cmd == "ls":
            return _ls(store, args)
        if args.cmd == "show":
            sys.stdout.write(store.get_bytes(args.id).decode() + "\n")
            return EXIT_OK
        if args.cmd == "rm":
            store.delete(args.id)
            print(f"removed {args.id} (run `pstore gc` to reclaim its blobs)")
            return EXIT_OK
        if args.cmd == "export":
            from problem_store.export import export_problem

            print(export_problem(store, args.id, args.dir))
            return EXIT_OK
        if args.cmd == "fsck":
            return _fsck(store)
        if args.cmd == "gc":
            removed = store.gc(grace_s=args.grace_s)
            expired = TransientStore(store.blobs).gc()
            print(json.dumps({"blobs_removed": len(removed), "transient_removed": expired}))
            return EXIT_OK
    except FormatError as e:
        print(f"pstore: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ProblemNotFound as e:
        print(f"pstore: {e}", file=sys.stderr)
        return EXIT_REJECTED
    except StoreError as e:
        print(f"pstore: store error: {e}", file=sys.stderr)
        return EXIT_REJECTED
    raise AssertionError(f"unhandled command {args.cmd}")


if __name__ == "__main__":
    sys.exit(main())
