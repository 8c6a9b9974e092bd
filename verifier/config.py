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
from pydantic import BaseModel, ConfigDict, Field, field_validator

from verifier.work_classes import WorkConfig

ENV_PREFIX = "VERIFIER_"
_JSON_FIELDS = ("backend_options", "work_classes", "trusted_tokens")  # given as JSON in the environment


def _machine_memory_mb() -> int:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // (1024 * 1024)
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-Linux
        return 8192


# Ceiling defaults sized to this machine: one run may use an eighth of its memory (at most
# 4 GiB), and one request's outputs, all of which the service holds while storing them, a
# 64th (at most 1 GiB), so 16 requests in flight hold at most a quarter of the host's memory.
_RUN_MEMORY_MB = max(256, min(4096, _machine_memory_mb() // 8))
_REQUEST_OUTPUT_BYTES = max(64, min(1024, _machine_memory_mb() // 64)) * 1024 * 1024


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
    # -- ceilings on what a caller may ask for (/v1/execute, /v1/check); beyond: 422 --------
    max_time_limit_s: float = Field(
        10.0, gt=0, le=60, description="Largest limits.time_limit_s a caller may ask for.")
    max_memory_mb: int = Field(
        _RUN_MEMORY_MB, ge=16, description="Largest limits.memory_mb a caller may ask for "
        "(default: 1/8 of this machine's memory, at most 4096).")
    max_output_kb: int = Field(
        64 * 1024, ge=1, description="Largest limits.output_limit_kb (stdout cap per run).")
    max_inputs: int = Field(
        1000, ge=1, description="Most inputs in one /v1/execute and items in one /v1/check.")
    max_request_output_bytes: int = Field(
        _REQUEST_OUTPUT_BYTES, ge=1024, description="Most output one request may produce or "
        "read: inputs x limits.output_limit_kb for /v1/execute, the outputs and answers read "
        "by /v1/check (default: 1/64 of this machine's memory, 64 MiB to 1 GiB).")
    transient_max_bytes: int = Field(
        8 * _REQUEST_OUTPUT_BYTES, ge=1024, description="Most bytes of /v1/execute output this "
        "process keeps in the transient store at once (live outputs plus the worst case of "
        "requests in flight); a request that does not fit gets 429 transient_full before it "
        "runs (default: 8 x max_request_output_bytes).")
    transient_gc_interval_s: float = Field(
        300.0, ge=0, description="How often expired transient outputs are deleted (0: never).")
    # -- hidden tests (verifier.redact) ---------------------------------------------------
    feedback: Literal["samples", "all"] = Field(
        "samples", description="Full verdict messages for sample tests only (hidden tests get "
        "a verdict-level summary), or for every test of every problem.")
    client_tokens: dict[str, str] = Field(
        default_factory=dict, description="Per-client bearer tokens, name -> token (accepted "
        "besides auth_token). A request with one is the client 'client:<name>' whatever its "
        "X-Client-Id says, so fair shares and client_weights follow identities a client "
        "cannot invent.")
    trusted_tokens: list[str] = Field(
        default_factory=list, description="Bearer tokens (accepted besides auth_token) whose "
        "requests get full messages on every test.")
    work_classes: WorkConfig = Field(
        default_factory=WorkConfig, description="Fair admission (per-client lines, weights, "
        "per-client cap) and the bounds of the math, store and request work classes.")
    self_test: bool = Field(True, description="Run a tiny program through the backend at start.")
    log_level: str = Field("INFO", description="Python logging level name.")

    @field_validator("client_tokens")
    @classmethod
    def _client_tokens(cls, v: dict[str, str]) -> dict[str, str]:
        import re

        for name, token in v.items():
            if not re.fullmatch(r"[A-Za-z0-9._@/-]{1,64}", name):
                raise ValueError(f"client_tokens: name {name[:80]!r} must be 1-64 characters of "
                                 "letters, digits and ._@/-")
            if len(token.strip()) < 8 or token != token.strip():
                raise ValueError(f"client_tokens[{name!r}]: a token needs at least 8 characters "
                                 "and no surrounding spaces")
        if len(set(v.values())) != len(v):
            raise ValueError("client_tokens: two clients share a token")
        return v

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
