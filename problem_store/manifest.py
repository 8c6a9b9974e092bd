"""Problem manifests: the versioned JSON schema every part of the product reads.

A manifest never carries test data, only links (``blob://sha256/<hex>``) into the
blob store (the Oubliette design, RLAX section 6.1). The verifier loads a manifest
by problem id, then hands links to a sandbox backend.

Schema changes bump ``SCHEMA_VERSION``; readers reject manifests from the future.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

SCHEMA_VERSION = 1

LINK_RE = re.compile(r"^blob://sha256/[0-9a-f]{64}$")
PROBLEM_ID_RE = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"


def _check_link(value: str) -> str:
    if not LINK_RE.match(value):
        raise ValueError(f"not a blob link (expected blob://sha256/<64 hex>): {value!r}")
    return value


Link = Annotated[str, AfterValidator(_check_link)]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Limits(_Model):
    """Resource limits for one run of a submission on one test."""

    time_limit_s: float = Field(2.0, gt=0, le=60, description="CPU time limit per test, seconds.")
    memory_mb: int = Field(256, ge=16, le=16384, description="Memory limit per test, MiB.")
    output_limit_kb: int = Field(
        64 * 1024, ge=1, le=1024 * 1024, description="Standard output cap per test, KiB."
    )


class TestCase(_Model):
    """One stdin/stdout test: an input and (usually) the jury's answer, by link."""

    __test__ = False  # not a pytest class

    name: str = Field(min_length=1, max_length=128, description="Stable test name, e.g. '01'.")
    input: Link = Field(description="Link to the test's standard input.")
    answer: Link | None = Field(None, description="Link to the jury answer (None: checker needs none).")
    group: str | None = Field(None, description="Subtask / group name, for grouped scoring.")
    points: float | None = Field(None, ge=0, description="Points for this test (testlib points rule).")
    sample: bool = Field(False, description="Public example shown in the statement.")



BuiltinName = Literal["exact", "lines", "tokens", "integers", "unordered", "floats",
                      # testlib's stock checkers, with exactly their verdicts
                      "wcmp", "ncmp", "icmp", "hcmp", "lcmp", "fcmp", "yesno", "nyesno",
                      "rcmp4", "rcmp6", "rcmp9", "dcmp"]


class BuiltinChecker(_Model):
    """A comparator run in-process by the verifier (semantics table: docs/problem-format.md).

    - exact: byte-for-byte.
    - lines: line by line, trailing whitespace on each line and trailing empty lines ignored.
    - tokens: whitespace-separated tokens equal (Python's whitespace; testlib's is wcmp).
    - integers: integers equal as values (lenient: +5, 05 and -0 read; testlib's is ncmp).
    - unordered: the multisets of tokens equal.
    - floats: tokens compared as floats within abs_tol OR rel_tol; NaN never equal (testlib's
      sequences of doubles are rcmp4/rcmp6/rcmp9).
    - wcmp, ncmp, icmp, hcmp, lcmp, fcmp, yesno, nyesno, rcmp4, rcmp6, rcmp9, dcmp: testlib's
      stock checkers of those names, verdict for verdict (tolerance fields do not apply).
    """

    type: Literal["builtin"] = "builtin"
    name: BuiltinName = "tokens"
    abs_tol: float = Field(1e-6, ge=0, description="floats: absolute tolerance.")
    rel_tol: float = Field(1e-6, ge=0, description="floats: relative tolerance.")
    case_sensitive: bool = Field(True, description="tokens/lines/unordered: compare case-sensitively.")


class CustomChecker(_Model):
    """A testlib-style checker binary, compiled once at upload for the sandbox image.

    Run as ``checker input output answer``; exit codes 0 OK, 1 WA, 2 PE, 3 FAIL (internal
    error, never WA), 7 points (score read from its output).
    """

    type: Literal["custom"] = "custom"
    language: Literal["c", "cpp"] = "cpp"
    source: Link = Field(description="Link to the checker source.")
    binary: Link = Field(description="Link to the compiled checker executable.")
    platform: str = Field("linux-x86_64-glibc", description="Where the binary runs.")
    headers: dict[str, Link] = Field(
        default_factory=dict, description="Extra headers compiled with it (testlib.h), name -> link."
    )



Checker = Annotated[Union[BuiltinChecker, CustomChecker], Field(discriminator="type")]

Split = Literal["train", "heldout"]


