"""Hidden tests stay hidden: what a verdict response may say about a test the client cannot see.

A checker message ("expected -12, found -5"), a function problem's assertion traceback or a
custom checker's testlib text all quote the jury's data. One submission that prints garbage
would collect every hidden answer and the next one would get AC by looking them up, so a
response carries, for a hidden test, only a fixed verdict-level summary: no checker text, no
excerpt of the candidate's stdout/stderr (a candidate that echoes its input would otherwise
return the hidden input in its own excerpt) and no IE details (those go to the service log
under the request id). Sample tests (``sample: true`` in the manifest) are public, so their
messages are returned in full.

Opt-ins, each widening to full messages on every test:
- a problem: ``feedback: all`` in its manifest (public practice sets);
- a deployment: ``feedback: all`` in the service config;
- a client: a bearer token listed in ``trusted_tokens`` (the HTTP layer sets
  ``full_feedback_var`` for that request).

Per-test time and memory of a hidden test are withheld too (reported as 0): a candidate that
allocates ``ord(input[k])`` MiB would otherwise read a byte of the hidden input per test per
submission out of ``memory_kb`` (found by a red team), and CPU time is as wide a channel.
What still leaves a hidden test, by design: its verdict and points (a few values per test; a
candidate can always choose among them from its own input), and the submission's totals.
It never sees the answer, and no text of either is returned.
"""

from __future__ import annotations

import logging
from contextvars import ContextVar

from problem_store.manifest import FunctionProblem, MathProblem, StdioProblem
from verifier.models import CheckResult, TestVerdict, Verdict, VerifyResponse

log = logging.getLogger("verifier.redact")

#: True while serving a request from a trusted client (set by the HTTP auth middleware).
full_feedback_var: ContextVar[bool] = ContextVar("full_feedback", default=False)

SUMMARY = {
    Verdict.AC: "ok",
    Verdict.WA: "wrong answer",
    Verdict.PE: "presentation error",
    Verdict.TLE: "time limit exceeded",
    Verdict.MLE: "memory limit exceeded",
    Verdict.OLE: "output limit exceeded",
    Verdict.RE: "runtime error",
    Verdict.CE: "compilation error",
    Verdict.IE: "internal error (not the submission's fault; details in the service log "
                "under this request's id)",
    Verdict.SKIPPED: "not judged",
}
HIDDEN_NOTE = " (hidden test: details withheld)"


def summary(verdict: Verdict) -> str:
    """The whole message a hidden test may carry: fixed text per verdict, nothing else."""
    if verdict in (Verdict.AC, Verdict.SKIPPED):
        return SUMMARY[verdict]
    return SUMMARY[verdict] + ("" if verdict == Verdict.IE else HIDDEN_NOTE)


def full_feedback(problem_feedback: str = "samples", deployment_feedback: str = "samples") -> bool:
    return (problem_feedback == "all" or deployment_feedback == "all"
            or full_feedback_var.get())


def visible_tests(problem) -> set[str]:
    """Names of tests whose messages are public: the samples of a stdio problem, none else."""
    if isinstance(problem, StdioProblem):
        return {t.name for t in problem.tests if t.sample}
    return set()


def _withhold(t: TestVerdict | CheckResult, where: str) -> None:
    if t.message:
        level = logging.WARNING if t.verdict == Verdict.IE else logging.INFO
        log.log(level, "withheld message of a hidden test", extra={"fields": {
            "where": where, "test": t.name, "verdict": t.verdict.value, "message": t.message[:2000]}})
    t.message = summary(t.verdict)
    if isinstance(t, TestVerdict):  # side channels of the hidden input (see the module doc)
        t.time_s, t.wall_time_s, t.memory_kb = 0.0, 0.0, 0


def python_syntax_message(code: str) -> str:
    """A function problem's CE text, from the candidate's code alone.

    The harness reports CE through the run's exit status and stderr, which the candidate can
    forge (write a test file it can read to stderr, exit with the CE status), so the text
    returned is recomputed here by compiling the code (never running it)."""
    try:
        compile(code, "candidate.py", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return (f"candidate does not compile: {type(exc).__name__}: {exc.msg} "
                f"(candidate.py, line {exc.lineno})")
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"candidate does not compile: {type(exc).__name__}"
    return SUMMARY[Verdict.CE] + HIDDEN_NOTE  # it compiles: the CE status came from the program


def redact_verify(resp: VerifyResponse, problem, deployment_feedback: str = "samples",
                  code: str | None = None) -> VerifyResponse:
    """Reduce every hidden test of ``resp`` to its verdict-level summary (in place)."""
    if full_feedback(getattr(problem, "feedback", "samples"), deployment_feedback):
        return resp
    if (isinstance(problem, FunctionProblem) and resp.compile is not None
            and resp.compile.status == "CE"):
        text = python_syntax_message(code or "")
        resp.compile = resp.compile.model_copy(update={"log": text})
        resp.message = text
    public = visible_tests(problem)
    # An executor failure (compile status IE) is our infrastructure's text, copied to every
    # test; it quotes no test data and operators need it in the response.
    infra = resp.compile is not None and resp.compile.status == "IE"
    hidden_ie = False
    for t in resp.tests:
        if t.name not in public and not (infra and t.verdict == Verdict.IE):
            hidden_ie |= t.verdict == Verdict.IE
            _withhold(t, f"verify {resp.problem_id}")
    if resp.verdict == Verdict.IE and hidden_ie:
        # The overall IE message is copied from the first IE test's; it may be a checker's FAIL text.
        resp.message = SUMMARY[Verdict.IE]
    if isinstance(problem, MathProblem) and resp.math is not None:
        # The gold answer is the hidden test of a math problem: keep only the candidate's side.
        resp.math = resp.math.model_copy(update={
            "gold_parsed": None, "reason": "", "error": None if resp.math.error is None
            else SUMMARY[Verdict.IE]})
    return resp


def redact_check(results: list[CheckResult], deployment_feedback: str = "samples") -> list[CheckResult]:
    """/v1/check: the client named the answers by link, but links do not prove it may read them."""
    if full_feedback("samples", deployment_feedback):
        return results
    for r in results:
        _withhold(r, "check")
    return results
