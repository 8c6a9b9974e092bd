"""Service configuration: one typed model, read from a YAML file, VERIFIER_* env vars and flags.

Precedence (lowest to highest): defaults, the YAML file, the environment, command-line flags.
Every field is validated at load so a bad setting fails at start-up with its name, not later
as a confusing runtime error.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from verifier.work_classes import WorkConfig

ENV_PREFIX = "VERIFIER_"
_JSON_FIELDS = ("backend_options", "work_classes")  # given as JSON in the environment


class VerifierConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    host: str = Field("127.0.0.1", description="Address to listen on.")
    port: int = Field(8080, ge=0, le=65535, description="TCP port (0: pick a free one).")
    store_uri: str | None = Field(
        None, description="Problem store URI: file:///abs/dir, a path, or "
        "s3://bucket/prefix?endpoint=...; default $OUBLIETTE_STORE or ~/.local/share/oubliette/store.")
    backend: Literal["local", "docker", "lambda"] = Field("local", description="Sandbox backend.")
    backend_options: dict[str, Any] = Field(
        default_factory=dict, description="Keyword options passed to the backend's constructor.")
    max_inflight: int = Field(
        16, ge=1, le=4096, description="Submissions judged at once (beyond this they wait).")
    queue_size: int = Field(
        256, ge=0, le=100_000,
        description="Submissions allowed to wait for a judging slot; more get 429.")
    request_deadline_s: float = Field(
        120.0, gt=0, le=3600, description="Wall-clock budget of one request; past it, 504.")
    retry_after_s: int = Field(1, ge=1, le=600, description="Retry-After sent with a 429.")
    max_code_bytes: int = Field(
        256 * 1024, ge=1, description="Largest accepted source code (UTF-8 bytes); more is 413.")
    max_body_bytes: int = Field(
        16 * 1024 * 1024, ge=1024, description="Largest accepted request body; more is 413.")
    max_batch_submissions: int = Field(
        512, ge=1, description="Most submissions in one /v1/verify/batch request.")
    compile_cache_entries: int = Field(
        512, ge=0, description="LRU entries of compiled artifacts keyed by (language, code, flags).")
    manifest_cache_entries: int = Field(1024, ge=0, description="Problem manifests kept in memory.")
    transient_ttl_s: float = Field(
        3600.0, gt=0, description="Lifetime of /v1/execute outputs in the transient store.")
    math_timeout_s: float = Field(5.0, gt=0, le=120, description="Math judge budget per answer.")
    auth_token: str | None = Field(
        None, description="If set, every /v1 request needs 'Authorization: Bearer <token>'.")
    shutdown_grace_s: float = Field(
        30.0, ge=0, description="On SIGTERM, how long in-flight requests may take to finish.")
    work_classes: WorkConfig = Field(
        default_factory=WorkConfig, description="Fair admission (per-client lines, weights, "
        "per-client cap) and the bounds of the math, store and request work classes.")
    self_test: bool = Field(True, description="Run a tiny program through the backend at start.")
    log_level: str = Field("INFO", description="Python logging level name.")

    @classmethod
    def load(cls, file: str | Path | None = None, env: dict[str, str] | None = None,
             overrides: dict[str, Any] | None = None) -> "VerifierConfig":
        """Merge file < environment < overrides (None values in overrides are ignored)."""
        data: dict[str, Any] = {}
        if file:
            loaded = yaml.safe_load(Path(file).read_text()) or {}
            if not isinstance(loaded, dict):
                raise ValueError(f"config file {file}: expected a mapping at top level")
            data.update(loaded)
        env = os.environ if env is None else env
        for name in cls.model_fields:
            raw = env.get(ENV_PREFIX + name.upper())
            if raw is None:
                continue
            if name in _JSON_FIELDS:
                data[name] = json.loads(raw)
            else:
                data[name] = raw
        for k, v in (overrides or {}).items():
            if v is not None:
                data[k] = v
        return cls.model_validate(data)
