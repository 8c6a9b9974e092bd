"""Where the RL loop reads its problems from: the store (embedded default) or the verifier's API.

A job whose rewards come from a remote verifier (``rewards.mode: http``) needs only the
verifier's URL: prompts are rendered from ``GET /v1/problems`` and ``GET /v1/problems/{id}``,
which carry statements, limits, signatures and questions but never test data (Oubliette:
test data stays in the store, behind the verifier). Both sources give objects with the
fields the prompt renderer reads (`rl_loop.prompts`).
"""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Protocol


class ProblemSource(Protocol):
    def list(self) -> list[Any]: ...  # items with .id, .kind, .split

    def get(self, problem_id: str) -> Any: ...


class StoreSource:
    def __init__(self, store_uri: str) -> None:
        from problem_store.problems import ProblemStore
        from problem_store.uri import open_store

        self.store = ProblemStore(open_store(store_uri))

    def list(self) -> list[Any]:
        return list(self.store.list())

    def get(self, problem_id: str) -> Any:
        return self.store.get(problem_id)


class HttpSource:
    def __init__(self, base_url: str, timeout_s: float = 30.0) -> None:
        self.base = base_url.rstrip("/")
        self.timeout_s = timeout_s

    def _get(self, path: str) -> Any:
        try:
            with urllib.request.urlopen(self.base + path, timeout=self.timeout_s) as resp:
                return json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace")[:500]
            raise ValueError(f"verifier {self.base}: GET {path} answered {exc.code}: {body}") from exc
        except urllib.error.URLError as exc:
            raise ConnectionError(f"verifier {self.base} is not reachable: {exc.reason}") from exc

    def list(self) -> list[Any]:
        from verifier.models import ProblemSummary

        return [ProblemSummary.model_validate(p) for p in self._get("/v1/problems")["problems"]]

    def get(self, problem_id: str) -> Any:
        from verifier.models import ProblemDetail

        return ProblemDetail.model_validate(self._get("/v1/problems/" + urllib.parse.quote(problem_id, safe="")))


def problem_source(store_uri: str, verifier_url: str | None = None) -> ProblemSource:
    """The verifier's API when a URL is given, else the store."""
    return HttpSource(verifier_url) if verifier_url else StoreSource(store_uri)
