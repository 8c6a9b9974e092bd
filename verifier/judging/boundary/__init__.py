"""Function-call judging across a process boundary (see docs/architecture.md, Verifier).

The jury's tests run in a trusted harness process; the candidate's code runs in a second,
freshly exec'd interpreter that the harness calls through two pipes. Only plain data
crosses (``codec``); the verdict is written by the harness alone, on an fd the candidate
never holds.
"""
