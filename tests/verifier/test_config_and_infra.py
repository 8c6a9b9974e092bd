"""Config precedence and validation; the deployment files agree with the config and routes."""

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from verifier.cli import main
from verifier.config import VerifierConfig

REPO = Path(__file__).resolve().parents[2]


def test_precedence_file_env_flags(tmp_path):
    f = tmp_path / "c.yaml"
    f.write_text("port: 9000\nqueue_size: 5\nbackend: docker\nmax_inflight: 3\n")
    env = {"VERIFIER_QUEUE_SIZE": "7", "VERIFIER_BACKEND_OPTIONS": '{"capacity": 2}',
           "VERIFIER_BACKEND": "local"}
    c = VerifierConfig.load(f, env=env, overrides={"port": 9100, "host": None})
    assert (c.port, c.queue_size, c.backend, c.max_inflight) == (9100, 7, "local", 3)
    assert c.backend_options == {"capacity": 2} and c.host == "127.0.0.1"


def test_bad_values_are_named():
    with pytest.raises(ValidationError, match="queue_size"):
        VerifierConfig.load(None, env={"VERIFIER_QUEUE_SIZE": "-1"})
    with pytest.raises(ValidationError, match="backend"):
        VerifierConfig.load(None, env={"VERIFIER_BACKEND": "k8s"})
    with pytest.raises(ValidationError, match="surprise"):
        VerifierConfig.model_validate({"surprise": 1})


def test_serve_rejects_bad_config_without_traceback(tmp_path, capsys):
    f = tmp_path / "c.yaml"
    f.write_text("max_inflight: 0\n")
    assert main(["serve", "--config", str(f)]) == 2
    assert "max_inflight" in capsys.readouterr().err


def _env_names(env_list):
    return {e["name"] for e in env_list}


def test_k8s_and_compose_use_real_settings_and_routes():
    fields = {"VERIFIER_" + n.upper() for n in VerifierConfig.model_fields}
    dep = yaml.safe_load((REPO / "infra/service/k8s/deployment.yaml").read_text())
    c = dep["spec"]["template"]["spec"]["containers"][0]
    names = {n for n in _env_names(c["env"]) if n.startswith("VERIFIER_")}
    assert names <= fields, names - fields
    assert c["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert c["livenessProbe"]["httpGet"]["path"] == "/healthz"
    hpa = yaml.safe_load((REPO / "infra/service/k8s/hpa.yaml").read_text())
    assert hpa["spec"]["scaleTargetRef"]["name"] == dep["metadata"]["name"]
    compose = yaml.safe_load((REPO / "infra/service/compose.yaml").read_text())
    venv = compose["services"]["verifier"]["environment"]
    assert {k for k in venv if k.startswith("VERIFIER_")} <= fields
    assert venv["VERIFIER_STORE_URI"].startswith("s3://")
