"""`rl-loop`: train, prepare-model, eval, plot.

    rl-loop prepare-model [--tiny] [--out DIR]
    rl-loop train --config rl_loop/configs/demo_cpu.yaml [section.key=value ...]
    rl-loop sft --model DIR --store URI --solutions samples/stdio --out DIR
    rl-loop eval --model DIR --store URI [--split heldout] [--samples 4] [--k 1 --k 8] [--out A.json]
    rl-loop compare A.json B.json   # paired: same problems, same seeds
    rl-loop plot RUN_DIR
"""
from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
from pathlib import Path


def _train(args) -> int:
    from rl_loop.config import ConfigError, load_config
    from rl_loop.controller import run_training

    try:
        cfg = load_config(args.config, args.overrides)
    except ConfigError as exc:
        print(f"rl-loop: {exc}", file=sys.stderr)
        return 2
    # SIGTERM (a scheduler stopping the job) unwinds like Ctrl-C, so the controller's
    # shutdown runs: trainer group stopped, engines stopped, weight files removed.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        summary = asyncio.run(run_training(cfg))
    except KeyboardInterrupt:
        print("rl-loop: stopped; resume with the same command", file=sys.stderr)
        return 130
    print(json.dumps({k: v for k, v in summary.items() if not k.startswith("probe")}, indent=2, default=str))
    return 0


def _trainer_node(args) -> int:
    from rl_loop.config import ConfigError, load_config
    from rl_loop.launch import run_trainer_node

    try:
        cfg = load_config(args.config, args.overrides)
    except ConfigError as exc:
        print(f"rl-loop: {exc}", file=sys.stderr)
        return 2
    return run_trainer_node(cfg)


def _prepare(args) -> int:
    from rl_loop import models

    if args.tiny:
        out = models.prepare_tiny(Path(args.out or models.DEFAULT_MODELS_DIR / models.TINY_DIRNAME), force=args.force)
    else:
        out = models.prepare_smollm2(Path(args.out or models.DEFAULT_MODELS_DIR / models.SMOLLM2_DIRNAME),
                                     force=args.force)
    print(out)
    return 0


def _eval(args) -> int:
    from rl_loop.eval_stats import format_table
    from rl_loop.evaluate import evaluate

    ks = tuple(sorted(set([1, *(args.k or [])])))
    bad = [k for k in ks if k > args.samples]
    if bad:
        print(f"rl-loop eval: pass@k needs k <= --samples ({args.samples}); got k={bad}", file=sys.stderr)
        return 2
    res = asyncio.run(evaluate(args.model, args.store, split=args.split, samples=args.samples,
                               max_new_tokens=args.max_new_tokens, difficulty=args.difficulty,
                               temperature=args.temperature, seed=args.seed, weights=args.weights, ks=ks))
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2))
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print(format_table({**res["summary"], "table": res["table"]}, ks))
    return 0


def _compare(args) -> int:
    from rl_loop.eval_stats import paired_comparison

    a, b = (json.loads(Path(p).read_text()) for p in (args.a, args.b))
    keys = ("split", "samples", "seed", "temperature", "max_new_tokens")
    differ = [k for k in keys if a.get(k) != b.get(k)]
    if differ:
        print(f"rl-loop compare: the evaluations are not paired; they differ in {differ}", file=sys.stderr)
        return 2
    try:
        res = paired_comparison(a["rewards"], b["rewards"], n_boot=args.boot, seed=a.get("seed", 0))
    except (KeyError, ValueError) as exc:
        print(f"rl-loop compare: {exc}", file=sys.stderr)
        return 2
    res["a"], res["b"] = args.a, args.b
    if args.out:
        Path(args.out).write_text(json.dumps(res, indent=2))
    print(json.dumps({k: v for k, v in res.items() if k != "per_problem"}, indent=2))
    return 0


