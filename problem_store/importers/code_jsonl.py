"""Stdin/stdout problem sets as JSON Lines: CodeContests and TACO (APPS-style).

CodeContests: ``name, description, public_tests/private_tests/generated_tests
{input: [...], output: [...]}, time_limit {seconds, nanos}, memory_limit_bytes``.
TACO: ``question, input_output`` (a JSON string ``{inputs, outputs[, fn_name]}``),
``tags``/``skill_types`` (a Python-repr list string), ``time_limit``/``memory_limit``
text ("2 seconds", "256 megabytes"); limits convert as ``importers.limits`` says. With
``fn_name`` the problem is call-based and becomes a function problem whose asserts
compare the return value (APPS accepts the value or the value wrapped in a list).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from problem_store.importers.base import Draft, ImportFailure, Importer
from problem_store.importers.jsonl import each_record, record_id
from problem_store.importers.limits import memory_mb_from_bytes, memory_mb_from_text, seconds, time_limit_from_text


def _limits_cc(rec: dict) -> dict:
    limits: dict = {}
    tl = rec.get("time_limit")
    if isinstance(tl, dict):
        secs = seconds(float(tl.get("seconds") or 0) + float(tl.get("nanos") or 0) / 1e9)
        if secs:
            limits["time_limit_s"] = secs
    elif isinstance(tl, (int, float)) and tl:
        limits["time_limit_s"] = seconds(float(tl))
    mem = rec.get("memory_limit_bytes")
    if isinstance(mem, (int, float)) and mem > 0:
        limits["memory_mb"] = memory_mb_from_bytes(mem)
    return limits


def _pairs(rec: dict, key: str, path: Path, lineno: int) -> list[tuple[str, str]]:
    block = rec.get(key)
    if not block:
        return []
    if not isinstance(block, dict):
        raise ImportFailure(f"{key} must be an object {{input: [...], output: [...]}}", path, lineno)
    ins, outs = block.get("input") or [], block.get("output") or []
    if len(ins) != len(outs):
        raise ImportFailure(f"{key}: {len(ins)} inputs but {len(outs)} outputs", path, lineno)
    return list(zip(ins, outs))


def import_codecontests(path: Path) -> Importer:
    return each_record(path, _codecontests)


def _codecontests(rec: dict, path: Path, lineno: int) -> Draft:
    pid = record_id(rec, ("id", "name"), path, lineno)
    fields: dict = {"id": pid, "kind": "stdio", "title": str(rec.get("name") or ""),
                    "statement": str(rec.get("description") or ""), "source": "codecontests"}
    draft = Draft(fields=fields, origin=path, line=lineno)
    limits = _limits_cc(rec)
    if limits:
        fields["limits"] = limits
    if rec.get("cf_tags"):
        fields["tags"] = [str(t) for t in rec["cf_tags"]]
    if rec.get("cf_rating"):
        fields["difficulty"] = f"cf-{rec['cf_rating']}"
    tests = []
    for key, label in (("public_tests", "public"), ("private_tests", "private"), ("generated_tests", "generated")):
        pairs = _pairs(rec, key, path, lineno)
        width = max(2, len(str(len(pairs))))
        for i, (inp, out) in enumerate(pairs, start=1):
            t = {"name": f"{label}-{i:0{width}d}", "input": draft.add_blob(_text(inp).encode()),
                 "answer": draft.add_blob(_text(out).encode())}
            if label == "public":
                t["sample"] = True
            tests.append(t)
    if not tests:
        raise ImportFailure(f"problem {pid!r} has no tests (public/private/generated all empty)", path, lineno)
    fields["tests"] = tests
    return draft


def _text(value: object) -> str:
    if isinstance(value, list):
        return "\n".join(str(v) for v in value) + "\n"
    return str(value)


def _limits_taco(rec: dict) -> dict:
    limits: dict = {}
    t = time_limit_from_text(rec.get("time_limit"))
    if t is not None:
        limits["time_limit_s"] = t
    m = memory_mb_from_text(rec.get("memory_limit"))
    if m is not None:
        limits["memory_mb"] = m
    return limits


def taco_tags(raw: object) -> list[str]:
    """TACO's tags as published: a Python-repr list string ("['Sorting', 'Greedy']"), a
    JSON list string, a real list, or a comma-separated string."""
    if raw is None:
        return []
    value = raw
    if isinstance(raw, str):
        text = raw.strip()
        if not text:
            return []
        if text.startswith(("[", "(")):
            try:
                value = json.loads(text)
            except json.JSONDecodeError:
                try:  # literal_eval evaluates literals only, never code
                    value = ast.literal_eval(text)
                except (ValueError, SyntaxError, MemoryError, RecursionError):
                    value = [text]
        else:
            value = text.split(",")
    if not isinstance(value, (list, tuple)):
        value = [value]
    out: list[str] = []
    for t in value:
        tag = str(t).strip()
        if tag and tag not in out:
            out.append(tag)
    return out


def import_taco(path: Path) -> Importer:
    return each_record(path, _taco)


_TACO_SETUP = '''import json


def _taco_matches(got, expected):
    """APPS/TACO call-based comparison: the value, or the value wrapped in a list."""
    if isinstance(got, tuple):
        got = list(got)
    return got == expected or [got] == expected
'''


def _taco(rec: dict, path: Path, lineno: int) -> Draft:
    raw = rec.get("input_output")
    try:
        io = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError as e:
        raise ImportFailure(f"input_output is not valid JSON: {e}", path, lineno) from None
    if not isinstance(io, dict) or not isinstance(io.get("inputs"), list) or not isinstance(io.get("outputs"), list):
        raise ImportFailure("input_output must hold lists `inputs` and `outputs`", path, lineno)
    ins, outs = io["inputs"], io["outputs"]
    if len(ins) != len(outs):
        raise ImportFailure(f"input_output: {len(ins)} inputs but {len(outs)} outputs", path, lineno)
    if not ins:
        raise ImportFailure("input_output has no tests", path, lineno)
    pid = record_id(rec, ("id", "task_id", "name"), path, lineno)
    question = str(rec.get("question") or "")
    fields: dict = {"id": pid, "statement": question, "source": "taco"}
    if rec.get("difficulty"):
        fields["difficulty"] = str(rec["difficulty"]).lower()
    tags = taco_tags(rec.get("tags")) or taco_tags(rec.get("skill_types"))
    if tags:
        fields["tags"] = tags
    limits = _limits_taco(rec)
    if limits:
        fields["limits"] = limits
    draft = Draft(fields=fields, origin=path, line=lineno)
    width = max(2, len(str(len(ins))))
    fn = io.get("fn_name")
    if not fn:
        fields["kind"] = "stdio"
        fields["tests"] = [{"name": f"{i:0{width}d}", "input": draft.add_blob(_text(a).encode()),
                            "answer": draft.add_blob(_text(b).encode())}
                           for i, (a, b) in enumerate(zip(ins, outs), start=1)]
        return draft
    if not isinstance(fn, str) or not fn.isidentifier():
        raise ImportFailure(f"fn_name {fn!r} is not a Python identifier", path, lineno)
    starter = str(rec.get("starter_code") or "")
    # LeetCode-style starter code: the entry point is a method, called on a Solution().
    method = "class Solution" in starter
    call = f"Solution().{fn}" if method else fn
    fields.update(kind="function", entry_point=fn, harness="asserts", setup_code=_TACO_SETUP,
                  prompt=question + ("\n\n" + starter if starter else ""))
    if method:
        fields["entry_class"] = "Solution"
    tests = []
    for i, (args, expected) in enumerate(zip(ins, outs), start=1):
        if not isinstance(args, list):
            args = [args]
        code = (f"_args = json.loads({json.dumps(args)!r})\n"
                f"_expected = json.loads({json.dumps(expected)!r})\n"
                f"_got = {call}(*_args)\n"
                f"assert _taco_matches(_got, _expected), f'{fn}{{tuple(_args)}} returned {{_got!r}}'\n")
        tests.append({"name": f"{i:0{width}d}", "code": draft.add_blob(code.encode())})
    fields["tests"] = tests
    return draft

