"""The service's work classes, each with its own bounds, so a flood of one cannot stall another.

* ``code``: sandbox judging (``/v1/verify`` of code problems, batches, execute, check). Fair
  admission (``verifier.admission``) with ``max_inflight`` slots, ``code_reserve_slots`` more
  for clients with no submission running, and ``queue_size`` places.
* ``math``: math judging (``/v1/math/verify`` and math problems). Its own fair admission
  (``math_workers`` slots plus ``math_reserve_workers`` for clients with no answer running,
  ``math_queue_size`` places), its own threads (one per sympy worker
  process) and the sympy workers themselves, killed at the answer's timeout and run at a lower
  CPU priority (``math_priority``), each in its own session so that the scheduler's autogroup
  does not charge their CPU to the service, so that answers burning a whole core take little
  CPU from request handling and sandbox runs. A slow answer's worker also sits in a cpu.idle
  cgroup held while any other request is in flight (``foreground``; its budget is stretched
  by the held time).
* ``store``: problem, blob and transient-store I/O. Its own threads and bounded queue.
* ``request``: CPU work of a request (built-in checks of large outputs), waited for in its
  threads and done in check worker processes (``check_processes``), off the service's GIL.

Readiness rule (``/readyz``): not ready when the ``code`` queue is full or the store is
saturated (its queue full, or every store thread stuck on a call older than
``store_stall_s``): the instance cannot take the work a load balancer sends it. A saturated
math class is reported but keeps the instance ready: math requests get 429/503 themselves,
and taking the instance out would also cut its code traffic.
"""

from __future__ import annotations

from contextlib import ExitStack
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from verifier.admission import FairQueue, Ticket
from verifier.check_processes import CheckProcesses
from verifier.clients import ClientStats
from verifier.executors import BoundedExecutor
from verifier.foreground import Foreground


class WorkConfig(BaseModel):
    """Fair admission and per-class bounds (``VERIFIER_WORK_CLASSES`` takes it as JSON)."""

    model_config = ConfigDict(extra="forbid")

    policy: Literal["fair", "fcfs"] = Field(
        "fair", description="fair: a line per client, weighted round-robin; fcfs: one line.")
    max_per_client: int = Field(
        0, ge=0, le=100_000, description="Submissions one client may have queued + running in "
        "one work class; more get 429. 0: the class capacity (a full queue still pushes out "
        "the client holding the most).")
    client_weights: dict[str, float] = Field(
        default_factory=dict, description="Round-robin weight per client identity "
        "(client:<name> from client_tokens, token:<16 hex of sha256>, id:<X-Client-Id>, "
        "addr:<ip>); others weigh 1.")
    code_reserve_slots: int = Field(
        16, ge=0, le=4096, description="Code submissions beyond max_inflight that only a client "
        "with no submission running may start: one client's (or one batch's) long submissions "
        "filling every regular slot cannot make every other client wait in admission until "
        "one of them ends (hostile review 6: a 0.06 s answer waited 117 s behind 16 sleeping "
        "ones); the sandbox slot gate then shares the runs between them "
        "(verifier/admission.py, reserve slots).")
    math_workers: int = Field(
        2, ge=1, le=64, description="sympy worker processes = math answers judged at once.")
    math_reserve_workers: int = Field(
        1, ge=0, le=16, description="Sympy workers beyond math_workers that only a client "
        "with no answer running may take: one client's slow answers (each may run to its "
        "timeout) cannot make every other client's answer wait behind them "
        "(verifier/admission.py, reserve slots).")
    math_queue_size: int = Field(
        64, ge=0, le=100_000, description="Math answers allowed to wait; more get 429.")
    math_priority: Literal["normal", "low", "idle"] = Field(
        "low", description="CPU priority of the sympy workers: normal (the service's), low "
        "(nice 10, in their own session, whose autogroup nice drops to 10 once an answer has "
        "run 0.25 s), idle (SCHED_IDLE, autogroup nice 19 then: only CPU nobody else "
        "wants; best isolation, but on a saturated machine slow sympy answers then run into "
        "their timeout).")
    math_hold: bool = Field(
        True, description="While any request other than math is in flight, hold the sympy "
        "workers of answers that have run past 0.25 s (a cpu.idle cgroup throttled to 1 ms/s, "
        "where the host allows one) and give them the held time back on their budget, up to "
        "4x. Off: such answers only run at the lowered priority (math_priority).")
    store_threads: int = Field(4, ge=1, le=256, description="Threads for store I/O.")
    store_queue_size: int = Field(
        256, ge=0, le=100_000, description="Store calls allowed to wait; more get 503.")
    store_stall_s: float = Field(
        10.0, gt=0, le=3600, description="Every store thread busy longer than this: saturated.")
    request_threads: int = Field(2, ge=1, le=256, description="Threads for in-process checks.")
    check_processes: int = Field(
        2, ge=0, le=256, description="Worker processes for built-in checks of large outputs "
        "(off the service's interpreter lock; verifier/check_processes.py). 0: in the request "
        "threads.")
    request_queue_size: int = Field(
        256, ge=0, le=100_000, description="In-process checks allowed to wait; more get 503.")

    @field_validator("client_weights")
    @classmethod
    def _weights(cls, v: dict[str, float]) -> dict[str, float]:
        for k, w in v.items():
            if not 0 < w <= 1000:
                raise ValueError(f"client_weights[{k!r}]: weight must be in (0, 1000], got {w}")
        return v