def _sft(args) -> int:
    from transformers import AutoTokenizer

    from rl_loop.sft import collect_examples, fine_tune

    tok = AutoTokenizer.from_pretrained(args.model)
    try:
        examples, skipped = collect_examples(
            tok, args.store, [Path(d) for d in args.solutions], split=args.split,
            difficulties=args.difficulty or None, language=args.language, max_tokens=args.max_tokens)
    except ValueError as exc:
        print(f"rl-loop sft: {exc}", file=sys.stderr)
        return 2
    for s in skipped:
        logging.getLogger("rl_loop.sft").warning("skipped %s", s)
    if not examples:
        print(f"rl-loop sft: no {args.split} problems in {args.store} with a reference solution", file=sys.stderr)
        return 2
    res = fine_tune(Path(args.model), examples, Path(args.out), epochs=args.epochs, lr=args.lr,
                    batch_size=args.batch_size, seed=args.seed)
    res["skipped"] = skipped
    print(json.dumps(res, indent=2))
    return 0


def _plot(args) -> int:
    from rl_loop import plot

    return plot.main([args.run_dir, *args.rest]) or 0


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    p = argparse.ArgumentParser(prog="rl-loop", description="Async RL on code/math problems with the verifier.")
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("train", help="run (or resume) an RL job")
    t.add_argument("--config", required=True, help="YAML config (see rl_loop/configs/)")
    t.add_argument("overrides", nargs="*", help="section.key=value overrides")
    t.set_defaults(fn=_train)
    tn = sub.add_parser("trainer-node", help="this node's trainer ranks of a multi-node job (distributed.nnodes > 1)")
    tn.add_argument("--config", required=True, help="the job's YAML config (the same file on every node)")
    tn.add_argument("overrides", nargs="*", help="section.key=value overrides, e.g. distributed.node_rank=1")
    tn.set_defaults(fn=_trainer_node)
    m = sub.add_parser("prepare-model", help="build models/SmolLM2-135M-Instruct (or --tiny) as an HF dir")
    m.add_argument("--tiny", action="store_true", help="the tiny random Llama for tests")
    m.add_argument("--out", help="output directory")
    m.add_argument("--force", action="store_true")
    m.set_defaults(fn=_prepare)
    e = sub.add_parser("eval", help="pass@1 of a model on a split of the store")
    e.add_argument("--model", required=True)
    e.add_argument("--weights", help="safetensors file to load into the engine first (e.g. a checkpoint's)")
    e.add_argument("--store", required=True)
    e.add_argument("--split", default="heldout")
    e.add_argument("--difficulty", default=None)
    e.add_argument("--samples", type=int, default=4, help="samples per problem (pass@1 = mean reward)")
    e.add_argument("--max-new-tokens", type=int, default=384)
    e.add_argument("--temperature", type=float, default=1.0)
    e.add_argument("--seed", type=int, default=0)
    e.add_argument("--k", type=int, action="append", help="also report unbiased pass@k (repeatable; k <= samples)")
    e.add_argument("--json", action="store_true", help="print the whole JSON result instead of the table")
    e.add_argument("--out", help="write the JSON result here (input of `rl-loop compare`)")
    e.set_defaults(fn=_eval)
    c = sub.add_parser("compare", help="paired comparison of two `rl-loop eval --out` results (B - A)")
    c.add_argument("a")
    c.add_argument("b")
    c.add_argument("--boot", type=int, default=10_000, help="bootstrap resamples")
    c.add_argument("--out", help="write the JSON result here too")
    c.set_defaults(fn=_compare)
    s = sub.add_parser("sft", help="supervised warm start on the train split's reference solutions")
    s.add_argument("--model", required=True, help="base model directory")
    s.add_argument("--store", required=True, help="problem store URI (problems and their split)")
    s.add_argument("--solutions", action="append", required=True,
                   help="samples directory in the own format (DIR/<id>/solutions/ref.py); repeatable")
    s.add_argument("--out", required=True, help="output model directory (written atomically)")
    s.add_argument("--split", default="train")
    s.add_argument("--difficulty", action="append", help="only these difficulties (repeatable; default all)")
    s.add_argument("--language", default="python")
    s.add_argument("--epochs", type=int, default=2)
    s.add_argument("--lr", type=float, default=2e-5)
    s.add_argument("--batch-size", type=int, default=4)
    s.add_argument("--max-tokens", type=int, default=1536, help="longest prompt + solution, tokens")
    s.add_argument("--seed", type=int, default=0)
    s.set_defaults(fn=_sft)
    pl = sub.add_parser("plot", help="plot a run's metrics")
    pl.add_argument("run_dir")
    pl.add_argument("rest", nargs=argparse.REMAINDER)
    pl.set_defaults(fn=_plot)
    args = p.parse_args(argv)
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
