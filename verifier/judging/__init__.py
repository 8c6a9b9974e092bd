"""Judging: turn (problem, submission) into per-test verdicts and a reward.

Modules, in data-flow order: ``compile_cache`` (compile once, reuse by code hash), ``stdio``
and ``function`` (run tests in the sandbox, check outputs), ``math`` (math problems),
``verdicts`` (status -> verdict, overall verdict, reward rules), ``judge`` (wires them).
"""