class _ProblemBase(_Model):
    schema_version: int = Field(SCHEMA_VERSION, description="Manifest schema version.")
    id: str = Field(pattern=PROBLEM_ID_RE, description="Unique problem id.")
    title: str = Field("", max_length=512)
    statement: str = Field("", description="Problem statement (Markdown).")
    tags: tuple[str, ...] = ()
    difficulty: str | None = Field(None, description="e.g. beginner / intermediate / hard.")
    split: Split | None = Field(None, description="RL split: train or heldout.")
    source: str | None = Field(None, description="Where the problem came from.")
    feedback: Literal["samples", "all"] = Field(
        "samples", description="Verdict messages returned in full: 'samples' (default; hidden "
        "tests get a verdict-level summary only) or 'all' (a public practice set).")

    @field_validator("schema_version")
    @classmethod
    def _not_future(cls, v: int) -> int:
        if v < 1 or v > SCHEMA_VERSION:
            raise ValueError(f"unsupported schema_version {v} (this build reads 1..{SCHEMA_VERSION})")
        return v


class StdioProblem(_ProblemBase):
    """A program reading stdin and writing stdout, judged test by test."""

    kind: Literal["stdio"] = "stdio"
    limits: Limits = Limits()
    tests: tuple[TestCase, ...] = Field(min_length=1)
    checker: Checker = BuiltinChecker()

    @model_validator(mode="after")
    def _unique_names(self) -> "StdioProblem":
        names = [t.name for t in self.tests]
        if len(set(names)) != len(names):
            raise ValueError("test names must be unique")
        if isinstance(self.checker, BuiltinChecker) and any(t.answer is None for t in self.tests):
            raise ValueError("built-in checkers need an answer for every test")
        return self


class FunctionTest(_Model):
    """One block of assertions run together with the candidate's code."""

    __test__ = False

    name: str = Field(min_length=1, max_length=128)
    code: Link = Field(description="Link to Python test code (asserts, or a check(candidate) function).")



class FunctionProblem(_ProblemBase):
    """HumanEval/MBPP-style: the candidate defines ``entry_point``; assertions run against it.

    harness ``humaneval``: each test defines ``check(candidate)``, called with the entry point.
    harness ``asserts``: each test is bare assert statements naming the function directly.
    ``entry_class`` (LeetCode-style ``class Solution``): the entry point is a method of that
    class, called on one instance per test; test code names the method (or the class).
    """

    kind: Literal["function"] = "function"
    language: Literal["python"] = "python"
    prompt: str = Field("", description="Code prompt (signature + docstring) given to the model.")
    entry_point: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    entry_class: str | None = Field(None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$",
                                    description="Class whose method is the entry point (e.g. Solution).")
    harness: Literal["humaneval", "asserts"] = "asserts"
    arguments_in_place: bool = Field(
        False, description="The tests check arguments the candidate changes in place (e.g. 'sort "
        "nums in place'): its changes reach the jury's objects. Off by default: the jury's "
        "objects stay as the jury made them, so a candidate cannot rewrite what its answer is "
        "checked against.")
    setup_code: str = Field("", description="Code run before the tests (imports, helpers).")
    limits: Limits = Limits(time_limit_s=5.0)
    tests: tuple[FunctionTest, ...] = Field(min_length=1)


class MathProblem(_ProblemBase):
    """A question with a gold answer, judged by the math equivalence judge."""

    kind: Literal["math"] = "math"
    question: str = Field(min_length=1)
    answer: str = Field(min_length=1, description="Gold answer (plain or LaTeX).")
    solution: str | None = Field(None, description="Worked solution, if the source has one.")
    answer_form: Literal["value", "as_gold"] = Field(
        "value", description="as_gold: the answer must also be written in the gold's form "
        "(factored, expanded, a number, a percentage, lowest terms; docs/math-judging.md).")


Problem = Annotated[Union[StdioProblem, FunctionProblem, MathProblem], Field(discriminator="kind")]
ProblemAdapter: TypeAdapter[Problem] = TypeAdapter(Problem)


def parse_problem(data: bytes | str | dict) -> StdioProblem | FunctionProblem | MathProblem:
    """Validate a manifest (JSON text or a dict); raises pydantic.ValidationError."""
    if isinstance(data, dict):
        return ProblemAdapter.validate_python(data)
    return ProblemAdapter.validate_json(data)


def dump_problem(problem: StdioProblem | FunctionProblem | MathProblem) -> bytes:
    """Canonical JSON bytes for a manifest (sorted keys, so equal manifests hash equal)."""
    import json

    return json.dumps(problem.model_dump(mode="json"), sort_keys=True, indent=1).encode()


def links_of(problem: StdioProblem | FunctionProblem | MathProblem) -> set[str]:
    """Every blob link a manifest references (for garbage collection and fsck)."""
    out: set[str] = set()
    if isinstance(problem, StdioProblem):
        for t in problem.tests:
            out.add(t.input)
            if t.answer:
                out.add(t.answer)
        if isinstance(problem.checker, CustomChecker):
            out.update({problem.checker.source, problem.checker.binary, *problem.checker.headers.values()})
    elif isinstance(problem, FunctionProblem):
        out.update(t.code for t in problem.tests)
    return out
