"""``verifier submit`` with a text answer file: a math problem needs no language."""

from __future__ import annotations

import argparse

from verifier import cli


def _args(path, url, **kw) -> argparse.Namespace:
    base = dict(file=str(path), problem="half-plus-third", language=None, url=url, token=None,
                stop_on_first_failure=False, reward="all_pass", json=False)
    base.update(kw)
    return argparse.Namespace(**base)


async def test_submit_a_text_answer_to_a_math_problem(client, tmp_path, capsys):
    url = str(client.server.make_url("")).rstrip("/")
    right = tmp_path / "answer.txt"
    right.write_text("Adding the fractions gives $\\boxed{\\frac{5}{6}}$.\n")
    assert await cli.submit(_args(right, url)) == 0
    out = capsys.readouterr().out
    assert "AC reward=1.0" in out and "\\frac{5}{6}" in out
    wrong = tmp_path / "wrong.md"
    wrong.write_text("The answer is 2/5.")
    assert await cli.submit(_args(wrong, url)) == 1
    assert "WA reward=0.0" in capsys.readouterr().out


async def test_submit_a_text_file_to_a_code_problem_asks_for_a_language(client, tmp_path, capsys):
    url = str(client.server.make_url("")).rstrip("/")
    f = tmp_path / "sol.txt"
    f.write_text("print(1)\n")
    assert await cli.submit(_args(f, url, problem="sum")) == 2
    assert "language" in capsys.readouterr().err
