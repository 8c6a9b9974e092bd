"""Check a store (``scan``) and mend it (``repair``): what `pstore fsck [--repair]` runs.

``scan`` re-hashes every blob and parses every manifest: corrupt blobs, unreadable
manifests, and per problem the links that are corrupt or missing.

``repair`` mends what it can from source sets (the directories/files the problems were
uploaded from, in any format ``pstore upload`` reads), then removes what it cannot:

1. Content addressing makes re-fetching exact: any draft in the sources holding bytes
   that hash to a damaged link restores that blob, whatever problem it comes from.
2. A problem still damaged, or an unreadable manifest, whose id the sources hold is
   built from the source (its checker compiled: a reproducible build restores the
   binary by hash) and, if still not whole, uploaded from it again (reported as
   replaced: the stored content was not recoverable as it was).
3. Anything left is removed cleanly: its manifest first, so no reader ever sees half a
   problem, then the corrupt blobs nobody references. Healthy blobs it used are left to
   ``gc`` and its grace period, since a concurrent upload may be about to link them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from problem_store.blobs.base import BlobNotFound, CorruptBlob
from problem_store.manifest import links_of
from problem_store.problems import CorruptManifest, ProblemNotFound, ProblemStore


@dataclass
class FsckReport:
    blobs_checked: int = 0
    manifests_checked: int = 0
    corrupt_blobs: dict[str, str] = field(default_factory=dict)  # link -> message
    broken_manifests: dict[str, str] = field(default_factory=dict)  # id -> why it does not parse
    damaged: dict[str, set[str]] = field(default_factory=dict)  # id -> its corrupt or missing links
    missing: dict[str, list[str]] = field(default_factory=dict)  # id -> its missing links

    @property
    def problems_found(self) -> int:
        return (len(self.corrupt_blobs) + len(self.broken_manifests)
                + sum(len(v) for v in self.missing.values()))

    def lines(self) -> list[str]:
        out = [f"corrupt: {msg}" for msg in self.corrupt_blobs.values()]
        out += [f"bad manifest {pid}: {msg}" for pid, msg in self.broken_manifests.items()]
        out += [f"missing: problem {pid} links {link}, which is not stored"
                for pid, links in self.missing.items() for link in links]
        out.append(f"checked {self.blobs_checked} blobs and {self.manifests_checked} manifests: "
                   f"{self.problems_found} problem(s)")
        return out


def scan(store: ProblemStore) -> FsckReport:
    report = FsckReport()
    for link in store.blobs.iter_links():
        report.blobs_checked += 1
        try:
            store.blobs.get(link)
        except CorruptBlob as e:
            report.corrupt_blobs[link] = str(e)
        except BlobNotFound:  # deleted while scanning
            continue
    for pid in store.ids():
        report.manifests_checked += 1
        try:
            p = store.get(pid)
        except ProblemNotFound:
            continue
        except CorruptManifest as e:
            report.broken_manifests[pid] = e.reason
            continue
        missing = store.missing_links(p)
        if missing:
            report.missing[pid] = missing
        bad = (links_of(p) & set(report.corrupt_blobs)) | set(missing)
        if bad:
            report.damaged[pid] = bad
    return report


@dataclass
class RepairReport:
    blobs_restored: int = 0
    repaired: list[str] = field(default_factory=list)  # whole again, content as it was
    replaced: list[str] = field(default_factory=list)  # uploaded again from the sources
    removed: list[str] = field(default_factory=list)  # not recoverable: manifest deleted
    corrupt_blobs_deleted: int = 0
    source_errors: int = 0  # source problems that did not import (they could not help)

    def lines(self) -> list[str]:
        out = [f"repaired: {pid}" for pid in self.repaired]
        out += [f"replaced from source: {pid}" for pid in self.replaced]
        out += [f"removed: {pid} (not recoverable from the sources given)" for pid in self.removed]
        out.append(f"repair: restored {self.blobs_restored} blobs; {len(self.repaired)} repaired, "
                   f"{len(self.replaced)} replaced from source, {len(self.removed)} removed; "
                   f"deleted {self.corrupt_blobs_deleted} corrupt blobs"
                   + (f"; {self.source_errors} source problem(s) did not import" if self.source_errors else ""))
        return out


def repair(store: ProblemStore, found: FsckReport, sources: Iterable[Path] = (), fmt: str = "auto") -> RepairReport:
    """Mend or remove everything ``found`` lists (see the module docstring)."""
    from problem_store.importers import ImportFailure, iter_drafts
    from problem_store.upload import DraftRejected, build_problem

    out = RepairReport()
    needed: set[str] = set().union(*found.damaged.values()) | set(found.corrupt_blobs)
    broken = set(found.broken_manifests)
    fixed_ids: set[str] = set()

    def restore_from(blobs: dict[str, bytes]) -> None:
        for link in needed & set(blobs):
            store.blobs.put(blobs[link])  # put re-hashes and rewrites the damaged copy
            needed.discard(link)
            out.blobs_restored += 1

    for src in sources:
        for draft in iter_drafts(Path(src), fmt):
            if isinstance(draft, ImportFailure):
                out.source_errors += 1
                continue
            restore_from(draft.blobs)
            pid = draft.problem_id
            still = pid in broken or bool(found.damaged.get(pid, set()) & needed)
            if not still or pid in fixed_ids:
                continue
            try:
                problem = build_problem(draft)  # compiles the checker: a reproducible binary restores by hash
            except DraftRejected:
                out.source_errors += 1
                continue
            restore_from(draft.blobs)
            if problem.id in broken or found.damaged.get(problem.id, set()) & needed:
                store.put(problem, draft.blobs)
                out.replaced.append(problem.id)
                fixed_ids.add(problem.id)
                broken.discard(problem.id)

    for pid in sorted(found.damaged):
        if pid in fixed_ids:
            continue
        if found.damaged[pid] & needed:
            broken.add(pid)
        else:
            out.repaired.append(pid)
    for pid in sorted(broken):
        try:
            store.delete(pid)  # manifest first: never half a problem
        except ProblemNotFound:  # removed meanwhile
            continue
        out.removed.append(pid)
    leftovers = [link for link in found.corrupt_blobs if link in needed]
    out.corrupt_blobs_deleted = len(store.delete_unreferenced(leftovers))
    return out
