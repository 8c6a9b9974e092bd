"""Problem manifests on top of a blob store.

Manifests are named objects ``problems/<id>.json`` holding ``dump_problem`` bytes. A
manifest is written only after every blob it links exists, so a reader never sees a
problem whose test data is missing. Deleting a problem removes its manifest; the blobs
it alone used are reclaimed later by ``gc`` (with a grace period, because a concurrent
upload writes blobs before its manifest).

A manifest that does not parse (damaged bytes, a schema from the future) is never fatal to
the others: ``get`` raises ``CorruptManifest`` for that id, ``listing`` returns the good
ones plus the broken ids, and the links of a broken manifest still count as referenced
(found by pattern in its raw bytes), so neither gc nor a rollback deletes data it may
need. ``pstore fsck --repair`` mends or removes it.

``get`` is called per verification request, so parsed manifests are cached in memory,
keyed by the object's version token (inode+mtime for files, ETag for S3): a rewritten
manifest is seen at once.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from pydantic import BaseModel

from problem_store.blobs.base import BlobNotFound, BlobStore, StoreError
from problem_store.manifest import (
    FunctionProblem,
    MathProblem,
    StdioProblem,
    dump_problem,
    links_of,
    parse_problem,
)

AnyProblem = StdioProblem | FunctionProblem | MathProblem
MANIFEST_PREFIX = "problems/"
_LINK_IN_TEXT = re.compile(rb"blob://sha256/[0-9a-f]{64}")

log = logging.getLogger(__name__)


class ProblemNotFound(StoreError, KeyError):
    def __init__(self, problem_id: str):
        super().__init__(problem_id)
        self.problem_id = problem_id

    def __str__(self) -> str:
        return f"problem not found: {self.problem_id}"


class CorruptManifest(StoreError):
    """A stored manifest that does not parse: the store is damaged, not the request."""

    def __init__(self, problem_id: str, reason: str):
        super().__init__(problem_id)
        self.problem_id, self.reason = problem_id, reason

    def __str__(self) -> str:
        return f"problem {self.problem_id}: manifest unreadable ({self.reason}); run `pstore fsck --repair`"


def _reason(err: Exception) -> str:
    """The first validation error, briefly (pydantic's full message can be pages long)."""
    try:
        items = err.errors(include_url=False)  # type: ignore[attr-defined]
    except (AttributeError, TypeError):
        return str(err)[:300]
    if not items:
        return type(err).__name__
    first = items[0]
    loc = ".".join(str(x) for x in first.get("loc", ()))
    text = f"{loc}: {first['msg']}" if loc else first["msg"]
    return (text + (f" (and {len(items) - 1} more)" if len(items) > 1 else ""))[:300]


class MissingBlobs(StoreError):
    """A manifest would link blobs the store does not hold."""

    def __init__(self, problem_id: str, links: list[str]):
        super().__init__(problem_id)
        self.problem_id, self.links = problem_id, links

    def __str__(self) -> str:
        return f"problem {self.problem_id}: {len(self.links)} linked blob(s) missing, e.g. {self.links[0]}"


class ProblemSummary(BaseModel):
    """What `pstore ls` and the verifier's problem listing show."""

    id: str
    kind: str
    title: str = ""
    split: str | None = None
    difficulty: str | None = None
    tags: tuple[str, ...] = ()
    n_tests: int = 0

    @classmethod
    def of(cls, p: AnyProblem) -> "ProblemSummary":
        n = len(p.tests) if isinstance(p, (StdioProblem, FunctionProblem)) else 1
        return cls(id=p.id, kind=p.kind, title=p.title, split=p.split, difficulty=p.difficulty, tags=p.tags, n_tests=n)


@dataclass
class Listing:
    """Summaries of the readable problems, and the ids whose manifests are unreadable."""

    problems: list[ProblemSummary] = field(default_factory=list)
    broken: list[CorruptManifest] = field(default_factory=list)

    @property
    def broken_ids(self) -> list[str]:
        return [b.problem_id for b in self.broken]


@dataclass
class PutResult:
    """What one ``ProblemStore.put`` wrote (the upload engine reports and rolls back with it)."""

    previous: bytes | None = None  # the manifest bytes replaced, if any
    new_links: list[str] = field(default_factory=list)  # blobs this call wrote first
    present: set[str] = field(default_factory=set)  # every link put (new or already there)
    bytes_written: int = 0
    bytes_deduplicated: int = 0


def manifest_key(problem_id: str) -> str:
    return f"{MANIFEST_PREFIX}{problem_id}.json"


def put_blobs(blobs: BlobStore, data: Iterable[bytes], result: PutResult) -> None:
    """Write blobs with the store's preferred concurrency, recording new links and dedup."""
    items = list(data)

    def one(b: bytes) -> tuple[str, bool, int]:
        link, newly = blobs.put(b)
        return link, newly, len(b)

    workers = max(1, min(blobs.io_concurrency, len(items)))
    if workers == 1:
        done = []
        for b in items:
            try:
                done.append(one(b))
            except BaseException:
                _record(done, result)
                raise
    else:
        with ThreadPoolExecutor(workers) as pool:
            futures = [pool.submit(one, b) for b in items]
            done, first_error = [], None
            for f in futures:  # wait for every write so the new links are all recorded
                try:
                    done.append(f.result())
                except BaseException as e:  # noqa: BLE001 - re-raised below
                    first_error = first_error or e
            if first_error is not None:
                _record(done, result)
                raise first_error
    _record(done, result)


def _record(done: list[tuple[str, bool, int]], result: PutResult) -> None:
    for link, newly, n in done:
        result.present.add(link)
        if newly:
            result.new_links.append(link)
            result.bytes_written += n
        else:
            result.bytes_deduplicated += n


class ProblemStore:
    """Problems by id: get / list / put / delete / gc over any ``BlobStore``."""

    def __init__(self, blobs: BlobStore, cache_size: int = 1024):
        self.blobs = blobs
        self._cache: OrderedDict[str, tuple[str, AnyProblem]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ProblemStore({self.blobs!r})"

    # -- reading ------------------------------------------------------------------------
    def get(self, problem_id: str) -> AnyProblem:
        """The problem's manifest, parsed (cached while its stored version is unchanged)."""
        key = manifest_key(problem_id)
        version = self.blobs.object_version(key)
        if version is None:
            raise ProblemNotFound(problem_id)
        with self._lock:
            hit = self._cache.get(problem_id)
            if hit and hit[0] == version:
                self._cache.move_to_end(problem_id)
                return hit[1]
        data = self.blobs.get_object(key)
        if data is None:
            raise ProblemNotFound(problem_id)
        try:
            problem = parse_problem(data)
        except ValueError as e:  # pydantic's ValidationError is a ValueError
            raise CorruptManifest(problem_id, _reason(e)) from None
        if problem.id != problem_id:  # copied or renamed behind the store's back
            raise CorruptManifest(problem_id, f"it holds problem id {problem.id!r}")
        with self._lock:
            # Version read before the bytes: if it changed in between, the next get re-reads.
            self._cache[problem_id] = (version, problem)
            self._cache.move_to_end(problem_id)
            while len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return problem

    def get_bytes(self, problem_id: str) -> bytes:
        data = self.blobs.get_object(manifest_key(problem_id))
        if data is None:
            raise ProblemNotFound(problem_id)
        return data

    def exists(self, problem_id: str) -> bool:
        return self.blobs.object_version(manifest_key(problem_id)) is not None

    def ids(self) -> list[str]:
        out = []
        for key in self.blobs.list_objects(MANIFEST_PREFIX):
            name = key[len(MANIFEST_PREFIX):]
            if name.endswith(".json") and "/" not in name:
                out.append(name[: -len(".json")])
        return sorted(out)

    def list(self, kind: str | None = None, split: str | None = None) -> list[ProblemSummary]:
        """Summaries of every readable problem (optionally one kind / split), sorted by id.

        Unreadable manifests are skipped with a warning; ``listing`` also returns them.
        """
        found = self.listing(kind, split)
        for b in found.broken:
            log.warning("skipping problem %s: %s", b.problem_id, b)
        return found.problems

    def listing(self, kind: str | None = None, split: str | None = None) -> Listing:
        """The readable problems' summaries and the unreadable manifests, both by id."""
        out = Listing()
        for pid in self.ids():
            try:
                p = self.get(pid)
            except ProblemNotFound:  # deleted while listing
                continue
            except CorruptManifest as e:
                out.broken.append(e)
                continue
            if (kind is None or p.kind == kind) and (split is None or p.split == split):
                out.problems.append(ProblemSummary.of(p))
        return out

    # -- writing ------------------------------------------------------------------------
    def put(self, problem: AnyProblem, data: Mapping[str, bytes] | Iterable[bytes] = (),
            result: PutResult | None = None) -> PutResult:
        """Store blobs ``data`` (link -> bytes, or bare bytes), then the manifest, last.

        Raises MissingBlobs (writing no manifest) if a linked blob is still absent. Pass
        ``result`` to learn what was written even when this raises (for rollback).
        """
        result = result if result is not None else PutResult()
        result.previous = self.blobs.get_object(manifest_key(problem.id))
        payload = data.values() if isinstance(data, Mapping) else data
        put_blobs(self.blobs, payload, result)
        missing = self.missing_links(problem, known_present=result.present)
        if missing:
            raise MissingBlobs(problem.id, missing)
        self.blobs.put_object(manifest_key(problem.id), dump_problem(problem))
        return result

    def put_manifest_bytes(self, problem_id: str, data: bytes) -> None:
        """Restore a manifest verbatim (rollback of an update)."""
        self.blobs.put_object(manifest_key(problem_id), data)

    def delete(self, problem_id: str) -> None:
        if not self.exists(problem_id):
            raise ProblemNotFound(problem_id)
        self.blobs.delete_object(manifest_key(problem_id))
        with self._lock:
            self._cache.pop(problem_id, None)

    # -- maintenance --------------------------------------------------------------------
    def referenced_links(self) -> set[str]:
        refs: set[str] = set()
        for pid in self.ids():
            try:
                refs |= links_of(self.get(pid))
            except ProblemNotFound:
                continue
            except CorruptManifest:  # keep whatever it still names: it may be mended
                raw = self.blobs.get_object(manifest_key(pid)) or b""
                refs |= {m.decode() for m in _LINK_IN_TEXT.findall(raw)}
        return refs

    def delete_unreferenced(self, candidates: Iterable[str]) -> list[str]:
        """Delete those of ``candidates`` no manifest links (rollback of a failed upload)."""
        candidates = list(candidates)
        if not candidates:
            return []
        refs = self.referenced_links()
        gone = [link for link in candidates if link not in refs]
        for link in gone:
            self.blobs.delete(link)
        return gone

    def gc(self, grace_s: float = 3600.0, now: float | None = None) -> list[str]:
        """Delete blobs no manifest links and older than ``grace_s``; return their links.

        The grace period protects blobs an upload in progress has written but not yet
        linked from its manifest.
        """
        now = time.time() if now is None else now
        refs = self.referenced_links()
        removed = []
        for link in list(self.blobs.iter_links()):
            if link in refs:
                continue
            if grace_s > 0:
                mtime = self.blobs.blob_mtime(link)
                if mtime is None or now - mtime < grace_s:
                    continue
            self.blobs.delete(link)
            removed.append(link)
        cleanup = getattr(self.blobs, "iter_temp_files", None)
        if cleanup is not None:  # file store: temp files of writers that died
            for path in list(cleanup()):
                try:
                    if now - path.stat().st_mtime >= grace_s:
                        path.unlink(missing_ok=True)
                except FileNotFoundError:
                    pass
        return removed

    def missing_links(self, problem: AnyProblem, known_present: set[str] = frozenset()) -> list[str]:
        """Links of ``problem`` the store lacks (checked concurrently: one HEAD each on S3)."""
        todo = sorted(links_of(problem) - set(known_present))
        workers = max(1, min(self.blobs.io_concurrency, len(todo)))
        if workers == 1:
            return [link for link in todo if not self.blobs.exists(link)]
        with ThreadPoolExecutor(workers) as pool:
            there = list(pool.map(self.blobs.exists, todo))
        return [link for link, ok in zip(todo, there) if not ok]


__all__ = [
    "AnyProblem",
    "BlobNotFound",
    "CorruptManifest",
    "Listing",
    "MissingBlobs",
    "ProblemNotFound",
    "ProblemStore",
    "ProblemSummary",
    "PutResult",
    "manifest_key",
]