class ClassTickets:
    """Places held in one or more classes by one request; ``slot(cls)`` waits for a slot."""

    def __init__(self, tickets: dict[str, Ticket]):
        self.tickets = tickets

    def slot(self, work_class: str = "code"):
        return self.tickets[work_class].slot()

    def release(self) -> None:
        for t in self.tickets.values():
            t.release()

    def __enter__(self) -> "ClassTickets":
        return self

    def __exit__(self, *exc) -> None:
        self.release()


class WorkClasses:
    def __init__(self, cfg: WorkConfig, *, max_inflight: int, queue_size: int,
                 retry_after_s: int = 1, request_deadline_s: float | None = None):
        self.cfg = cfg
        self.request_deadline_s = request_deadline_s
        self.stats = ClientStats(set(cfg.client_weights))
        common = dict(retry_after_s=retry_after_s, max_per_client=cfg.max_per_client,
                      weights=cfg.client_weights, policy=cfg.policy, stats=self.stats)
        self.code = FairQueue("code", max_inflight, queue_size, reserve_slots=cfg.code_reserve_slots, **common)
        self.math_queue = FairQueue("math", cfg.math_workers, cfg.math_queue_size,
                                    reserve_slots=cfg.math_reserve_workers, **common)
        # One thread per worker and no queue: a call whose request is gone (its deadline, a
        # client that hung up) keeps its thread and worker until it returns, and a request
        # that finds them all busy gets 503 + Retry-After at once. (A queue here let such a
        # request wait behind abandoned calls until the judge's backstop fired: IE, reward
        # null, for a right answer; red-team finding.)
        self.math = BoundedExecutor("math", self.math_capacity, 0, retry_after_s=retry_after_s)
        self.store = BoundedExecutor("store", cfg.store_threads, cfg.store_queue_size,
                                     retry_after_s=retry_after_s, stall_after_s=cfg.store_stall_s)
        self.request = BoundedExecutor("request", cfg.request_threads, cfg.request_queue_size,
                                       retry_after_s=retry_after_s)
        self.checks = CheckProcesses(cfg.check_processes) if cfg.check_processes else None
        self.queues = {"code": self.code, "math": self.math_queue}
        # requests other than math in flight: slow math answers are held meanwhile
        self.foreground = Foreground()
        self.math_run = self.foreground.wrap(self.math.run)
        self.pool = None

    @property
    def math_capacity(self) -> int:
        """Sympy workers (and math threads) in all: the regular ones and the reserve."""
        return self.cfg.math_workers + (self.cfg.math_reserve_workers if self.cfg.policy == "fair" else 0)

    def start_math_pool(self) -> None:
        """Install the sympy worker pool sized and niced for this service (workers start lazily)."""
        from verifier.math import set_pool
        from verifier.math.pool import WorkerPool

        prio = self.cfg.math_priority
        # a held answer is given its held time back only while its request can still use
        # the result: the stretched wall time stays 5 s inside the request deadline
        wall = None if self.request_deadline_s is None else max(1.0, self.request_deadline_s - 5.0)
        self.pool = WorkerPool(size=self.math_capacity, nice=10 if prio == "low" else 0,
                               idle=prio == "idle", max_wall_s=wall)
        if self.cfg.math_hold:
            self.foreground.listen(self.pool.hold_background)
        set_pool(self.pool)

    def reserve(self, units: dict[str, int]) -> ClassTickets:
        """Places in every class named (all or nothing); raises Overloaded/TooLarge."""
        with ExitStack() as undo:
            tickets = {}
            for cls, n in units.items():
                if n > 0:
                    t = self.queues[cls].reserve(n)
                    undo.callback(t.release)
                    tickets[cls] = t
            undo.pop_all()
        return ClassTickets(tickets)

    def report(self) -> dict:
        out = {}
        for name, q in self.queues.items():
            out[name] = {"slots": q.slots, "running": q.running, "waiting": q.waiting,
                         "capacity": q.capacity, "clients": len(q._clients),
                         "saturated": q.saturated}
        out["math"]["threads"] = self.math.report()
        if self.pool is not None:
            out["math"]["hold"] = self.pool.hold_report()
        out["store"] = self.store.report()
        out["request"] = self.request.report()
        return out

    def math_threads_held(self) -> bool:
        """Every math thread busy and some of them with calls whose request is gone: new math
        requests get 503 until those return (the executor has one thread per worker)."""
        return self.math.saturated and self.math.pending > self.math_queue.running

    def blocking(self) -> list[str]:
        """Classes whose saturation makes the instance not ready (see the module docstring)."""
        return [n for n, bad in (("code", self.code.saturated), ("store", self.store.saturated))
                if bad]

    def render_metrics(self) -> list[str]:
        lines = self.stats.render()
        g = "verifier_work_class"
        lines += [f"# HELP {g}_running Units running per work class.", f"# TYPE {g}_running gauge"]
        rows = {"code": (self.code.running, self.code.waiting, self.code.saturated),
                "math": (self.math_queue.running, self.math_queue.waiting,
                         self.math_queue.saturated or self.math_threads_held()),
                "store": (self.store.busy, self.store.queued, self.store.saturated),
                "request": (self.request.busy, self.request.queued, self.request.saturated)}
        lines += [f'{g}_running{{class="{k}"}} {v[0]}' for k, v in rows.items()]
        lines += [f"# HELP {g}_waiting Units waiting per work class.", f"# TYPE {g}_waiting gauge"]
        lines += [f'{g}_waiting{{class="{k}"}} {v[1]}' for k, v in rows.items()]
        lines += [f"# HELP {g}_saturated 1 when the class refuses new work.",
                  f"# TYPE {g}_saturated gauge"]
        lines += [f'{g}_saturated{{class="{k}"}} {int(v[2])}' for k, v in rows.items()]
        return lines

    async def run_check(self, fn, *args):
        """A CPU-heavy check of a request: in a check worker process when there are any
        (its request thread only waits), else in the request thread itself."""
        if self.checks is None:
            return await self.request.run(fn, *args)
        return await self.request.run(self.checks.call, fn, *args)

    def shutdown(self) -> None:
        if self.checks is not None:
            self.checks.shutdown()
        self.foreground.close()
        for ex in (self.math, self.store, self.request):
            ex.shutdown()


class MetricsBlock:
    """Adapter: lets ``Metrics.extra_gauges`` render the work classes' lines."""

    def __init__(self, work: WorkClasses):
        self.work = work

    def render(self) -> list[str]:
        return self.work.render_metrics()
