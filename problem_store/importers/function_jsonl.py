"""Function-call problem sets as JSON Lines: HumanEval and MBPP.

HumanEval: ``task_id, prompt, test`` (defines ``check(candidate)``), ``entry_point``.
MBPP: ``task_id, text`` (or ``prompt``), ``code, test_list`` (bare asserts),
``test_setup_code`` / ``test_imports``, ``challenge_test_list``. The entry point is the
function the first assert calls that the reference code defines.
"""

from __future__ import annotations

import re
from pathlib import Path

from problem_store.importers.base import Draft, ImportFailure, Importer
from problem_store.importers.jsonl import each_record, record_id

_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(")
_DEF = re.compile(r"^\s*def\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(", re.M)


def import_humaneval(path: Path) -> Importer:
    return each_record(path, _humaneval)


def import_mbpp(path: Path) -> Importer:
    return each_record(path, _mbpp)


def _need_str(rec: dict, key: str, path: Path, lineno: int) -> str:
    value = rec.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ImportFailure(f"field {key!r} missing or not a non-empty string", path, lineno)
    return value


def _humaneval(rec: dict, path: Path, lineno: int) -> Draft:
    test = _need_str(rec, "test", path, lineno)
    entry = _need_str(rec, "entry_point", path, lineno)
    if "def check(" not in test:
        raise ImportFailure("HumanEval `test` must define check(candidate)", path, lineno)
    fields = {"id": record_id(rec, ("task_id", "id"), path, lineno), "kind": "function",
              "title": str(rec.get("task_id") or ""), "prompt": _need_str(rec, "prompt", path, lineno),
              "entry_point": entry, "harness": "humaneval", "source": "humaneval"}
    draft = Draft(fields=fields, origin=path, line=lineno)
    fields["tests"] = [{"name": "check", "code": draft.add_blob(test.encode())}]
    return draft


def mbpp_entry_point(test_list: list[str], code: str) -> str | None:
    defined = _DEF.findall(code)
    for stmt in test_list:
        for name in _CALL.findall(stmt):
            if name in defined:
                return name
    if defined:
        return defined[0]
    builtin_like = {"assert", "set", "sorted", "list", "tuple", "len", "abs", "round", "str", "int", "float", "isclose"}
    for stmt in test_list:
        for name in _CALL.findall(stmt):
            if name not in builtin_like:
                return name
    return None


def _mbpp(rec: dict, path: Path, lineno: int) -> Draft:
    tests = rec.get("test_list")
    if not isinstance(tests, list) or not tests or not all(isinstance(t, str) for t in tests):
        raise ImportFailure("field 'test_list' must be a non-empty list of assert strings", path, lineno)
    text = rec.get("text") or rec.get("prompt")
    if not isinstance(text, str) or not text.strip():
        raise ImportFailure("field 'text' (or 'prompt') missing", path, lineno)
    code = str(rec.get("code") or "")
    entry = mbpp_entry_point(tests, code)
    if entry is None:
        raise ImportFailure("cannot tell the entry point: no function call in test_list", path, lineno)
    setup = "\n".join(filter(None, [str(rec.get("test_setup_code") or ""), *map(str, rec.get("test_imports") or [])]))
    tid = rec.get("task_id")
    pid = record_id({"task_id": f"mbpp-{tid}"} if isinstance(tid, int) else rec, ("task_id", "id"), path, lineno)
    fields = {"id": pid, "kind": "function", "title": f"MBPP {tid}" if tid is not None else "",
              "statement": text, "entry_point": entry, "harness": "asserts", "setup_code": setup,
              "prompt": text + "\nYour code should pass these tests:\n\n" + "\n".join(tests) + "\n",
              "source": "mbpp"}
    draft = Draft(fields=fields, origin=path, line=lineno)
    width = max(2, len(str(len(tests))))
    out = [{"name": f"{i:0{width}d}", "code": draft.add_blob((t.strip() + "\n").encode())}
           for i, t in enumerate(tests, start=1)]
    for i, t in enumerate(rec.get("challenge_test_list") or [], start=1):
        out.append({"name": f"challenge-{i:0{width}d}", "code": draft.add_blob((str(t).strip() + "\n").encode())})
    fields["tests"] = out
    return draft
