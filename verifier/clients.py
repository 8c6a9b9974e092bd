"""Who is asking: the client identity that fair admission shares slots between.

Precedence: the bearer token (``token:`` + the first 16 hex digits of its SHA-256, so the
secret never reaches logs or metrics), else the ``X-Client-Id`` header (``id:`` + its value),
else the peer address (``addr:`` + IP). The embedded client sets ``id:<client_id>``, so an
RL loop is the same client in-process or over HTTP with the same id.

What this does not cover: the header and the peer address are what the client says or where
it connects from. A client that invents a new id per request, or several clients behind one
proxy address, defeat or merge shares; only per-client tokens make identities trustworthy:
``client_tokens`` (name -> token) makes a request carrying one the client ``client:<name>``,
whatever header it sends, and once any token is configured a request without a valid one
is refused (401). With the one shared ``auth_token`` every authenticated caller is the same
client.

The identity travels in a context variable (set per request by ``identify_middleware`` or by
the embedded transport), so ``VerifierService`` needs no extra parameter for it.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections import defaultdict
from contextvars import ContextVar

from sandboxes.backends.slot_queue import SHARE_KEY
from verifier.errors import RequestError

CLIENT_ID_HEADER = "X-Client-Id"
ANONYMOUS = "anonymous"
_ID_RE = re.compile(r"^[A-Za-z0-9._:@/-]{1,64}$")

client_id_var: ContextVar[str] = ContextVar("verifier_client_id", default=ANONYMOUS)


class InvalidClientId(RequestError):
    status, code = 400, "invalid_client_id"


def current_client() -> str:
    return client_id_var.get()


def check_client_id(value: str) -> str:
    if not _ID_RE.match(value):
        raise InvalidClientId(f"{CLIENT_ID_HEADER}: expected 1-64 characters of letters, digits "
                              f"and ._:@/-, got {value[:80]!r}")
    return value


def token_identity(token: str) -> str:
    return "token:" + hashlib.sha256(token.encode()).hexdigest()[:16]


def identify(headers, peer: str | None, named: dict[str, str] | None = None) -> str:
    """The client identity of one HTTP request (see the module docstring for the order).
    ``named``: token -> client name (``client_tokens`` inverted)."""
    auth = headers.get("Authorization", "")
    if auth.startswith("Bearer ") and auth[7:].strip():
        given = auth[7:].strip()
        for token, name in (named or {}).items():
            if hmac.compare_digest(given.encode(), token.encode()):
                return "client:" + name
        return token_identity(given)
    given = headers.get(CLIENT_ID_HEADER)
    if given is not None:
        return "id:" + check_client_id(given.strip())
    return f"addr:{peer}" if peer else ANONYMOUS


def identify_middleware(client_tokens: dict[str, str] | None = None):
    from aiohttp import web

    named = {token: name for name, token in (client_tokens or {}).items()}

    @web.middleware
    async def identify_client(request, handler):
        client = identify(request.headers, request.remote, named)
        token = client_id_var.set(client)
        share = SHARE_KEY.set(client)  # sandbox slots are shared fairly between clients
        try:
            return await handler(request)
        finally:
            SHARE_KEY.reset(share)
            client_id_var.reset(token)
    return identify_client


class ClientStats:
    """Admission counts per (work class, client class, outcome) for /metrics.

    The label is the identity only for clients named in ``client_weights`` (a bounded set);
    everyone else is counted under the kind of their identity (``addr``, ``id``, ``token``),
    so a client minting ids cannot blow up the metrics' cardinality.
    """

    NAME = "verifier_admission_total"

    def __init__(self, named: set[str] | None = None):
        self.named = set(named or ())
        self.values: dict[tuple[str, str, str], int] = defaultdict(int)

    def label(self, client: str) -> str:
        if client in self.named:
            return client
        return "other:" + client.split(":", 1)[0] if ":" in client else client

    def count(self, work_class: str, client: str, outcome: str, n: int = 1) -> None:
        self.values[(work_class, self.label(client), outcome)] += n

    def render(self) -> list[str]:
        out = [f"# HELP {self.NAME} Submissions admitted, rejected (429) or pushed out (429 "
               f"after waiting), by work class and client class.", f"# TYPE {self.NAME} counter"]
        for (wc, cl, outcome), v in sorted(self.values.items()):
            cl = cl.replace("\\", "\\\\").replace('"', '\\"')
            out.append(f'{self.NAME}{{work_class="{wc}",client="{cl}",outcome="{outcome}"}} {v}')
        return out
