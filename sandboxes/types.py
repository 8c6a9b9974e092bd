"""The sandbox contract: what a batch is and what comes back, for every backend.

A batch is one program (source to compile once, or a prebuilt artifact) and N runs.
Every backend (local, docker, lambda) takes a ``Batch`` and returns a ``BatchResult``;
the runner core inside each backend is the same code. Everything here is plain data,
JSON-serialisable with ``model_dump(mode="json")`` so it crosses process, container and
Lambda boundaries unchanged (bytes are base64 in JSON).

``Status`` keeps "the submission failed" (TLE, MLE, OLE, RE, CE) apart from "we could
not run it" (IE). IE is never a wrong answer.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, model_validator


class Status(str, Enum):
    OK = "OK"  # exited 0 within every limit
    TLE = "TLE"  # CPU or wall time limit
    MLE = "MLE"  # memory limit
    OLE = "OLE"  # output limit (killed at the cap while reading)
    RE = "RE"  # non-zero exit or killed by a signal
    CE = "CE"  # compile step failed (compile result only)
    IE = "IE"  # the sandbox itself failed: never the submission's fault


class _Model(BaseModel):
    # bytes travel as base64 in JSON, raw bytes in Python.
    model_config = ConfigDict(extra="forbid", ser_json_bytes="base64", val_json_bytes="base64")


class RunLimits(_Model):
    cpu_time_s: float = Field(2.0, gt=0, le=600)
    wall_time_s: float = Field(6.0, gt=0, le=900, description="Default: about 3x CPU.")
    memory_mb: int = Field(256, ge=8, le=65536, description="Address-space / cgroup memory cap.")
    output_bytes: int = Field(64 << 20, ge=0, description="stdout cap, enforced while reading.")
    stderr_bytes: int = Field(64 << 10, ge=0, description="stderr kept (the rest is discarded).")
    max_processes: int = Field(64, ge=1, le=4096, description="Processes + threads of the run.")
    file_size_bytes: int = Field(16 << 20, ge=0, description="Largest file the run may write.")
    open_files: int = Field(64, ge=8, le=4096)


class Blob(_Model):
    """Data by link into the blob store (the Oubliette way) or inline (small data)."""

    link: str | None = None
    data: bytes | None = None

    @model_validator(mode="after")
    def _one(self) -> "Blob":
        if (self.link is None) == (self.data is None):
            raise ValueError("a Blob has exactly one of link or data")
        return self


class Source(_Model):
    """Source code to compile once for the whole batch."""

    language: str = Field(description="Key of sandboxes.languages.LANGUAGES, e.g. 'python', 'cpp'.")
    code: str
    compile_limits: RunLimits = RunLimits(cpu_time_s=20.0, wall_time_s=40.0, memory_mb=1024,
                                          max_processes=64, file_size_bytes=256 << 20)


class Artifact(_Model):
    """A program compiled earlier (a compile result's artifact, or a checker binary)."""

    language: str = Field(description="Language of the artifact; 'binary' for a native executable.")
    blob: Blob


class RunSpec(_Model):
    id: str = Field(description="Caller's name for this run (e.g. the test name).")
    stdin: Blob | None = None
    args: list[str] = Field(default_factory=list, description="Extra argv after the program.")
    files: dict[str, Blob] = Field(
        default_factory=dict, description="Files placed in the run's scratch dir (name -> data).")
    limits: RunLimits = RunLimits()


class Batch(_Model):
    program: Source | Artifact
    runs: list[RunSpec] = Field(default_factory=list)
    stop_on_failure: bool = Field(False, description="Skip remaining runs after the first non-OK.")
    output_to_store: bool = Field(
        False, description="Write each stdout to the transient store and return a link instead.")


class CompileResult(_Model):
    status: Status  # OK, CE or IE
    log: str = Field("", description="Compiler stdout+stderr (capped).")
    wall_time_s: float = 0.0
    artifact: Artifact | None = Field(None, description="Reusable compiled program, when cacheable.")
    pch: str | None = Field(None, description="Precompiled header: 'used', 'not_used' (GCC "
                            "refused it), 'retried' (failed with it, verdict from a plain "
                            "compile); None when none was offered.")


class RunResult(_Model):
    id: str
    status: Status
    exit_code: int | None = None
    signal: int | None = None
    cpu_time_s: float = 0.0
    wall_time_s: float = 0.0
    memory_kb: int = Field(0, description="Peak resident memory.")
    output_bytes: int = Field(0, description="stdout bytes produced (up to the cap).")
    stdout: bytes | None = None
    stdout_link: str | None = None
    stderr: bytes = b""
    message: str = Field("", description="Why, in words: which limit, which signal, what failed.")
    skipped: bool = Field(False, description="Not run because an earlier run failed (stop_on_failure).")


class BatchResult(_Model):
    compile: CompileResult | None = None
    runs: list[RunResult] = Field(default_factory=list)
    backend: str = ""
