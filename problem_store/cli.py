"""`pstore`: upload, list, show, remove, export and check problems in a store.

Exit codes: 0 ok; 1 some problems rejected / not found / corrupt blobs or manifests; 2
usage (bad arguments, a path or store URI that cannot be used at all).

A reader that goes away (``pstore ls | head -1``) is not an error: output stops, the
command finishes what it was doing (an upload or repair is never cut in half) and exits
with its own status, without a traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from problem_store.blobs.base import StoreError
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
    up.add_argument("--no-replace", action="store_true",
                    help="reject problems whose id is stored with different content (exit 1; those stay as they were)")
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
    fsck = add("fsck", "re-hash every blob and check every manifest's links")
    fsck.add_argument("--repair", action="store_true",
                      help="restore damaged problems from --from sources; remove the ones that cannot be restored")
    fsck.add_argument("--from", dest="sources", type=Path, action="append", default=[], metavar="DIR_OR_FILE",
                      help="a problem set to re-fetch damaged data from (as `upload` reads it; repeatable)")
    fsck.add_argument("--format", default="auto", choices=FORMATS, help="the format of the --from sources")
    gc = add("gc", "delete unreferenced blobs and expired transient objects")
    gc.add_argument("--grace-s", type=float, default=3600.0,
                    help="keep unreferenced blobs younger than this (an upload may be in progress)")
    return p


_stdout_closed = False


def out(line: str = "") -> None:
    """Print to stdout; a closed pipe silences the rest instead of raising."""
    if _stdout_closed:
        return
    try:
        print(line)
    except BrokenPipeError:
        _close_stdout()


def _close_stdout() -> None:
    global _stdout_closed
    _stdout_closed = True
    # Point stdout at /dev/null so the interpreter's final flush does not complain.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no real file descriptor (stdout replaced in tests)
        pass


def _upload(store: ProblemStore, args: argparse.Namespace) -> int:
    from problem_store.upload import upload

    progress = not args.no_progress and sys.stderr.isatty()
    report = upload(args.path, store, args.format, strict=args.strict, split=args.split,
                    id_prefix=args.id_prefix, progress=progress, no_replace=args.no_replace)
    for r in report.rejected:
        print(f"rejected: {r}", file=sys.stderr)
    out(report.summary())
    return EXIT_OK if report.ok else EXIT_REJECTED


def _ls(store: ProblemStore, args: argparse.Namespace) -> int:
    found = store.listing(kind=args.kind, split=args.split)
    for s in found.problems:
        if args.json:
            out(s.model_dump_json())
        else:
            out(f"{s.id}\t{s.kind}\t{s.split or '-'}\t{s.n_tests}\t{s.title}")
    for b in found.broken:
        print(f"pstore: skipped {b}", file=sys.stderr)
    return EXIT_REJECTED if found.broken else EXIT_OK


def _fsck(store: ProblemStore, args: argparse.Namespace) -> int:
    from problem_store.fsck import repair, scan

    if args.sources and not args.repair:
        raise FormatError("--from is for --repair")
    for src in args.sources:
        if not src.exists():
            raise FormatError(f"{src}: no such file or directory")
    found = scan(store)
    for line in found.lines():
        out(line)
    if not args.repair or not found.problems_found:
        return EXIT_REJECTED if found.problems_found else EXIT_OK
    fixed = repair(store, found, args.sources, args.format)
    for line in fixed.lines():
        out(line)
    after = scan(store)
    if after.problems_found:
        for line in after.lines():
            out(f"after repair: {line}")
        return EXIT_REJECTED
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    global _stdout_closed
    _stdout_closed = False
    args = _parser().parse_args(argv)
    rc = _run(args)
    if not _stdout_closed:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _close_stdout()
    return rc


def _run(args: argparse.Namespace) -> int:
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
            out(store.get_bytes(args.id).decode())
            return EXIT_OK
        if args.cmd == "rm":
            store.delete(args.id)
            out(f"removed {args.id} (run `pstore gc` to reclaim its blobs)")
            return EXIT_OK
        if args.cmd == "export":
            from problem_store.export import export_problem

            out(str(export_problem(store, args.id, args.dir)))
            return EXIT_OK
        if args.cmd == "fsck":
            return _fsck(store, args)
        if args.cmd == "gc":
            removed = store.gc(grace_s=args.grace_s)
            expired = TransientStore(store.blobs).gc()
            out(json.dumps({"blobs_removed": len(removed), "transient_removed": expired}))
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
