"""The upload engine: drafts from an importer -> validated problems -> the store.

Per problem, atomically: everything that can fail on bad input (reading files, compiling
the checker, validating the manifest) happens before the first write; then the blobs go
in, then the manifest, last. If writing fails midway, the blobs this problem newly wrote
and nothing references are deleted again, so a failed problem leaves no trace.

An id that is stored already is replaced, and the report says so: ``replaced`` lists
every id whose stored content changed (with the test counts before and after), and an
identical re-upload counts as ``unchanged``. ``no_replace`` rejects a problem whose id is
stored with different content instead (an identical one is still fine: nothing is
replaced). Every re-upload re-hashes the blobs it would have written and rewrites damaged
or missing ones (``repaired``): uploading a set again is how a damaged store is mended.

``strict`` makes the whole set all-or-nothing: on the first rejected problem every
problem this run added is removed, every one it updated gets its previous manifest back,
and the blobs the run newly wrote and nothing references are deleted.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from problem_store.checker_build import PLATFORM, CheckerBuildError, compile_checker
from problem_store.importers import Draft, ImportFailure, iter_drafts
from problem_store.manifest import FunctionProblem, StdioProblem, dump_problem, parse_problem
from problem_store.problems import AnyProblem, MissingBlobs, ProblemStore, PutResult, manifest_key, put_blobs

KIND_TAGS = {"stdio", "function", "math", "builtin", "custom"}


@dataclass
class Rejection:
    """One problem that was not stored, and why (``where`` is file[:line])."""

    problem_id: str | None
    where: str
    message: str

    def __str__(self) -> str:
        who = f"[{self.problem_id}] " if self.problem_id else ""
        return f"{self.where}: {who}{self.message}" if self.where else f"{who}{self.message}"


@dataclass
class Replacement:
    """A stored problem this upload replaced with different content."""

    problem_id: str
    tests_before: int | None  # None: the previous manifest was unreadable
    tests_after: int

    def __str__(self) -> str:
        before = "an unreadable manifest" if self.tests_before is None else f"{self.tests_before} tests"
        return f"{self.problem_id} (content changed: {before} -> {self.tests_after} tests)"


@dataclass
class UploadReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    replaced: list[Replacement] = field(default_factory=list)  # one per id in `updated`
    repaired: list[str] = field(default_factory=list)  # unchanged manifest, damaged/missing blobs rewritten
    rejected: list[Rejection] = field(default_factory=list)
    tests: int = 0
    blobs_written: int = 0
    bytes_written: int = 0
    bytes_deduplicated: int = 0  # bytes not written because the blob already existed
    rolled_back: bool = False  # strict mode undid this run

    @property
    def ok(self) -> bool:
        return not self.rejected

    def summary(self) -> str:
        """One line of counts, then one line per replaced or repaired problem."""
        s = (f"added {len(self.added)}, updated {len(self.updated)}, unchanged {len(self.unchanged)}, "
             f"repaired {len(self.repaired)}, rejected {len(self.rejected)}; {self.tests} tests; "
             f"wrote {self.blobs_written} blobs ({self.bytes_written} bytes), "
             f"deduplicated {self.bytes_deduplicated} bytes")
        s += "; strict: rolled back, store unchanged" if self.rolled_back else ""
        lines = [s, *(f"replaced: {r}" for r in self.replaced)]
        lines += [f"repaired: {pid} (same content; damaged or missing blobs rewritten)" for pid in self.repaired]
        return "\n".join(lines)


class DraftRejected(Exception):
    def __init__(self, rejection: Rejection):
        super().__init__(str(rejection))
        self.rejection = rejection


def _validation_rejection(draft: Draft, err: ValidationError) -> Rejection:
    msgs, first_line = [], None
    for e in err.errors():
        loc = tuple(x for x in e["loc"] if x not in KIND_TAGS)
        line = draft.line_for(loc)
        first_line = first_line or line
        where = f"line {line}: " if line and len(err.errors()) > 1 else ""
        msgs.append(f"{where}{'.'.join(map(str, loc)) or 'problem'}: {e['msg']}")
    where = f"{draft.origin}:{first_line}" if first_line else str(draft.origin)
    return Rejection(draft.problem_id or None, where, "invalid manifest: " + "; ".join(msgs))


def build_problem(draft: Draft, *, split: str | None = None, id_prefix: str = "") -> AnyProblem:
    """Compile the checker (if any) and validate; raises DraftRejected. Writes nothing."""
    fields = dict(draft.fields)
    if id_prefix:
        fields["id"] = f"{id_prefix}{fields.get('id', '')}"
        draft.fields["id"] = fields["id"]
    if split is not None:
        fields["split"] = split
    if draft.checker is not None:
        spec = draft.checker
        try:
            binary = compile_checker(spec.source, language=spec.language, headers=spec.headers,
                                     source_name=str(spec.path))
        except CheckerBuildError as e:
            raise DraftRejected(Rejection(draft.problem_id or None, str(spec.path), str(e))) from None
        fields["checker"] = {**fields["checker"], "binary": draft.add_blob(binary), "platform": PLATFORM}
    try:
        return parse_problem(fields)
    except ValidationError as e:
        raise DraftRejected(_validation_rejection(draft, e)) from None


def _count_tests(p: AnyProblem) -> int:
    return len(p.tests) if isinstance(p, (StdioProblem, FunctionProblem)) else 1


@dataclass
class _Written:
    problem_id: str
    previous: bytes | None
    new_links: list[str]


def upload(path: Path | str, store: ProblemStore, fmt: str = "auto", *, strict: bool = False,
           split: str | None = None, id_prefix: str = "", progress: bool = False,
           no_replace: bool = False) -> UploadReport:
    """Import ``path`` and store every valid problem; see the module docstring.

    Raises importers.FormatError when the path cannot be imported at all.
    """
    from tqdm import tqdm

    report = UploadReport()
    journal: list[_Written] = []
    seen: dict[str, str] = {}
    bar = tqdm(iter_drafts(Path(path), fmt), desc="upload", unit="problem", file=sys.stderr,
               disable=not progress, dynamic_ncols=True)
    for item in bar:
        try:
            if isinstance(item, ImportFailure):
                raise DraftRejected(Rejection(item.problem_id, item.where, item.message))
            problem = build_problem(item, split=split, id_prefix=id_prefix)
            origin = f"{item.origin}:{item.line}" if item.line else str(item.origin)
            if problem.id in seen:
                raise DraftRejected(Rejection(problem.id, origin, f"duplicate problem id (first at {seen[problem.id]})"))
            seen[problem.id] = origin
            _store_one(store, problem, item, report, journal, origin, no_replace)
        except DraftRejected as e:
            report.rejected.append(e.rejection)
            if strict:
                _rollback(store, journal)
                report.rolled_back = True
                report.added, report.updated, report.replaced = [], [], []
                report.blobs_written = report.bytes_written = 0
                break
        bar.set_postfix(tests=report.tests, rejected=len(report.rejected), refresh=False)
    bar.close()
    return report


def _store_one(store: ProblemStore, problem: AnyProblem, draft: Draft, report: UploadReport,
               journal: list[_Written], origin: str, no_replace: bool) -> None:
    new_bytes = dump_problem(problem)
    old_bytes = store.blobs.get_object(manifest_key(problem.id))
    same = old_bytes == new_bytes
    if old_bytes is not None and not same and no_replace:
        raise DraftRejected(Rejection(problem.id, origin, "a problem with this id and different content is "
                                      "stored already; --no-replace refuses to replace it"))
    result = PutResult()
    try:
        if same:  # the manifest stays; its blobs are re-hashed and mended
            put_blobs(store.blobs, draft.blobs.values(), result)
            missing = store.missing_links(problem, known_present=result.present)
            if missing:
                raise MissingBlobs(problem.id, missing)
        else:
            store.put(problem, draft.blobs, result=result)
    except Exception as e:  # a store failure: undo this problem's writes, report it
        store.delete_unreferenced(result.new_links)
        raise DraftRejected(Rejection(problem.id, origin, f"store error while writing: {e}")) from e
    report.tests += _count_tests(problem)
    report.blobs_written += len(result.new_links)
    report.bytes_written += result.bytes_written
    report.bytes_deduplicated += result.bytes_deduplicated + draft.duplicate_bytes
    if same:
        (report.repaired if result.new_links else report.unchanged).append(problem.id)
        if result.new_links:
            journal.append(_Written(problem.id, old_bytes, result.new_links))
        return
    journal.append(_Written(problem.id, old_bytes, result.new_links))
    if old_bytes is None:
        report.added.append(problem.id)
        return
    report.updated.append(problem.id)
    report.replaced.append(Replacement(problem.id, _tests_in(old_bytes), _count_tests(problem)))


def _tests_in(manifest: bytes) -> int | None:
    try:
        return _count_tests(parse_problem(manifest))
    except ValueError:  # a damaged previous manifest: replacing it is the repair
        return None


def _rollback(store: ProblemStore, journal: list[_Written]) -> None:
    """Undo this run's problems, newest first, then its now-unreferenced new blobs."""
    for w in reversed(journal):
        if w.previous is None:
            store.blobs.delete_object(manifest_key(w.problem_id))
        else:
            store.put_manifest_bytes(w.problem_id, w.previous)
    store.delete_unreferenced([link for w in journal for link in w.new_links])
    journal.clear()
