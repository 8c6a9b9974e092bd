"""Store calls from the event loop, with store failures mapped to what the client should do.

A missing object is the client's mistake (404 naming the field); a store that does not
answer (outage, permissions, network, throttling) is 503 with Retry-After, which clients
retry, never a 500 "see the logs" or a verdict. A corrupt blob or manifest is ours: a 500.
"""

from __future__ import annotations

import asyncio
import logging

from problem_store.blobs.base import CorruptBlob
from problem_store.problems import CorruptManifest
from verifier.errors import InvalidRequest, RequestError, StoreUnavailable, UnknownObject

log = logging.getLogger("verifier.store")


async def store_call(fn, *args, what: str, retry_after_s: int = 5, not_found=None,
                     awaitable: bool = False, client_value: bool = True, run=None):
    """Run ``fn(*args)`` on the store's bounded executor ``run`` (a thread of asyncio's default
    pool when None), or await it when ``awaitable``.

    KeyError -> ``not_found`` (or UnknownObject naming ``what``); ValueError -> 422 when it
    judges the client's value (``client_value``: a malformed key), else it is stored data we
    cannot read (a manifest that fails validation): re-raised as a 500; CorruptBlob re-raised;
    anything else -> StoreUnavailable."""
    try:
        if awaitable:
            return await fn(*args)
        return await (run(fn, *args) if run is not None else asyncio.to_thread(fn, *args))
    except RequestError:  # the executor's own refusal (a saturated store class) stays as it is
        raise
    except KeyError:
        raise (not_found or UnknownObject(f"{what}: not found (or expired)")) from None
    except ValueError as exc:
        if client_value:
            raise InvalidRequest(f"{what}: {exc}") from None
        raise RuntimeError(f"{what}: stored data unreadable: {str(exc)[:300]}") from exc
    except CorruptBlob:
        raise
    except CorruptManifest as exc:  # stored data we cannot read: ours (500), retrying will not help
        raise RuntimeError(f"{what}: {exc}") from exc
    except Exception as exc:  # noqa: BLE001 - every other store failure is an outage to retry
        log.warning("store unavailable", extra={"fields": {"what": what, "error": repr(exc)[:500]}})
        raise StoreUnavailable(f"problem store unavailable ({type(exc).__name__}); retry later",
                               retry_after_s) from None


async def require_links(blobs, links: dict[str, str], run=None) -> None:
    """404 naming the first field whose blob link is not in the store (before any run)."""
    def missing() -> str | None:
        from concurrent.futures import ThreadPoolExecutor

        distinct = list(dict.fromkeys(links.values()))  # a test set repeats links; ask once
        workers = max(1, min(16, getattr(blobs, "io_concurrency", 1), len(distinct)))
        if workers == 1:
            present = {link: blobs.exists(link) for link in distinct}
        else:  # an object store answers HEADs in parallel; 1,000 in a row would take seconds
            with ThreadPoolExecutor(workers) as pool:
                present = dict(zip(distinct, pool.map(blobs.exists, distinct)))
        return next((field for field, link in links.items() if not present[link]), None)

    field = await store_call(missing, what="blob links", run=run)
    if field is not None:
        raise UnknownObject(f"{field}: {links[field]!r} is not in the problem store")
