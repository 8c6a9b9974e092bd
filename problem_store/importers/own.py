"""The project's own directory format (docs/problem-format.md).

A set is a directory of problem directories; a problem directory holds ``problem.yaml``.
Manifest fields pass through untouched except the ones naming files (tests, checker,
statement, prompt), which are read and turned into links here; unknown keys are left
for the manifest model to reject, with the line of problem.yaml they sit on.

Every file is read with ``read_inside``: nothing that resolves outside the problem
directory (or, for checker headers, the set's include/) is ever read.
"""

from __future__ import annotations

from pathlib import Path

from problem_store.importers.base import (
    CheckerSpec,
    Draft,
    ImportFailure,
    Importer,
    inside,
    natural_key,
    read_inside,
    read_text_inside,
)
from problem_store.importers.yaml_lines import MAX_YAML_BYTES, load_yaml_with_lines

PROBLEM_FILE = "problem.yaml"
# Headers shared by every problem of a set (a contest's common checker library): a checker
# header not found beside problem.yaml is looked up in SET/include/. The stored problem keeps
# its own copy, so an exported problem is self-contained again.
SHARED_INCLUDE = "include"


def is_problem_dir(path: Path) -> bool:
    return (path / PROBLEM_FILE).is_file()


def problem_dirs(path: Path) -> list[Path]:
    if is_problem_dir(path):
        return [path]
    return sorted((d for d in path.iterdir() if d.is_dir() and is_problem_dir(d)), key=lambda d: natural_key(d.name))


def import_own(path: Path) -> Importer:
    dirs = problem_dirs(path)
    if not dirs:
        yield ImportFailure(f"no {PROBLEM_FILE} in this directory or its sub-directories", path)
    for d in dirs:
        try:
            yield load_problem_dir(d)
        except ImportFailure as e:
            yield e


def _text_or_file(base: Path, value: object, *, origin: Path, line: int | None, what: str) -> str:
    """A field that is either literal text or the name of a file beside problem.yaml."""
    if not isinstance(value, str):
        raise ImportFailure(f"{what} must be a string", origin, line)
    if "\n" not in value and len(value) < 256 and value.strip():
        candidate = base / value
        if candidate.is_file():
            return read_text_inside(base, candidate, what, origin=origin, line=line)
    return value


def load_problem_dir(d: Path) -> Draft:
    yml = d / PROBLEM_FILE
    data, lines = load_yaml_with_lines(read_text_inside(d, yml, PROBLEM_FILE, max_bytes=MAX_YAML_BYTES), yml)
    if not isinstance(data, dict):
        raise ImportFailure("problem.yaml must be a mapping of fields", yml, 1)
    fields = dict(data)
    fields.setdefault("id", d.name)
    fields.setdefault("kind", "stdio")
    draft = Draft(fields=fields, origin=yml, line_map=lines)
    if (d / "statement.md").is_file():
        fields["statement"] = read_text_inside(d, d / "statement.md", "statement", origin=yml)
    kind = fields["kind"]
    if kind == "stdio":
        _stdio(d, draft)
    elif kind == "function":
        _function(d, draft)
    elif kind != "math":
        raise draft.fail(f"unknown kind {kind!r} (expected stdio, function or math)", ("kind",))
    return draft


def _checker(d: Path, draft: Draft) -> None:
    spec = draft.fields.get("checker")
    if spec is None:
        return
    if isinstance(spec, str):  # shorthand: `checker: tokens`
        spec = {"type": "builtin", "name": spec}
    if not isinstance(spec, dict):
        raise draft.fail("checker must be a mapping or a built-in checker name", ("checker",))
    spec = dict(spec)
    draft.fields["checker"] = spec
    if spec.get("type", "builtin") != "custom":
        return
    line = draft.line_for(("checker",))
    src_name = spec.get("source")
    if not isinstance(src_name, str) or not src_name:
        raise draft.fail("custom checker needs `source:` (a file beside problem.yaml)", ("checker",))
    src_path = inside(d, src_name, origin=draft.origin, line=line, what="checker source")
    source = read_inside(d, src_path, "checker source", origin=draft.origin, line=line)
    headers: dict[str, bytes] = {}
    names = spec.get("headers") or []
    if isinstance(names, dict):  # exported manifests list headers as name -> link; accept names
        names = list(names)
    for name in names:
        headers[name] = _header(d, name, origin=draft.origin, line=line)
    language = spec.get("language", "c" if src_name.endswith(".c") else "cpp")
    draft.checker = CheckerSpec(source=source, path=src_path, language=language, headers=headers)
    spec["language"] = language
    spec["source"] = draft.add_blob(source)
    spec["headers"] = {name: draft.add_blob(b) for name, b in headers.items()}


