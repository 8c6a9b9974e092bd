"""Polygon-style packages: ``problem.xml`` + ``tests/NN`` inputs + ``tests/NN.a`` answers.

We read what a full package ships and run nothing, and nothing outside the package
directory (``read_inside``: symlinks may point only inside it): generated tests and answers must be
present as files (Polygon's "full" package, or after running its ``doall.sh``). A
standard checker (``std::wcmp.cpp``...) maps to the built-in of the same name where that
built-in has exactly testlib's verdicts and the package's testlib.h is a version it was
checked against; any other checker, ``std::`` or not, is compiled from the source the package
ships, with the package's own headers (its ``testlib.h``), never a copy of ours.
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass, field
from pathlib import Path

from problem_store.importers.base import (CheckerSpec, Draft, ImportFailure, Importer, inside, natural_key,
                                          read_inside, read_text_inside)
from problem_store.importers.limits import memory_mb_from_bytes

PROBLEM_FILE = "problem.xml"

# testlib's stock checkers that a built-in reproduces verdict for verdict
# (verifier/checkers/stock.py); every other std:: name is compiled from the package's source.
STD_BUILTINS = frozenset({"wcmp", "ncmp", "icmp", "hcmp", "lcmp", "fcmp", "yesno", "nyesno",
                          "rcmp4", "rcmp6", "rcmp9", "dcmp"})
# testlib.h versions whose readers the built-ins were checked against (differential tests);
# a package with another testlib.h gets its shipped checker compiled, whatever the name.
STAND_IN_TESTLIB_VERSIONS = frozenset({"0.9.44"})
# Every checker testlib ships (its checkers/ folder): the names a Polygon std:: can take.
STD_NAMES = STD_BUILTINS | {"acmp", "caseicmp", "casencmp", "casewcmp", "pointscmp", "pointsinfo",
                            "rcmp", "rncmp", "uncmp"}
_VERSION_RE = re.compile(rb'^\s*#\s*define\s+VERSION\s+"([^"]*)"', re.MULTILINE)


@dataclass
class Node:
    """A minimal XML element that remembers its line (ElementTree forgets it)."""

    tag: str
    attrib: dict[str, str]
    line: int
    children: list["Node"] = field(default_factory=list)
    text: str = ""

    def find(self, tag: str) -> "Node | None":
        return next((c for c in self.children if c.tag == tag), None)

    def findall(self, tag: str) -> list["Node"]:
        return [c for c in self.children if c.tag == tag]


def parse_xml(path: Path) -> Node:
    parser = xml.parsers.expat.ParserCreate()
    stack: list[Node] = []
    root: list[Node] = []

    def start(tag: str, attrib: dict[str, str]) -> None:
        node = Node(tag, attrib, parser.CurrentLineNumber)
        (stack[-1].children if stack else root).append(node)
        stack.append(node)

    def end(_tag: str) -> None:
        stack.pop()

    def chars(text: str) -> None:
        if stack:
            stack[-1].text += text

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars
    try:
        parser.Parse(read_inside(path.parent, path, PROBLEM_FILE), True)
    except xml.parsers.expat.ExpatError as e:
        raise ImportFailure(f"invalid XML: {xml.parsers.expat.ErrorString(e.code)}", path, e.lineno) from None
    return root[0]


def is_package(path: Path) -> bool:
    return (path / PROBLEM_FILE).is_file()


def import_polygon(path: Path) -> Importer:
    dirs = [path] if is_package(path) else sorted(
        (d for d in path.iterdir() if d.is_dir() and is_package(d)), key=lambda d: natural_key(d.name))
    if not dirs:
        yield ImportFailure(f"no {PROBLEM_FILE} in this directory or its sub-directories", path)
    for d in dirs:
        try:
            yield load_package(d)
        except ImportFailure as e:
            yield e


def _int(node: Node | None, what: str, xml_path: Path) -> int | None:
    if node is None:
        return None
    try:
        return int(node.text.strip())
    except ValueError:
        raise ImportFailure(f"<{what}> must be an integer, got {node.text.strip()!r}", xml_path, node.line) from None


def load_package(d: Path) -> Draft:
    xml_path = d / PROBLEM_FILE
    root = parse_xml(xml_path)
    if root.tag != "problem":
        raise ImportFailure(f"root element is <{root.tag}>, expected <problem>", xml_path, root.line)
    fields: dict = {"id": root.attrib.get("short-name") or d.name, "kind": "stdio", "source": "polygon"}
    draft = Draft(fields=fields, origin=xml_path, line_map={(): root.line})
    names = root.find("names")
    if names is not None and names.children:
        english = [n for n in names.findall("name") if n.attrib.get("language") == "english"]
        fields["title"] = (english or names.findall("name"))[0].attrib.get("value", "")
    statement = _statement(d)
    if statement:
        fields["statement"] = statement

    judging = root.find("judging")
    if judging is None:
        raise ImportFailure("no <judging> element", xml_path, root.line)
    testsets = judging.findall("testset")
    testset = next((t for t in testsets if t.attrib.get("name") == "tests"), testsets[0] if testsets else None)
    if testset is None:
        raise ImportFailure("no <testset> in <judging>", xml_path, judging.line)

    limits: dict = {}
    tl = testset.find("time-limit")
    ms = _int(tl, "time-limit", xml_path)
    if ms is not None:
        limits["time_limit_s"] = ms / 1000
        draft.line_map[("limits", "time_limit_s")] = tl.line
    ml = testset.find("memory-limit")
    mem = _int(ml, "memory-limit", xml_path)
    if mem is not None:
        limits["memory_mb"] = memory_mb_from_bytes(mem)
        draft.line_map[("limits", "memory_mb")] = ml.line
    if limits:
        fields["limits"] = limits

    in_pat = (testset.find("input-path-pattern") or Node("", {}, 0, text="tests/%02d")).text.strip()
    ans_pat = (testset.find("answer-path-pattern") or Node("", {}, 0, text="tests/%02d.a")).text.strip()
    tests_node = testset.find("tests")
    test_nodes = tests_node.findall("test") if tests_node is not None else []
    if not test_nodes:
        raise ImportFailure("the testset lists no <test> elements", xml_path, testset.line)
    draft.line_map[("tests",)] = tests_node.line
    fields["checker"] = _checker(d, root, draft)
    custom = draft.checker is not None
    tests = []
    for i, node in enumerate(test_nodes, start=1):
        draft.line_map[("tests", i - 1)] = node.line
        inp = d / (in_pat % i)
        ans = d / (ans_pat % i)
        if not inp.is_file():
            how = " (a generated test: run the package's generators first, e.g. doall.sh)" \
                if node.attrib.get("method") == "generated" else ""
            raise ImportFailure(f"test {i}: input file {inp} missing{how}", xml_path, node.line)
        t: dict = {"name": f"{i:02d}", "input": draft.add_blob(read_inside(d, inp, f"test {i} input",
                                                                          origin=xml_path, line=node.line))}
        if ans.is_file():
            t["answer"] = draft.add_blob(read_inside(d, ans, f"test {i} answer", origin=xml_path, line=node.line))
        elif not custom:
            raise ImportFailure(f"test {i}: answer file {ans} missing (answers are not generated at upload)",
                                xml_path, node.line)
        if node.attrib.get("sample") == "true":
            t["sample"] = True
        if "group" in node.attrib:
            t["group"] = node.attrib["group"]
        if "points" in node.attrib:
            try:
                t["points"] = float(node.attrib["points"])
            except ValueError:
                raise ImportFailure(f"test {i}: points={node.attrib['points']!r} is not a number",
                                    xml_path, node.line) from None
        tests.append(t)
    fields["tests"] = tests
    return draft


def _statement(d: Path) -> str:
    sec = d / "statement-sections" / "english"
    parts = []
    for name in ("legend.tex", "input.tex", "output.tex", "notes.tex"):
        if (sec / name).is_file():
            parts.append(read_text_inside(d, sec / name, "statement section"))
    return "\n\n".join(parts)


def _checker(d: Path, root: Node, draft: Draft) -> dict:
    xml_path = draft.origin
    assets = root.find("assets")
    node = assets.find("checker") if assets is not None else None
    if node is not None:
        draft.line_map[("checker",)] = node.line
    name = node.attrib.get("name", "") if node is not None else ""
    std = name[len("std::"):].removesuffix(".cpp") if name.startswith("std::") else None
    src_rel = None
    if node is not None:
        src = node.find("source")
        if src is not None and src.attrib.get("path"):
            src_rel = src.attrib["path"]
    if src_rel is None and std is None:
        # A std:: checker's source is only ever the one its <source> names: a stray
        # files/check.cpp may be another checker.
        src_rel = next((p for p in ("files/check.cpp", "check.cpp") if (d / p).is_file()), None)
    line = node.line if node is not None else None
    src_path = inside(d, src_rel, origin=xml_path, line=line, what="checker source") if src_rel else None
    if std in STD_BUILTINS and (src_path is None or _testlib_version(d, src_path) in STAND_IN_TESTLIB_VERSIONS):
        return {"type": "builtin", "name": std}
    if src_path is None:
        if std is not None:
            what = "unknown standard checker" if std not in STD_NAMES else "standard checker"
            raise ImportFailure(f"{what} {name!r} has no built-in with testlib's exact verdicts "
                                f"(those are: {', '.join(sorted(STD_BUILTINS))}) and <checker> names no "
                                f"<source path=...>: add the checker's source to the package", xml_path, line)
        if node is not None:
            raise ImportFailure("<checker> names neither a std:: checker nor a <source path=...>",
                                xml_path, line)
        return {"type": "builtin", "name": "tokens"}
    if not src_path.is_file():
        raise ImportFailure(f"checker source {src_path} not found", xml_path, line)
    # The package's own headers: every .h beside the checker and in files/ (testlib.h first of all).
    headers: dict[str, bytes] = {}
    for folder in dict.fromkeys([src_path.parent, (d / "files").resolve(), d.resolve()]):
        if folder.is_dir():
            for h in sorted(folder.glob("*.h")):
                if h.name not in headers:
                    headers[h.name] = read_inside(d, h, "checker header", origin=xml_path, line=line)
    source = read_inside(d, src_path, "checker source", origin=xml_path, line=line)
    language = "c" if src_path.suffix == ".c" else "cpp"
    draft.checker = CheckerSpec(source=source, path=src_path, language=language, headers=headers)
    return {
        "type": "custom",
        "language": language,
        "source": draft.add_blob(source),
        "headers": {n: draft.add_blob(b) for n, b in sorted(headers.items())},
    }


def _testlib_version(d: Path, src_path: Path) -> str | None:
    """The VERSION a package's testlib.h declares (beside the checker, else in files/)."""
    for folder in (src_path.parent, d / "files", d):
        h = folder / "testlib.h"
        if h.is_file():
            m = _VERSION_RE.search(read_inside(d, h, "checker header"))
            return m.group(1).decode("ascii", "replace") if m else None
    return None
