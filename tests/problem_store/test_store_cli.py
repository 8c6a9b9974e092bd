"""`pstore` end to end: upload/ls/show/rm/export/fsck/gc and exit codes, on file and s3."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from problem_store.cli import main
from problem_store.transient import TransientStore
from tests.problem_store.store_helpers import corrupt_blob

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "problem_formats"
REPO = Path(__file__).resolve().parents[2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    rc = main(list(argv))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_cli_lifecycle(capsys, store_uri, blob_store, tmp_path):
    rc, out, _ = run(capsys, "upload", str(FIXTURES / "own"), "--store", store_uri)
    assert rc == 0 and "added 4" in out
    rc, out, _ = run(capsys, "--store", store_uri, "upload", str(FIXTURES / "gsm8k.jsonl"), "--split", "heldout",
                     "--id-prefix", "g-")
    assert rc == 0 and "added 2" in out
    rc, out, _ = run(capsys, "--store", store_uri, "ls")
    assert [line.split("\t")[0] for line in out.splitlines()] == [
        "add-func", "g-gsm8k-1", "g-gsm8k-2", "half-plus-third", "near-equal", "sum-two"]
    rc, out, _ = run(capsys, "--store", store_uri, "ls", "--kind", "math", "--split", "heldout", "--json")
    assert [json.loads(line)["id"] for line in out.splitlines()] == ["g-gsm8k-1", "g-gsm8k-2"]
    rc, out, _ = run(capsys, "--store", store_uri, "show", "sum-two")
    assert rc == 0 and json.loads(out)["title"] == "Sum of two numbers"
    rc, out, _ = run(capsys, "--store", store_uri, "export", "near-equal", str(tmp_path / "exp"))
    assert rc == 0 and (tmp_path / "exp" / "near-equal" / "checker.cpp").is_file()
    rc, out, _ = run(capsys, "--store", store_uri, "upload", str(tmp_path / "exp"))
    assert rc == 0 and "unchanged 1" in out
    rc, out, _ = run(capsys, "--store", store_uri, "fsck")
    assert rc == 0 and "0 problem(s)" in out
    # rm, then gc reclaims what only that problem used (and expired transient outputs).
    TransientStore(blob_store).put(b"expired output", ttl_s=1, now=0)
    rc, _, _ = run(capsys, "--store", store_uri, "rm", "near-equal")
    assert rc == 0
    rc, _, err = run(capsys, "--store", store_uri, "show", "near-equal")
    assert rc == 1 and "not found" in err
    rc, out, _ = run(capsys, "--store", store_uri, "gc", "--grace-s", "0")
    stats = json.loads(out)
    assert stats["transient_removed"] == 1 and stats["blobs_removed"] >= 6  # checker src+bin+header, tests


def test_cli_rejections_and_fsck(capsys, store_uri, blob_store, tmp_path):
    bad = tmp_path / "bad.jsonl"
    good = (FIXTURES / "humaneval.jsonl").read_text().splitlines()[0]
    bad.write_text(good + "\n{not json\n")
    rc, out, err = run(capsys, "--store", store_uri, "upload", str(bad))
    assert rc == 1 and f"{bad}:2: invalid JSON" in err and "added 1" in out and "rejected 1" in out
    # Corrupt one stored blob behind the store's back: fsck names it and exits 1.
    link = next(iter(blob_store.iter_links()))
    where = corrupt_blob(blob_store, link)
    rc, out, _ = run(capsys, "--store", store_uri, "fsck")
    assert rc == 1 and link in out and where in out


def test_cli_usage_errors(capsys, tmp_path):
    store = str(tmp_path / "s")
    assert run(capsys, "--store", store, "upload", str(tmp_path / "nope"))[0] == 2
    assert run(capsys, "--store", "ftp://x", "ls")[0] == 2
    (tmp_path / "empty").mkdir()
    rc, _, err = run(capsys, "--store", store, "upload", str(tmp_path / "empty"))
    assert rc == 2 and "problem.yaml" in err
    with pytest.raises(SystemExit) as e:
        main(["upload", str(tmp_path), "--format", "docx"])
    assert e.value.code == 2
    capsys.readouterr()


def test_console_entry_point_runs(tmp_path):
    """The same CLI as a separate process, as `pstore` runs (stdout summary, exit code)."""
    env = {**os.environ, "OUBLIETTE_STORE": str(tmp_path / "store"), "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-m", "problem_store.cli", "upload", str(FIXTURES / "mbpp.jsonl")],
                         capture_output=True, text=True, env=env, timeout=120, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "added 2" in res.stdout
    res = subprocess.run([sys.executable, "-m", "problem_store.cli", "ls"], capture_output=True, text=True,
                         env=env, timeout=120, cwd=tmp_path)
    assert res.stdout.split()[0] == "mbpp-11"
