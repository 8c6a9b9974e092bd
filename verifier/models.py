"""Request and response bodies of the /v1 API (pydantic); the OpenAPI document is built from these.

They are also the Python-level contract of the embedded client: the RL loop passes and
receives exactly these objects, with or without HTTP in between.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from problem_store.manifest import PROBLEM_ID_RE, BuiltinChecker, Limits


class _Req(BaseModel):
    # strict: a boolean is true/false (not 0/1 or "yes"), a number is a JSON number (not "2"),
    # so a client's type mistake is a 422 naming the field instead of a silent guess.
    model_config = ConfigDict(extra="forbid", strict=True)


class RequestLimits(Limits):
    """``Limits`` as a caller sends them to /v1/execute (strict types; ceilings in config)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class RequestBuiltinChecker(BuiltinChecker):
    """``BuiltinChecker`` as a caller sends it to /v1/check (strict types)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class Verdict(str, Enum):
    AC = "AC"  # accepted
    WA = "WA"  # wrong answer (also a failed assertion in a function problem)
    PE = "PE"  # presentation error (testlib exit 2, or a non-integer token for `integers`)
    TLE = "TLE"
    MLE = "MLE"
    OLE = "OLE"
    RE = "RE"
    CE = "CE"
    IE = "IE"  # internal error: ours, never the submission's fault; reward is null
    SKIPPED = "SKIPPED"  # not judged (stop on first failure, or compile error)


RewardRule = Literal["all_pass", "fraction", "points"]


class VerifyOptions(_Req):
    stop_on_first_failure: bool = Field(
        False, description="Stop at the first non-AC test; later tests are reported SKIPPED.")
    tests: list[str] | None = Field(
        None, description="Judge only these tests (by name); default: every test.")
    reward: RewardRule = Field(
        "all_pass", description="all_pass: 1 iff every test AC; fraction: AC share; "
        "points: earned points / total points (a test without points counts 1).")


class VerifyRequest(_Req):
    problem_id: str = Field(pattern=PROBLEM_ID_RE, description="Id of a problem in the store.")
    language: str | None = Field(None, min_length=1, max_length=32, description="e.g. python, "
                                 "cpp, c. Required for stdio problems; optional for function "
                                 "problems (their language) and math problems (ignored).")
    code: str = Field(description="Source code (or, for a math problem, the answer text).")
    options: VerifyOptions = VerifyOptions()


class TestVerdict(BaseModel):
    __test__ = False
    name: str
    verdict: Verdict
    time_s: float = Field(0.0, description="CPU time of the run, seconds.")
    wall_time_s: float = 0.0
    memory_kb: int = Field(0, description="Peak resident memory of the run.")
    message: str = Field("", description="Checker or sandbox message.")
    points: float | None = Field(None, description="Points earned (points reward rule).")
    max_points: float | None = None


class CompileInfo(BaseModel):
    status: Literal["OK", "CE", "IE", "CACHED"]
    log: str = ""
    wall_time_s: float = 0.0


class VerifyResponse(BaseModel):
    problem_id: str
    kind: Literal["stdio", "function", "math"]
    verdict: Verdict = Field(description="IE if any IE; else CE; else the first non-AC "
                             "test's verdict; else AC.")
    reward: float | None = Field(description="null when the verdict is IE (not judged).")
    tests: list[TestVerdict] = Field(default_factory=list)
    compile: CompileInfo | None = None
    message: str = ""
    math: "MathVerifyResponse | None" = None
    time_s: float = Field(0.0, description="Wall time spent judging this submission.")


class BatchVerifyRequest(_Req):
    submissions: list[VerifyRequest] = Field(min_length=1)


class BatchVerifyResponse(BaseModel):
    results: list[VerifyResponse]


class MathVerifyRequest(_Req):
    gold: str = Field(min_length=1, max_length=100_000)
    # The judge itself calls a longer prediction too_large (not equivalent, reward 0); the
    # field only keeps absurd bodies out (a 100,000 cap once made 100k-200k answers 422).
    prediction: str = Field(max_length=1_000_000)
    extract: bool = Field(True, description="Extract the final answer (\\boxed{}, 'answer is').")
    require_box: bool = Field(False, description="Only a \\boxed{} answer counts (with extract).")
    form: Literal["value", "as_gold"] = Field("value", description="as_gold: an answer equal in value "
                                              "must also be written in the gold's form (outer operation, "
                                              "no operation the gold lacks, fractions in lowest terms).")
    timeout_s: float | None = Field(None, gt=0, le=120, description="Budget of this call, "
                                    "seconds (default: the service's math_timeout_s). A "
                                    "prediction that needs more is not equivalent (reason 'timeout'). Time "
                                    "the answer spent held while the service served other "
                                    "requests is not counted (math_hold: the wall time can "
                                    "reach 5x the budget).")


class MathVerifyResponse(BaseModel):
    equivalent: bool | None = Field(description="null when the judge failed (error); a "
                                    "prediction over its time/size budget is false "
                                    "(reason 'timeout'/'too_large').")
    extracted: str | None = None
    gold_parsed: str | None = None
    prediction_parsed: str | None = None
    reason: str = ""
    error: str | None = None
    timed_out: bool = False


class InputRef(_Req):
    name: str = Field(min_length=1, max_length=128)
    input: str = Field(description="blob:// link of the standard input (in the problem store).")


class ExecuteRequest(_Req):
    language: str = Field(min_length=1, max_length=32)
    code: str
    inputs: list[InputRef] = Field(min_length=1, max_length=1000)
    limits: RequestLimits = RequestLimits()
    stop_on_first_failure: bool = False

    @field_validator("limits", mode="before")
    @classmethod
    def _from_manifest_limits(cls, v):
        # Python callers may pass the manifest's Limits: same fields, so take them as given.
        return v.model_dump(exclude_unset=True) if isinstance(v, Limits) and not isinstance(
            v, RequestLimits) else v


class ExecuteRun(BaseModel):
    name: str
    status: Literal["OK", "TLE", "MLE", "OLE", "RE", "CE", "IE", "SKIPPED"]
    output: str | None = Field(None, description="Transient-store key of the stdout (TTL).")
    output_bytes: int = 0
    exit_code: int | None = None
    time_s: float = 0.0
    wall_time_s: float = 0.0
    memory_kb: int = 0
    message: str = ""


class ExecuteResponse(BaseModel):
    compile: CompileInfo
    runs: list[ExecuteRun]


class CustomCheckerRef(_Req):
    type: Literal["custom"] = "custom"
    binary: str = Field(description="blob:// link of a testlib-style checker executable.")


class CheckItem(_Req):
    name: str = Field(min_length=1, max_length=128)
    input: str = Field(description="blob:// link of the test input.")
    output: str = Field(description="Transient key (from /v1/execute) or blob:// link of the "
                        "contestant's output.")
    answer: str | None = Field(None, description="blob:// link of the jury answer.")


class CheckRequest(_Req):
    checker: RequestBuiltinChecker | CustomCheckerRef = Field(discriminator="type")

    @field_validator("checker", mode="before")
    @classmethod
    def _from_manifest_checker(cls, v):
        return v.model_dump() if isinstance(v, BuiltinChecker) and not isinstance(
            v, RequestBuiltinChecker) else v
    items: list[CheckItem] = Field(min_length=1, max_length=1000)


class CheckResult(BaseModel):
    name: str
    verdict: Verdict
    message: str = ""
    points: float | None = None


class CheckResponse(BaseModel):
    results: list[CheckResult]


class ProblemSummary(BaseModel):
    id: str
    kind: str
    title: str = ""
    difficulty: str | None = None
    split: str | None = None
    tags: list[str] = Field(default_factory=list)


class ProblemList(BaseModel):
    problems: list[ProblemSummary]
    broken: list[str] = Field(default_factory=list,
                              description="Ids whose stored manifests are unreadable (left out of `problems`).")


class ProblemDetail(ProblemSummary):
    statement: str = ""
    limits: Limits | None = None
    tests: list[str] = Field(default_factory=list, description="Test names (no data).")
    checker: str | None = Field(None, description="builtin:<name> or custom.")
    entry_point: str | None = None
    prompt: str | None = None
    question: str | None = None
    languages: list[str] = Field(default_factory=list)


class ErrorBody(BaseModel):
    error: str = Field(description="Short machine-readable code, e.g. invalid_request.")
    message: str = Field(description="What is wrong, in words.")
    details: list[dict] | None = Field(None, description="Per-field problems (schema errors).")
    request_id: str | None = None


class Health(BaseModel):
    status: str
    detail: dict = Field(default_factory=dict)


VerifyResponse.model_rebuild()
