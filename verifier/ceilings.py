"""Server-side ceilings and request checks that need the service's configuration.

The schema (verifier.models) bounds what any deployment accepts; these bound what *this*
deployment accepts, sized to its machine (verifier.config): a caller asking for more time,
memory, output or inputs than the ceiling gets 422 naming the field and the ceiling, never a
run that exhausts the host.
"""

from __future__ import annotations

from problem_store.manifest import LINK_RE, Limits
from verifier.config import VerifierConfig
from verifier.errors import InvalidRequest
from verifier.models import CheckRequest, ExecuteRequest


def is_link(value: str) -> bool:
    """A blob link, exactly: ``re.match`` with ``$`` would also accept a trailing newline."""
    return LINK_RE.fullmatch(value) is not None


def over(field: str, value, ceiling, setting: str) -> InvalidRequest:
    msg = (f"{field}: {value:g} is over this service's ceiling of {ceiling:g} ({setting})"
           if isinstance(value, (int, float)) else f"{field}: over the ceiling {ceiling} ({setting})")
    return InvalidRequest(msg, details=[{"field": field, "message": msg, "type": "ceiling",
                                         "ceiling": ceiling}])


def unique(names: list[str], field: str) -> None:
    seen: set[str] = set()
    dups = [n for n in names if n in seen or seen.add(n)]
    if dups:
        msg = f"{field}: names must be unique; repeated: {sorted(set(dups))[:10]}"
        raise InvalidRequest(msg, details=[{"field": field, "message": msg, "type": "duplicate"}])


def execute_limits(req: ExecuteRequest, cfg: VerifierConfig) -> Limits:
    """The limits /v1/execute runs with: a limit the caller set must be within the ceiling
    (else 422); one it left out defaults to the schema's default lowered to the ceiling, and
    the output cap to this request's share of ``max_request_output_bytes``."""
    lim, given = req.limits, req.limits.model_fields_set
    n = len(req.inputs)
    if n > cfg.max_inputs:
        raise over("inputs", n, cfg.max_inputs, "max_inputs (count)")
    checks = (("time_limit_s", cfg.max_time_limit_s, "max_time_limit_s"),
              ("memory_mb", cfg.max_memory_mb, "max_memory_mb"),
              ("output_limit_kb", cfg.max_output_kb, "max_output_kb"))
    values = {}
    for field, ceiling, setting in checks:
        value = getattr(lim, field)
        if field in given and value > ceiling:
            raise over(f"limits.{field}", value, ceiling, setting)
        values[field] = value if field in given else min(value, ceiling)
    share_kb = cfg.max_request_output_bytes // n // 1024
    if "output_limit_kb" not in given:
        values["output_limit_kb"] = max(1, min(values["output_limit_kb"], share_kb))
    total = n * values["output_limit_kb"] * 1024
    if total > cfg.max_request_output_bytes:
        msg = (f"limits.output_limit_kb: {n} inputs x {values['output_limit_kb']} KiB may produce "
               f"{total} bytes, over this service's ceiling of {cfg.max_request_output_bytes} "
               "bytes per request (max_request_output_bytes); lower the output limit or split "
               "the inputs")
        raise InvalidRequest(msg, details=[{"field": "limits.output_limit_kb", "message": msg,
                                            "type": "ceiling",
                                            "ceiling": cfg.max_request_output_bytes}])
    for i, ref in enumerate(req.inputs):
        if not is_link(ref.input):
            raise InvalidRequest(f"inputs[{i}].input: not a blob link "
                                 f"(expected blob://sha256/<64 hex>): {ref.input!r}")
    unique([r.name for r in req.inputs], "inputs[].name")
    return Limits(**values)


def check_check(req: CheckRequest, cfg: VerifierConfig) -> None:
    if len(req.items) > cfg.max_inputs:
        raise over("items", len(req.items), cfg.max_inputs, "max_inputs (count)")
    unique([it.name for it in req.items], "items[].name")
    for i, it in enumerate(req.items):
        for field in ("input", "answer"):
            ref = getattr(it, field)
            if ref is not None and not is_link(ref):
                raise InvalidRequest(f"items[{i}].{field}: not a blob link "
                                     f"(expected blob://sha256/<64 hex>): {ref!r}")
    binary = getattr(req.checker, "binary", None)
    if binary is not None and not is_link(binary):
        raise InvalidRequest(f"checker.binary: not a blob link "
                             f"(expected blob://sha256/<64 hex>): {binary!r}")
