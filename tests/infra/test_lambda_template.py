"""The Lambda deployment template passes cfn-lint and says what the backend relies on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
TEMPLATE = REPO / "infra" / "lambda" / "template.yaml"


def cfn_lint() -> str:
    exe = Path(sys.executable).parent / "cfn-lint"
    found = str(exe) if exe.exists() else shutil.which("cfn-lint")
    if not found:
        pytest.fail("cfn-lint is not installed (it is in the dev extra)")
    return found


def lint(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([cfn_lint(), str(path)], capture_output=True, text=True, timeout=120)


class _CfnLoader(yaml.SafeLoader):
    """Reads !Ref/!Sub/!If... as plain values (enough to inspect the template's shape)."""


for _tag in ("Ref", "Sub", "If", "Not", "Equals", "Join", "GetAtt"):
    _CfnLoader.add_constructor(f"!{_tag}", lambda loader, node, t=_tag: {
        t: loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else loader.construct_scalar(node)})


def test_template_passes_cfn_lint():
    proc = lint(TEMPLATE)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_lint_really_catches_a_broken_template(tmp_path):
    broken = TEMPLATE.read_text().replace("PackageType: Image", "PackageType: Zip").replace(
        "Timeout: !Ref TimeoutSeconds", "Timeout: 9000")
    bad = tmp_path / "broken.yaml"
    bad.write_text(broken)
    proc = lint(bad)
    assert proc.returncode != 0 and "Timeout" in proc.stdout, proc.stdout


def test_function_is_an_image_with_the_store_environment():
    t = yaml.load(TEMPLATE.read_text(), Loader=_CfnLoader)
    fn = t["Resources"]["RunnerFunction"]["Properties"]
    assert fn["PackageType"] == "Image" and fn["Code"] == {"ImageUri": {"Ref": "ImageUri"}}
    assert fn["Timeout"] == {"Ref": "TimeoutSeconds"} and fn["MemorySize"] == {"Ref": "MemorySize"}
    # The handler reads these (sandboxes/lambda_handler/handler.py).
    assert set(fn["Environment"]["Variables"]) == {
        "OUBLIETTE_STORE_BUCKET", "OUBLIETTE_STORE_PREFIX", "OUBLIETTE_TRANSIENT_PREFIX"}
    handler = (REPO / "sandboxes" / "lambda_handler" / "handler.py").read_text()
    for var in fn["Environment"]["Variables"]:
        assert var in handler
    # Writes only to the transient prefix; reads store and transient.
    stmts = {s["Sid"]: s for s in t["Resources"]["RunnerRole"]["Properties"]["Policies"][0]
             ["PolicyDocument"]["Statement"]}
    assert stmts["WriteTransientOnly"]["Action"] == "s3:PutObject"
    assert "TransientPrefix" in stmts["WriteTransientOnly"]["Resource"]["Sub"]


def test_image_entrypoint_is_the_handler_entry_module():
    dockerfile = (REPO / "infra" / "lambda" / "Dockerfile").read_text()
    assert '"-m", "sandboxes.lambda_handler.entry"' in dockerfile
    assert (REPO / "sandboxes" / "lambda_handler" / "entry.py").is_file()
