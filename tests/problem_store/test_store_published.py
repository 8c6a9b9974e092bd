"""Importers read the datasets as published: files shaped exactly like the real ones.

We cannot download the datasets here, so each test writes records with the real field
names and value shapes (HumanEval.jsonl.gz, MBPP, CodeContests, TACO), then checks what
the store holds against an independent oracle where one exists: the stored test code is
run with the dataset's own reference solution in a plain Python subprocess.
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from problem_store.cli import main
from problem_store.importers import detect_format, iter_drafts
from problem_store.importers.base import ImportFailure
from problem_store.importers.code_jsonl import taco_tags
from problem_store.importers.limits import memory_mb_from_bytes, memory_mb_from_text, time_limit_from_text
from problem_store.upload import upload
from tests.problem_store.store_helpers import snapshot

HUMANEVAL = [
    {"task_id": "HumanEval/0", "prompt": "from typing import List\n\n\ndef has_close_elements(numbers: List[float], "
     "threshold: float) -> bool:\n    \"\"\" Check if in given list of numbers, are any two numbers closer to each "
     "other than\n    given threshold.\n    \"\"\"\n",
     "canonical_solution": "    for idx, elem in enumerate(numbers):\n        for idx2, elem2 in enumerate(numbers):\n"
     "            if idx != idx2:\n                distance = abs(elem - elem2)\n                if distance < "
     "threshold:\n                    return True\n\n    return False\n",
     "test": "\n\nMETADATA = {\n    'author': 'jt',\n    'dataset': 'test'\n}\n\n\ndef check(candidate):\n"
     "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.3) == True\n"
     "    assert candidate([1.0, 2.0, 3.9, 4.0, 5.0, 2.2], 0.05) == False\n\n",
     "entry_point": "has_close_elements"},
    {"task_id": "HumanEval/2", "prompt": "\n\ndef truncate_number(number: float) -> float:\n    \"\"\" Return the "
     "decimal part of the number.\n    \"\"\"\n",
     "canonical_solution": "    return number % 1.0\n",
     "test": "\n\nMETADATA = {}\n\n\ndef check(candidate):\n    assert candidate(3.5) == 0.5\n"
     "    assert abs(candidate(1.33) - 0.33) < 1e-6\n",
     "entry_point": "truncate_number"},
]

MBPP = [
    {"task_id": 11, "text": "Write a python function to remove first and last occurrence of a given character "
     "from the string.",
     "code": "def remove_Occ(s,ch): \r\n    for i in range(len(s)): \r\n        if (s[i] == ch): \r\n"
     "            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    for i in range(len(s) - 1,-1,-1):  \r\n"
     "        if (s[i] == ch): \r\n            s = s[0 : i] + s[i + 1:] \r\n            break\r\n    return s ",
     "test_list": ["assert remove_Occ(\"hello\",\"l\") == \"heo\"", "assert remove_Occ(\"abcda\",\"a\") == \"bcd\"",
                   "assert remove_Occ(\"PHP\",\"P\") == \"H\""],
     "test_setup_code": "", "challenge_test_list": ["assert remove_Occ(\"hellolloll\",\"l\") == \"helollol\"",
                                                    "assert remove_Occ(\"\",\"l\") == \"\""]},
    {"task_id": 12, "text": "Write a function to sort a given matrix in ascending order according to the sum "
     "of its rows.",
     "code": "def sort_matrix(M):\r\n    result = sorted(M, key=sum)\r\n    return result",
     "test_list": ["assert sort_matrix([[1, 2, 3], [2, 4, 5], [1, 1, 1]])==[[1, 1, 1], [1, 2, 3], [2, 4, 5]]"],
     "test_setup_code": "import math", "challenge_test_list": []},
]

CODECONTESTS = {
    "name": "1548_E. Gregor and the Two Painters", "description": "Print a+b.",
    "public_tests": {"input": ["1 2\n"], "output": ["3\n"]},
    "private_tests": {"input": ["5 5\n", "0 0\n"], "output": ["10\n", "0\n"]},
    "generated_tests": {"input": ["7 8\n"], "output": ["15\n"]},
    "source": 2, "difficulty": 11,
    "solutions": {"language": [3], "solution": ["print(sum(map(int,input().split())))"]},
    "incorrect_solutions": {"language": [], "solution": []},
    "cf_contest_id": 1548, "cf_index": "E", "cf_points": 2250.0, "cf_rating": 3400,
    "cf_tags": ["data structures", "divide and conquer"], "is_description_translated": False,
    "untranslated_description": "", "time_limit": {"seconds": 2, "nanos": 500000000},
    "memory_limit_bytes": 256000000, "input_file": "", "output_file": "",
}

TACO = [
    {"question": "Given n, print n squared.", "solutions": "[\"print(int(input())**2)\"]", "starter_code": "",
     "input_output": json.dumps({"inputs": ["3\n", "10\n"], "outputs": ["9\n", "100\n"]}),
     "difficulty": "EASY", "raw_tags": "['Math']", "name": None, "source": "codeforces",
     "tags": "['Dynamic programming', 'Sorting']", "skill_types": "['Sorting']", "url": "https://example.invalid/1",
     "Expected Auxiliary Space": None, "time_limit": "2 seconds", "date": "2021-05-02",
     "picture_num": "0", "memory_limit": "256 megabytes", "Expected Time Complexity": None},
    {"question": "Return twice x.", "solutions": "[]", "starter_code": "def double(x):\n\t",
     "input_output": json.dumps({"fn_name": "double", "inputs": [[2], [5]], "outputs": [[4], [10]]}),
     "difficulty": "EASY", "raw_tags": "[]", "name": None, "source": "codewars", "tags": "[]",
     "skill_types": "[]", "url": "https://example.invalid/2", "Expected Auxiliary Space": None,
     "time_limit": None, "date": None, "picture_num": None, "memory_limit": None, "Expected Time Complexity": None},
]


def _jsonl(records: list[dict]) -> bytes:
    return "".join(json.dumps(r) + "\n" for r in records).encode()


def _run_py(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)


@pytest.fixture
def humaneval_gz(tmp_path) -> Path:
    path = tmp_path / "HumanEval.jsonl.gz"
    path.write_bytes(gzip.compress(_jsonl(HUMANEVAL)))
    return path


def test_humaneval_jsonl_gz_uploads_as_published(capsys, humaneval_gz, tmp_path, blob_store, problems):
    assert detect_format(humaneval_gz) == "humaneval"
    for fmt in ("auto", "humaneval"):
        rc = main(["--store", str(tmp_path / fmt), "upload", str(humaneval_gz), "--format", fmt])
        out, err = capsys.readouterr()
        assert rc == 0, err
        assert "added 2" in out and "rejected 0" in out and "invalid JSON" not in err
    report = upload(humaneval_gz, problems)
    assert report.added == ["HumanEval-0", "HumanEval-2"]
    # Oracle: the stored test, run with the dataset's canonical solution, passes; a wrong body fails.
    for rec in HUMANEVAL:
        p = problems.get(rec["task_id"].replace("/", "-"))
        assert p.entry_point == rec["entry_point"] and p.prompt == rec["prompt"] and p.harness == "humaneval"
        test = problems.blobs.get(p.tests[0].code).decode()
        assert test == rec["test"]
        good = rec["prompt"] + rec["canonical_solution"] + test + f"\ncheck({p.entry_point})\n"
        assert _run_py(good).returncode == 0
        bad = rec["prompt"] + "    return None\n" + test + f"\ncheck({p.entry_point})\n"
        assert _run_py(bad).returncode != 0


def test_gz_recognised_by_content_and_damaged_gz_named(tmp_path, problems):
    renamed = tmp_path / "humaneval.jsonl"  # gzip bytes without the .gz name
    renamed.write_bytes(gzip.compress(_jsonl(HUMANEVAL)))
    assert upload(renamed, problems).added == ["HumanEval-0", "HumanEval-2"]
    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(gzip.compress(_jsonl(HUMANEVAL * 20))[:300])
    before = snapshot(problems.blobs)
    report = upload(truncated, problems, "humaneval")
    assert not report.ok and str(truncated) in str(report.rejected[-1])
    assert report.added == [] and snapshot(problems.blobs) == before


def test_mbpp_as_published_and_as_json_array(tmp_path, problems):
    for name, data in (("mbpp.jsonl", _jsonl(MBPP)),
                       ("mbpp.json.gz", gzip.compress(json.dumps(MBPP, indent=2).encode()))):
        f = tmp_path / name
        f.write_bytes(data)
        assert detect_format(f) == "mbpp"
    report = upload(tmp_path / "mbpp.json.gz", problems)
    assert report.added == ["mbpp-11", "mbpp-12"]
    p = problems.get("mbpp-11")
    assert p.entry_point == "remove_Occ" and [t.name for t in p.tests] == [
        "01", "02", "03", "challenge-01", "challenge-02"]
    assert problems.get("mbpp-12").setup_code == "import math"
    # Oracle: every stored assert holds for the dataset's reference code.
    for rec in MBPP:
        p = problems.get(f"mbpp-{rec['task_id']}")
        for t in p.tests:
            code = p.setup_code + "\n" + rec["code"] + "\n" + problems.blobs.get(t.code).decode()
            assert _run_py(code).returncode == 0, t.name
    # Same records from JSON Lines: the same manifests.
    assert upload(tmp_path / "mbpp.jsonl", problems).unchanged == ["mbpp-11", "mbpp-12"]


def test_json_array_errors_name_the_line(tmp_path):
    f = tmp_path / "set.json"
    f.write_text('[\n  {"task_id": 1, "text": "t", "code": "def f(): pass", "test_list": ["assert f() is None"]},\n'
                 '  {"task_id": 2, "text": "t",\n   "code": oops}\n]\n')
    items = list(iter_drafts(f, "mbpp"))
    assert [type(i).__name__ for i in items] == ["Draft", "ImportFailure"]
    assert items[0].line == 2 and items[1].where == f"{f}:4" and "invalid JSON" in items[1].message


def test_codecontests_as_published(tmp_path, problems):
    f = tmp_path / "code_contests_train.jsonl.gz"
    f.write_bytes(gzip.compress(_jsonl([CODECONTESTS])))
    assert upload(f, problems).added == ["1548_E-Gregor-and-the-Two-Painters"]
    p = problems.get("1548_E-Gregor-and-the-Two-Painters")
    assert p.limits.memory_mb == 256 and p.limits.time_limit_s == 2.5
    assert [t.name for t in p.tests] == ["public-01", "private-01", "private-02", "generated-01"]
    assert [t.sample for t in p.tests] == [True, False, False, False]
    assert list(p.tags) == ["data structures", "divide and conquer"] and p.difficulty == "cf-3400"
    # Oracle: the dataset's own solution reproduces every stored answer.
    for t in p.tests:
        res = subprocess.run([sys.executable, "-c", CODECONTESTS["solutions"]["solution"][0]], timeout=60,
                             input=problems.blobs.get(t.input), capture_output=True)
        assert res.stdout == problems.blobs.get(t.answer)


def test_taco_as_published(tmp_path, problems):
    f = tmp_path / "taco_train.jsonl"
    f.write_bytes(_jsonl(TACO))
    assert detect_format(f) == "taco"
    report = upload(f, problems)
    assert report.ok, report.rejected
    stdio, fn = (problems.get(pid) for pid in report.added)
    assert list(stdio.tags) == ["Dynamic programming", "Sorting"]
    assert stdio.limits.time_limit_s == 2.0 and stdio.limits.memory_mb == 256
    assert fn.kind == "function" and fn.entry_point == "double" and "def double(x)" in fn.prompt
    assert list(fn.tags) == [] and fn.limits.time_limit_s == 5.0  # no limits given: the defaults


@pytest.mark.parametrize("raw,tags", [
    ("['Dynamic programming', 'Sorting']", ["Dynamic programming", "Sorting"]),  # Python repr, as TACO ships
    ('["Greedy", "Math"]', ["Greedy", "Math"]),
    ("Greedy, Math", ["Greedy", "Math"]),
    ("Implementation", ["Implementation"]),
    (["Greedy"], ["Greedy"]),
    ("[]", []), ("", []), (None, []),
    ("['a', 'a']", ["a"]),
    ("[__import__('os').system('echo pwned')]", ["[__import__('os').system('echo pwned')]"]),  # never evaluated
])
def test_taco_tags(raw, tags):
    assert taco_tags(raw) == tags


@pytest.mark.parametrize("n_bytes,mb", [
    (256_000_000, 256),   # CodeContests: the setter's "256 megabytes" in decimal bytes
    (268_435_456, 256),   # Polygon / Codeforces: 256 MiB
    (64_000_000, 64), (512 * 2**20, 512), (1_000_000_000, 1000),
    (300_000_001, 287),   # neither: round up to whole MiB, never below the bytes stated
    (1, 1),
])
def test_memory_limit_bytes_conversion(n_bytes, mb):
    assert memory_mb_from_bytes(n_bytes) == mb
    assert mb * 2**20 >= n_bytes  # the sandbox never gets less than the limit stated


@pytest.mark.parametrize("text,mb", [("256 megabytes", 256), ("256.0 megabytes", 256), ("64 MB", 64),
                                     ("262144 kilobytes", 256), ("1 gigabyte", 1024), ("None", None), (None, None)])
def test_memory_limit_text_conversion(text, mb):
    assert memory_mb_from_text(text) == mb


@pytest.mark.parametrize("text,s", [("2 seconds", 2.0), ("1.5 seconds", 1.5), ("1 second", 1.0),
                                    ("1000 ms", 1.0), ("None", None), ("0 seconds", None)])
def test_time_limit_text_conversion(text, s):
    assert time_limit_from_text(text) == s


def test_summary_names_replaced_ids_and_no_replace_refuses(capsys, tmp_path, store_uri, blob_store):
    from problem_store.problems import ProblemStore

    store = ProblemStore(blob_store)
    s = tmp_path / "set"
    for name in ("alpha", "beta"):
        d = s / name / "tests"
        d.mkdir(parents=True)
        (s / name / "problem.yaml").write_text("kind: stdio\n")
        for i in range(1, 13):
            (d / f"{i:02d}.in").write_text(f"{i}\n")
            (d / f"{i:02d}.ans").write_text(f"{i}\n")
    assert main(["--store", store_uri, "upload", str(s)]) == 0
    capsys.readouterr()
    for i in range(3, 13):  # alpha shrinks to 2 tests
        (s / "alpha" / "tests" / f"{i:02d}.in").unlink()
        (s / "alpha" / "tests" / f"{i:02d}.ans").unlink()
    before = snapshot(blob_store)
    rc = main(["--store", store_uri, "upload", str(s), "--no-replace"])
    out, err = capsys.readouterr()
    assert rc == 1 and "[alpha]" in err and "--no-replace" in err
    assert "unchanged 1" in out  # beta: identical content is not a replacement
    assert snapshot(blob_store) == before and len(store.get("alpha").tests) == 12
    rc = main(["--store", store_uri, "upload", str(s)])
    out, _ = capsys.readouterr()
    assert rc == 0 and "updated 1" in out
    assert "replaced: alpha (content changed: 12 tests -> 2 tests)" in out.splitlines()
    assert "beta" not in out and len(store.get("alpha").tests) == 2
