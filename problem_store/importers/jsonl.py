"""Record files as published: JSON Lines, a JSON array, either of them gzipped.

``iter_records(path)`` yields ``(line, record)`` per record whatever the container:
HumanEval ships ``HumanEval.jsonl.gz``, some mirrors ship one ``.json`` array. Gzip is
recognised by its magic bytes, not the name, so a renamed file still reads. Line numbers
are those of the decompressed text (a JSON array's records get the line they start on),
so an error names the line a user sees after ``zcat``.

Format detection from a record's keys lives here too.
"""

from __future__ import annotations

import gzip
import io
import json
from contextlib import ExitStack
from collections.abc import Callable, Iterator
from pathlib import Path

from problem_store.importers.base import ImportFailure

GZIP_MAGIC = b"\x1f\x8b"
#: File names read as record files (auto-detection and set directories).
RECORD_SUFFIXES = (".jsonl", ".ndjson", ".json", ".jsonl.gz", ".ndjson.gz", ".json.gz")


def is_record_file(path: Path) -> bool:
    return path.name.lower().endswith(RECORD_SUFFIXES)


def _open_bytes(path: Path, stack: ExitStack) -> io.BufferedIOBase:
    """The file's bytes, decompressed on the fly when it starts with the gzip magic."""
    f = stack.enter_context(path.open("rb"))
    if f.peek(2)[:2] == GZIP_MAGIC:
        return stack.enter_context(gzip.GzipFile(fileobj=f, mode="rb"))
    return f


def _first_char(f: io.BufferedIOBase) -> bytes:
    """The first non-whitespace byte (b"" if none), without consuming anything."""
    head = f.peek(4096) if hasattr(f, "peek") else b""
    stripped = head.lstrip()
    if stripped.startswith(b"\xef\xbb\xbf"):  # a UTF-8 BOM
        stripped = stripped[3:].lstrip()
    return stripped[:1]


def iter_records(path: Path) -> Iterator[tuple[int, dict] | ImportFailure]:
    """(line number, record) per record, or an ImportFailure naming a bad line."""
    try:
        with ExitStack() as stack:
            f = _open_bytes(path, stack)
            if _first_char(f) == b"[":
                yield from _json_array(f.read(), path)
            else:
                yield from _json_lines(f, path)
    except (OSError, EOFError, gzip.BadGzipFile) as e:  # truncated or damaged .gz
        yield ImportFailure(f"cannot read: {e}", path)


def _json_lines(f: io.BufferedIOBase, path: Path) -> Iterator[tuple[int, dict] | ImportFailure]:
    for lineno, raw in enumerate(f, start=1):
        if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        if not raw.strip():
            continue
        try:
            rec = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            yield ImportFailure(f"invalid JSON: {e}", path, lineno)
            continue
        yield _object(rec, path, lineno)


def _object(rec: object, path: Path, lineno: int) -> tuple[int, dict] | ImportFailure:
    if not isinstance(rec, dict):
        return ImportFailure(f"expected a JSON object per record, got {type(rec).__name__}", path, lineno)
    return lineno, rec


def _json_array(data: bytes, path: Path) -> Iterator[tuple[int, dict] | ImportFailure]:
    """Records of one top-level JSON array, each with the line it starts on."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        yield ImportFailure(f"not UTF-8 text: {e}", path)
        return
    decoder = json.JSONDecoder()
    pos = text.index("[") + 1
    lineno, counted = 1, 0

    def line_at(i: int) -> int:
        nonlocal lineno, counted
        lineno += text.count("\n", counted, i)
        counted = i
        return lineno

    def skip_ws(i: int) -> int:
        while i < len(text) and text[i] in " \t\r\n":
            i += 1
        return i

    pos = skip_ws(pos)
    if pos < len(text) and text[pos] == "]":
        return
    while True:
        try:
            rec, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as e:
            # One bad element spoils the array's structure: the rest cannot be located.
            yield ImportFailure(f"invalid JSON: {e.msg}", path, line_at(e.pos))
            return
        yield _object(rec, path, line_at(pos))
        pos = skip_ws(end)
        if pos < len(text) and text[pos] == ",":
            pos = skip_ws(pos + 1)
            continue
        if pos < len(text) and text[pos] == "]":
            if skip_ws(pos + 1) != len(text):
                yield ImportFailure("text after the closing ']' of the JSON array", path, line_at(pos))
            return
        yield ImportFailure("expected ',' or ']' in the JSON array", path, line_at(pos))
        return


# The old name, kept for callers outside the importers.
iter_jsonl = iter_records


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
    """The format of a record file, from its first well-formed record."""
    for item in iter_records(path):
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

    fallback = f"{record_stem(path)}-{lineno}"
    for k in keys:
        if rec.get(k) not in (None, ""):
            return sanitize_id(rec[k], fallback)
    return sanitize_id(fallback, fallback)


def record_stem(path: Path) -> str:
    """The name without its record suffixes: HumanEval.jsonl.gz -> HumanEval."""
    name = path.name
    for suffix in sorted(RECORD_SUFFIXES, key=len, reverse=True):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def each_record(path: Path, build: Callable[[dict, Path, int], object]) -> Iterator:
    """Build one draft per record; a bad line or record yields its ImportFailure
    (naming file and line) and the other records go on."""
    for item in iter_records(path):
        if isinstance(item, ImportFailure):
            yield item
            continue
        lineno, rec = item
        try:
            yield build(rec, path, lineno)
        except ImportFailure as e:
            yield e
