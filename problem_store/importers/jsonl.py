"""JSON Lines reading with line numbers, and format detection from a record's keys."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

from problem_store.importers.base import ImportFailure


def iter_jsonl(path: Path) -> Iterator[tuple[int, dict] | ImportFailure]:
    """(line number, record) per non-blank line, or an ImportFailure naming a bad line."""
    with path.open("rb") as f:
        for lineno, raw in enumerate(f, start=1):
            if not raw.strip():
                continue
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as e:
                yield ImportFailure(f"invalid JSON: {e}", path, lineno)
                continue
            if not isinstance(rec, dict):
                yield ImportFailure(f"expected a JSON object per line, got {type(rec).__name__}", path, lineno)
                continue
            yield lineno, rec


def detect_record(rec: dict) -> str | None:
    keys = set(rec)
    if {"prompt", "test", "entry_point"} <= keys:
        return "humaneval"
    if "test_list" in keys:
        return "mbpp"
    if "input_output" in keys:
        return "taco"
    if keys & {"public_tests", "private_tests", "generated_tests"}:
        return "codecontests"
    if keys & {"question", "problem"} and keys & {"answer", "solution", "final_answer"}:
        return "math"
    return None


def detect_jsonl(path: Path) -> str:
    """The format of a JSONL file, from its first well-formed record."""
    for item in iter_jsonl(path):
        if isinstance(item, ImportFailure):
            continue
        lineno, rec = item
        fmt = detect_record(rec)
        if fmt is None:
            raise ImportFailure(f"cannot tell the format from the keys {sorted(rec)}; pass --format", path, lineno)
        return fmt
    raise ImportFailure("no JSON records to detect a format from; pass --format", path)


def record_id(rec: dict, keys: tuple[str, ...], path: Path, lineno: int) -> str:
    from problem_store.importers.base import sanitize_id

    fallback = f"{path.stem}-{lineno}"
    for k in keys:
        if rec.get(k) not in (None, ""):
            return sanitize_id(rec[k], fallback)
    return sanitize_id(fallback, fallback)


def each_record(path: Path, build: Callable[[dict, Path, int], object]) -> Iterator:
    """Build one draft per JSONL record; a bad line or record yields its ImportFailure
    (naming file and line) and the other records go on."""
    for item in iter_jsonl(path):
        if isinstance(item, ImportFailure):
            yield item
            continue
        lineno, rec = item
        try:
            yield build(rec, path, lineno)
        except ImportFailure as e:
            yield e
