"""``verifier`` command line: ``serve`` (the HTTP service) and ``submit`` (judge one file).

    verifier serve [--config FILE] [--host H] [--port P] [--store URI] [--backend NAME] ...
    verifier submit FILE --problem ID [--language L] [--url URL] [--token T]

Config precedence: defaults < --config YAML < VERIFIER_* environment < flags.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path

from verifier.config import VerifierConfig

log = logging.getLogger("verifier.cli")
_EXT_LANG = {".py": "python", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".c": "c"}


def _serve_parser(sub) -> None:
    p = sub.add_parser("serve", help="run the HTTP service")
    p.add_argument("--config", help="YAML config file (fields of VerifierConfig)")
    p.add_argument("--host")
    p.add_argument("--port", type=int)
    p.add_argument("--store", dest="store_uri", help="problem store URI (file path or s3://...)")
    p.add_argument("--backend", choices=["local", "docker", "lambda"])
    p.add_argument("--backend-option", action="append", default=[], metavar="KEY=VALUE",
                   help="backend constructor option (value parsed as JSON when it can be)")
    p.add_argument("--max-inflight", type=int)
    p.add_argument("--queue-size", type=int)
    p.add_argument("--deadline-s", dest="request_deadline_s", type=float)
    p.add_argument("--token", dest="auth_token", help="require this bearer token on /v1")
    p.add_argument("--no-self-test", dest="self_test", action="store_const", const=False)
    p.add_argument("--log-level")
    p.add_argument("--port-file", help="write the bound port here once listening (tests)")


def _submit_parser(sub) -> None:
    p = sub.add_parser("submit", help="judge one source file against a problem")
    p.add_argument("file")
    p.add_argument("--problem", required=True)
    p.add_argument("--language", help="default: from the file extension")
    p.add_argument("--url", default="http://127.0.0.1:8080")
    p.add_argument("--token")
    p.add_argument("--stop-on-first-failure", action="store_true")
    p.add_argument("--reward", choices=["all_pass", "fraction", "points"], default="all_pass")
    p.add_argument("--json", action="store_true", help="print the full JSON response")


def _backend_options(pairs: list[str]) -> dict:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"--backend-option expects KEY=VALUE, got {pair!r}")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


async def serve(config: VerifierConfig, port_file: str | None = None) -> None:
    """Run until SIGTERM/SIGINT, then stop accepting, finish in-flight requests, close."""
    from aiohttp import web

    from verifier.app import HANDLERS_KEY, create_app
    from verifier.wiring import build_service

    service = build_service(config)
    try:
        await service.start()
    except Exception as exc:  # noqa: BLE001 - reported in one line; the orchestrator restarts us
        log.error("sandbox backend failed to start: %s", exc, exc_info=True)
        raise SystemExit(3) from None
    app = create_app(service, manage_service=False)
    runner = web.AppRunner(app, handler_cancellation=True, access_log=None,
                           shutdown_timeout=config.shutdown_grace_s)
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port)
    await site.start()
    port = runner.addresses[0][1]
    log.info("listening", extra={"fields": {"host": config.host, "port": port,
                                             "backend": config.backend, "store": config.store_uri}})
    if port_file:
        Path(port_file).write_text(str(port))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    log.info("shutting down: finishing in-flight requests",
             extra={"fields": {"inflight": service.admission.admitted}})
    app[HANDLERS_KEY].draining = True
    await runner.cleanup()  # stops listening, then waits up to shutdown_grace_s for handlers
    await service.close()
    log.info("stopped")


async def submit(args) -> int:
    from verifier.client import VerifierClient, VerifierError

    path = Path(args.file)
    language = args.language or _EXT_LANG.get(path.suffix)
    if language is None:
        print(f"cannot tell the language of {path.name}; pass --language", file=sys.stderr)
        return 2
    import aiohttp

    try:
        code = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        print(f"verifier submit: cannot read {path}: {exc}", file=sys.stderr)
        return 2
    # A command line should answer in seconds: two quick retries, then one clear line.
    async with VerifierClient(args.url, token=args.token, max_retries=2,
                              retry_budget_s=5.0) as client:
        try:
            r = await client.verify(args.problem, language, code,
                                    stop_on_first_failure=args.stop_on_first_failure,
                                    reward=args.reward)
        except VerifierError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except (aiohttp.ClientConnectionError, ConnectionError, asyncio.TimeoutError) as exc:
            print(f"verifier submit: cannot reach the verifier at {args.url} "
                  f"({type(exc).__name__}: {exc}); is `verifier serve` running there?",
                  file=sys.stderr)
            return 3
        except ValueError as exc:  # an invalid --url, or a request the schema refuses
            print(f"verifier submit: {exc}".splitlines()[0], file=sys.stderr)
            return 2
    if args.json:
        print(r.model_dump_json(indent=1))
    else:
        for t in r.tests:
            print(f"  {t.name:<12} {t.verdict.value:<8} {t.time_s:7.3f}s {t.memory_kb:>8} KiB  "
                  f"{t.message[:80]}")
        print(f"{r.verdict.value} reward={r.reward} ({r.problem_id}, {len(r.tests)} tests)")
        if r.message and r.verdict.value in ("CE", "IE"):
            print(r.message[:2000])
    return 0 if r.verdict.value == "AC" else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="verifier", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    _serve_parser(sub)
    _submit_parser(sub)
    args = parser.parse_args(argv)
    if args.cmd == "serve":
        overrides = {k: getattr(args, k) for k in (
            "host", "port", "store_uri", "backend", "max_inflight", "queue_size",
            "request_deadline_s", "auth_token", "self_test", "log_level")}
        if args.backend_option:
            overrides["backend_options"] = _backend_options(args.backend_option)
        try:
            config = VerifierConfig.load(args.config, overrides=overrides)
        except Exception as exc:  # noqa: BLE001 - a bad config is reported, not a traceback
            print(f"verifier serve: bad configuration: {exc}", file=sys.stderr)
            return 2
        from verifier.logs import setup_logging

        setup_logging(config.log_level)
        try:
            import uvloop
        except ImportError:  # pragma: no cover - uvloop is a dependency; asyncio still works
            asyncio.run(serve(config, args.port_file))
        else:
            uvloop.run(serve(config, args.port_file))
        return 0
    return asyncio.run(submit(args))


if __name__ == "__main__":
    sys.exit(main())