def _header(d: Path, name: object, *, origin: Path, line: int | None) -> bytes:
    """A checker header from the problem directory, else from the set's shared include/."""
    if not isinstance(name, str) or not name:
        raise ImportFailure(f"checker header names must be non-empty strings, got {name!r}", origin, line)
    shared = d.parent / SHARED_INCLUDE
    for base in (d, shared):
        path = inside(base, name, origin=origin, line=line, what="checker header")
        if path.is_file():
            return read_inside(base, path, "checker header", origin=origin, line=line)
    raise ImportFailure(f"checker header {name!r} not found in {d} or {shared}", origin, line)


def _stdio(d: Path, draft: Draft) -> None:
    _checker(d, draft)
    custom = draft.checker is not None
    tests = draft.fields.get("tests")
    out = []
    if tests is None:
        inputs = sorted((d / "tests").glob("*.in"), key=lambda p: natural_key(p.stem))
        if not inputs:
            raise ImportFailure(f"no tests: {d / 'tests'}/*.in matched nothing", draft.origin, None)
        for inp in inputs:
            ans = inp.with_suffix(".ans")
            t = {"name": inp.stem, "input": draft.add_blob(read_inside(d, inp, "test input"))}
            if ans.is_file() or ans.is_symlink():
                t["answer"] = draft.add_blob(read_inside(d, ans, "test answer"))
            elif not custom:
                raise ImportFailure(f"missing answer file {ans} for test {inp.name}", ans, None)
            out.append(t)
    elif isinstance(tests, list):
        for i, t in enumerate(tests):
            line = draft.line_for(("tests", i))
            if not isinstance(t, dict):
                raise ImportFailure("each test must be a mapping {name, input, answer}", draft.origin, line)
            t = dict(t)
            for key, what in (("input", "test input"), ("answer", "test answer")):
                if t.get(key) is None:
                    continue
                if not isinstance(t[key], str):
                    raise ImportFailure(f"{key} must be a file name", draft.origin, line)
                p = inside(d, t[key], origin=draft.origin, line=line, what=what)
                t[key] = draft.add_blob(read_inside(d, p, what, origin=draft.origin, line=line))
            if "input" not in t:
                raise ImportFailure("test has no `input:` file", draft.origin, line)
            t.setdefault("name", Path(str(t.get("input", i))).stem)
            out.append(t)
    else:
        raise draft.fail("tests must be a list", ("tests",))
    draft.fields["tests"] = out


def _function(d: Path, draft: Draft) -> None:
    f = draft.fields
    for key in ("prompt", "setup_code"):
        if key in f:
            f[key] = _text_or_file(d, f[key], origin=draft.origin, line=draft.line_for((key,)), what=key)
    tests = f.get("tests")
    out = []
    if tests is None:
        files = sorted((d / "tests").glob("*.py"), key=lambda p: natural_key(p.stem))
        if not files:
            raise ImportFailure(f"no tests: {d / 'tests'}/*.py matched nothing", draft.origin, None)
        out = [{"name": p.stem, "code": draft.add_blob(read_inside(d, p, "test file"))} for p in files]
    elif isinstance(tests, list):
        for i, t in enumerate(tests):
            line = draft.line_for(("tests", i))
            if not isinstance(t, dict) or not isinstance(t.get("file"), str):
                raise ImportFailure("each test must be a mapping {name, file}", draft.origin, line)
            p = inside(d, t["file"], origin=draft.origin, line=line, what="test file")
            code = read_inside(d, p, "test file", origin=draft.origin, line=line)
            out.append({"name": t.get("name", p.stem), "code": draft.add_blob(code)})
    else:
        raise draft.fail("tests must be a list", ("tests",))
    f["tests"] = out
