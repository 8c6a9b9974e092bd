"""Errors the core raises for the client's mistakes; the HTTP layer maps each to its status.

The core (verifier.service) raises these without knowing about HTTP, so the embedded client
sees the same errors as an HTTP caller: a client mistake is a ``RequestError`` with a status
and a message naming what is wrong, never a crash and never an IE verdict.
"""

from __future__ import annotations


class RequestError(Exception):
    status: int = 400
    code: str = "invalid_request"

    def __init__(self, message: str, *, details: list[dict] | None = None):
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidRequest(RequestError):
    status, code = 422, "invalid_request"


class MalformedJSON(RequestError):
    status, code = 400, "malformed_json"


class UnknownProblem(RequestError):
    status, code = 404, "unknown_problem"


class UnsupportedLanguage(RequestError):
    status, code = 422, "unsupported_language"


class TooLarge(RequestError):
    status, code = 413, "too_large"


class CodeTooLarge(TooLarge):
    """The submitted code (or math response) is over max_code_bytes: 413 for one submission;
    in a batch that submission alone is judged (CE, or WA too_large for math)."""

    def __init__(self, where: str, size: int, limit: int):
        super().__init__(f"{where} is {size} bytes, over the limit of {limit}")
        self.size, self.limit = size, limit


class Overloaded(RequestError):
    """The admission queue is full: retry after ``retry_after_s``."""

    status, code = 429, "overloaded"

    def __init__(self, message: str, retry_after_s: int):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class DeadlineExceeded(RequestError):
    status, code = 504, "deadline_exceeded"


class Unauthorized(RequestError):
    status, code = 401, "unauthorized"


class NotReady(RequestError):
    status, code = 503, "not_ready"
    retry_after_s = 5


class StoreUnavailable(RequestError):
    """The problem store did not answer (outage, permissions, network): retry later."""

    status, code = 503, "store_unavailable"

    def __init__(self, message: str, retry_after_s: int = 5):
        super().__init__(message)
        self.retry_after_s = retry_after_s


class UnknownObject(RequestError):
    """A blob link or transient key the request names is not in the store."""

    status, code = 404, "not_found"
