"""Start-up self-test: every language compiles and runs its tiny A+B program.

Any backend calls ``await run_selftests(self)`` at the end of ``start()``: a broken
toolchain or a sandbox that cannot run anything fails loudly at start (SandboxError)
instead of turning every later submission into CE/RE.
"""

from __future__ import annotations

from sandboxes.backends.base import SandboxError
from sandboxes.languages import LANGUAGES
from sandboxes.types import Batch, Blob, RunSpec, Source, Status


async def run_selftests(backend, languages: list[str] | None = None) -> None:
    for name in languages or list(LANGUAGES):
        test = LANGUAGES[name].selftest
        if test is None:
            continue
        batch = Batch(program=Source(language=name, code=test.code),
                      runs=[RunSpec(id=f"selftest-{name}", stdin=Blob(data=test.stdin))])
        res = await backend.run_batch(batch)
        if res.compile is None or res.compile.status != Status.OK:
            log = res.compile.log if res.compile else "no compile result"
            raise SandboxError(f"{backend.name}: self-test of {name!r} did not compile: {log[:500]}")
        run = res.runs[0]
        if run.status != Status.OK or run.stdout != test.expected:
            raise SandboxError(
                f"{backend.name}: self-test of {name!r} gave {run.status.value} ({run.message}), "
                f"stdout {run.stdout!r}, stderr {run.stderr[:300]!r}; expected {test.expected!r}")
