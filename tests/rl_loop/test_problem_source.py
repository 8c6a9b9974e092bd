"""Prompts through the verifier's API: a job with a remote verifier needs only its URL.

A real `verifier serve` process on 127.0.0.1 over a store holding a stdio and a function
problem; the prompts rendered from `GET /v1/problems[/{id}]` must be the very prompts
rendered from the store, and the API must not be asked for anything it does not serve.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rl_loop.config import DataConfig
from rl_loop.problem_source import HttpSource, StoreSource
from rl_loop.rollouts import load_prompts
from tests.e2e.server import ServerProcess

REPO = Path(__file__).resolve().parents[2]


class Tok:
    def apply_chat_template(self, messages, tokenize=False, add_generation_prompt=True):
        return "\n".join(f"<{m['role']}>{m['content']}" for m in messages)

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) % 251 for c in text]}


@pytest.fixture(scope="module")
def served_store(tmp_path_factory):
    root = tmp_path_factory.mktemp("source")
    fn = next(p for p in sorted((REPO / "samples" / "function").iterdir()) if (p / "problem.yaml").is_file()
              and "split: train" in (p / "problem.yaml").read_text())
    for src in (REPO / "samples" / "stdio" / "sum-two", fn):
        shutil.copytree(src, root / "set" / src.name)
    store = root / "store"
    subprocess.run([sys.executable, "-m", "problem_store.cli", "--store", str(store), "upload", "--no-progress",
                    str(root / "set")], cwd=REPO, check=True, capture_output=True)
    server = ServerProcess(str(store)).start()
    try:
        yield str(store), server.url, fn.name
    finally:
        server.stop()


def test_prompts_from_the_api_equal_prompts_from_the_store(served_store):
    store, url, fn = served_store
    data = DataConfig(store_uri="file:///nonexistent", kinds=["stdio", "function"])
    via_api, skipped = load_prompts(data, Tok(), 100_000, HttpSource(url))
    assert not skipped
    via_store, _ = load_prompts(data.model_copy(update={"store_uri": store}), Tok(), 100_000, StoreSource(store))
    assert set(via_api) == {"sum-two", fn}
    for pid in via_api:
        assert via_api[pid].prompt_text == via_store[pid].prompt_text
        assert via_api[pid].kind == via_store[pid].kind


def test_unknown_problem_and_dead_verifier_are_clear_errors(served_store):
    _, url, _ = served_store
    with pytest.raises(ValueError, match="404"):
        HttpSource(url).get("no-such-problem")
    with pytest.raises(ConnectionError, match="not reachable"):
        HttpSource("http://127.0.0.1:9", timeout_s=5).list()
