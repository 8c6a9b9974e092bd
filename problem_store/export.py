"""Write a stored problem back as the project's own directory format.

``upload`` of the exported directory gives back the same manifest, byte for byte: tests
are listed explicitly (so names survive), text fields are written verbatim and the
checker is recompiled from its exported source and headers (deterministically: same
compiler, same flags, fixed file names).
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from problem_store.manifest import CustomChecker, FunctionProblem, MathProblem, StdioProblem
from problem_store.problems import AnyProblem, ProblemStore

_SAFE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,100}$")


def _file_stem(name: str, index: int) -> str:
    return name if _SAFE.match(name) else f"t{index:04d}"


def _common(p: AnyProblem) -> dict:
    out: dict = {"id": p.id, "kind": p.kind}
    if p.title:
        out["title"] = p.title
    for key in ("difficulty", "split", "source"):
        if getattr(p, key) is not None:
            out[key] = getattr(p, key)
    if p.tags:
        out["tags"] = list(p.tags)
    if p.feedback != "samples":
        out["feedback"] = p.feedback
    return out


def export_problem(store: ProblemStore, problem_id: str, dest: Path) -> Path:
    """Write problem ``problem_id`` to ``dest/<id>/``; return that directory."""
    p = store.get(problem_id)
    d = Path(dest) / p.id
    d.mkdir(parents=True, exist_ok=True)
    meta = _common(p)
    if p.statement:
        (d / "statement.md").write_text(p.statement)
    get = store.blobs.get
    if isinstance(p, StdioProblem):
        meta["limits"] = p.limits.model_dump()
        tests = []
        (d / "tests").mkdir(exist_ok=True)
        for i, t in enumerate(p.tests):
            stem = _file_stem(t.name, i)
            (d / "tests" / f"{stem}.in").write_bytes(get(t.input))
            entry: dict = {"name": t.name, "input": f"tests/{stem}.in"}
            if t.answer:
                (d / "tests" / f"{stem}.ans").write_bytes(get(t.answer))
                entry["answer"] = f"tests/{stem}.ans"
            for key in ("group", "points"):
                if getattr(t, key) is not None:
                    entry[key] = getattr(t, key)
            if t.sample:
                entry["sample"] = True
            tests.append(entry)
        if isinstance(p.checker, CustomChecker):
            src = "checker.cpp" if p.checker.language == "cpp" else "checker.c"
            (d / src).write_bytes(get(p.checker.source))
            for name, link in p.checker.headers.items():
                (d / name).parent.mkdir(parents=True, exist_ok=True)
                (d / name).write_bytes(get(link))
            meta["checker"] = {"type": "custom", "language": p.checker.language, "source": src,
                               "headers": list(p.checker.headers)}
        else:
            meta["checker"] = p.checker.model_dump()
        meta["tests"] = tests
    elif isinstance(p, FunctionProblem):
        meta.update(entry_point=p.entry_point, harness=p.harness, language=p.language,
                    limits=p.limits.model_dump())
        if p.entry_class:
            meta["entry_class"] = p.entry_class
        if p.arguments_in_place:
            meta["arguments_in_place"] = True
        if p.prompt:
            (d / "prompt.py").write_text(p.prompt)
            meta["prompt"] = "prompt.py"
        if p.setup_code:
            (d / "setup.py").write_text(p.setup_code)
            meta["setup_code"] = "setup.py"
        (d / "tests").mkdir(exist_ok=True)
        tests = []
        for i, t in enumerate(p.tests):
            stem = _file_stem(t.name, i)
            (d / "tests" / f"{stem}.py").write_bytes(get(t.code))
            tests.append({"name": t.name, "file": f"tests/{stem}.py"})
        meta["tests"] = tests
    elif isinstance(p, MathProblem):
        meta.update(question=p.question, answer=p.answer)
        if p.answer_form != "value":
            meta["answer_form"] = p.answer_form
        if p.solution is not None:
            meta["solution"] = p.solution
    (d / "problem.yaml").write_text(yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, width=100))
    return d
