"""Importers: problem sets in common formats -> drafts for the upload engine.

``iter_drafts(path, fmt)`` is the one entry point. With ``fmt="auto"`` the format comes
from the path: a directory with problem.yaml (own format) or problem.xml (Polygon), a
directory of such directories or of record files (each detected on its own), or a
record file (.jsonl, .json array, either optionally .gz; see ``jsonl``) whose first
record's keys tell CodeContests, TACO, HumanEval, MBPP or math.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from problem_store.importers.base import CheckerSpec, Draft, DraftOrFailure, ImportFailure, sanitize_id
from problem_store.importers.code_jsonl import import_codecontests, import_taco
from problem_store.importers.function_jsonl import import_humaneval, import_mbpp
from problem_store.importers.jsonl import detect_jsonl, is_record_file
from problem_store.importers.math_jsonl import import_math
from problem_store.importers.own import import_own, is_problem_dir
from problem_store.importers.polygon import import_polygon, is_package

IMPORTERS: dict[str, Callable[[Path], Iterator[DraftOrFailure]]] = {
    "own": import_own,
    "polygon": import_polygon,
    "codecontests": import_codecontests,
    "taco": import_taco,
    "humaneval": import_humaneval,
    "mbpp": import_mbpp,
    "math": import_math,
}
FORMATS = ("auto", *IMPORTERS)


class FormatError(ValueError):
    """The path or format cannot be imported at all (a usage error, exit code 2)."""


def detect_format(path: Path) -> str:
    """The format of one problem, package or JSONL file (FormatError / ImportFailure if unknown)."""
    if path.is_dir():
        if is_problem_dir(path):
            return "own"
        if is_package(path):
            return "polygon"
        raise FormatError(f"{path}: neither problem.yaml nor problem.xml here")
    if is_record_file(path):
        return detect_jsonl(path)
    raise FormatError(f"{path}: cannot tell the format (expected a directory, or a .jsonl / .json file, "
                      "optionally .gz); pass --format")


def _members(path: Path) -> list[Path]:
    """The problems / packages / JSONL files a set directory holds."""
    from problem_store.importers.base import natural_key

    out = []
    for child in sorted(path.iterdir(), key=lambda p: natural_key(p.name)):
        if child.is_dir() and (is_problem_dir(child) or is_package(child)):
            out.append(child)
        elif child.is_file() and is_record_file(child):
            out.append(child)
    return out


def iter_drafts(path: Path, fmt: str = "auto") -> Iterator[DraftOrFailure]:
    """Drafts (or ImportFailures) for every problem under ``path``."""
    path = Path(path)
    if not path.exists():
        raise FormatError(f"{path}: no such file or directory")
    if fmt not in FORMATS:
        raise FormatError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
    if fmt != "auto":
        if path.is_dir() and fmt not in ("own", "polygon"):
            for child in _members(path):
                if child.is_file():
                    yield from IMPORTERS[fmt](child)
            return
        yield from IMPORTERS[fmt](path)
        return
    targets = [path] if path.is_file() or is_problem_dir(path) or is_package(path) else _members(path)
    if not targets:
        raise FormatError(f"{path}: holds no problem.yaml, problem.xml or .jsonl/.json(.gz) to import")
    for target in targets:
        try:
            fmt_here = detect_format(target)
        except ImportFailure as e:
            yield e
            continue
        yield from IMPORTERS[fmt_here](target)


__all__ = ["CheckerSpec", "Draft", "FORMATS", "FormatError", "IMPORTERS", "ImportFailure",
           "detect_format", "iter_drafts", "sanitize_id"]
