"""problem.yaml is parsed with limits: an alias bomb, recursive aliases or a huge document
are refused with a clear error, within a small memory bound."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from problem_store.blobs.file import FileBlobStore
from problem_store.importers.yaml_lines import MAX_ALIASES, MAX_YAML_BYTES
from problem_store.problems import ProblemStore
from problem_store.upload import upload

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "problem_formats"

# "Billion laughs": nine levels of nine aliases (72 aliases, under the alias cap) expand to 9^9 nodes.
BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{c}: &{c} [{','.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")) + "tags: *i\n"


@pytest.fixture
def problems(tmp_path):
    return ProblemStore(FileBlobStore(tmp_path / "store", fsync=False))


def _problem(tmp_path: Path, yaml_text: str) -> Path:
    d = tmp_path / "set" / "p"
    (d / "tests").mkdir(parents=True)
    (d / "tests" / "1.in").write_text("1\n")
    (d / "tests" / "1.ans").write_text("1\n")
    (d / "problem.yaml").write_text(yaml_text)
    return d


def _rejected(problems, d: Path) -> str:
    report = upload(d, problems)
    assert not report.ok and report.added == [] and list(problems.blobs.iter_links()) == []
    return str(report.rejected[0])


def test_alias_bomb_is_refused_within_a_small_memory_bound(tmp_path):
    assert len(BOMB) < 1024
    d = _problem(tmp_path, BOMB)
    # Own process: the peak RSS is this upload's alone. An address-space cap turns a
    # regression into a quick MemoryError instead of a machine out of memory.
    script = f"""
import json, resource, sys
sys.path.insert(0, {str(REPO)!r})
from problem_store.blobs.file import FileBlobStore
from problem_store.problems import ProblemStore
from problem_store.upload import upload
store = ProblemStore(FileBlobStore({str(tmp_path / "store")!r}, fsync=False))
upload({str(FIXTURES / "own" / "sum-two")!r}, store)  # warm: imports and first-use allocations
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
report = upload({str(d)!r}, store)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({{"growth_kb": after - before, "rejected": [str(r) for r in report.rejected]}}))
"""
    res = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    result = json.loads(res.stdout)
    assert len(result["rejected"]) == 1 and "expands to more than" in result["rejected"][0]
    assert str(d / "problem.yaml") in result["rejected"][0]
    assert result["growth_kb"] < 20 * 1024, result  # main: 3.1 GB and a MemoryError


def test_too_many_aliases_are_refused(problems, tmp_path):
    text = "x: &x 1\ntags: [" + ", ".join(["*x"] * (MAX_ALIASES + 1)) + "]\n"
    msg = _rejected(problems, _problem(tmp_path, text))
    assert f"more than {MAX_ALIASES} YAML aliases" in msg and "problem.yaml:2" in msg


def test_recursive_alias_is_refused(problems, tmp_path):
    msg = _rejected(problems, _problem(tmp_path, "tags: &t [a, *t]\n"))
    assert "recursive" in msg


def test_oversized_document_is_refused(problems, tmp_path):
    msg = _rejected(problems, _problem(tmp_path, "title: x\n" + "# pad\n" * (MAX_YAML_BYTES // 6 + 1)))
    assert f"over the limit of {MAX_YAML_BYTES} bytes" in msg


def test_deep_nesting_is_refused(problems, tmp_path):
    msg = _rejected(problems, _problem(tmp_path, "tags: " + "[" * 50_000 + "]" * 50_000 + "\n"))
    assert "nested too deeply" in msg or "expands to more than" in msg


def test_modest_anchors_still_work(problems, tmp_path):
    text = ("tests:\n  - {name: one, input: &in tests/1.in, answer: &ans tests/1.ans}\n"
            "  - {name: two, input: *in, answer: *ans}\n")
    report = upload(_problem(tmp_path, text), problems)
    assert report.added == ["p"], report.rejected
    assert [t.name for t in problems.get("p").tests] == ["one", "two"]


def _polygon_with_doctype(tmp_path: Path, doctype: str, title: str) -> Path:
    import shutil

    d = tmp_path / "pkg"
    shutil.copytree(FIXTURES / "polygon" / "aplusb-poly", d)
    xml = d / "problem.xml"
    text = xml.read_text().replace('standalone="no"?>', 'standalone="no"?>\n' + doctype, 1)
    xml.write_text(text.replace('value="A plus B (Polygon)"', f'value="{title}"'))
    return d


def test_polygon_xml_entity_bomb_is_refused(problems, tmp_path):
    ents = '<!ENTITY a "xxxxxxxxxx">' + "".join(
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi"))
    d = _polygon_with_doctype(tmp_path, f"<!DOCTYPE problem [{ents}]>", "&i;")
    msg = _rejected(problems, d)
    assert str(d / "problem.xml") in msg and "invalid XML" in msg


def test_polygon_xml_external_entity_is_not_fetched(problems, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-77")
    d = _polygon_with_doctype(tmp_path, f'<!DOCTYPE problem [<!ENTITY x SYSTEM "{secret.as_uri()}">]>', "t&x;")
    report = upload(d, problems)
    assert "external entity" in str(report.rejected[0]) and report.added == []
    stored = b"".join(problems.blobs.get(link) for link in problems.blobs.iter_links())
    stored += b"".join(problems.blobs.get_object(k) or b"" for k in problems.blobs.list_objects(""))
    assert b"TOP-SECRET-77" not in stored
