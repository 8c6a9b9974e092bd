"""The sandbox execution core: compile once, run many, under limits (see PROTOCOL.md).

Stdlib-only modules (usable inside the sandbox by the agent): ``limits``, ``process``,
``classify``, ``core``, ``protocol``, ``agent``. Host-side modules (pydantic types):
``convert``, ``batching``, ``library``. ``execute_batch`` is loaded lazily so that
importing this package inside the sandbox needs no third-party module.
"""

from __future__ import annotations


def __getattr__(name: str):
    if name == "execute_batch":
        from sandboxes.runner.library import execute_batch

        return execute_batch
    raise AttributeError(name)
