"""Hidden tests stay hidden: no response of verify, batch or check carries a hidden test's
input or answer, whatever the submission does.

Oracle: every hidden input and answer is a fresh random token (so finding it as a substring
of a response body can only mean it leaked), and the search runs over the raw JSON bytes of
every response, so a new response field cannot slip past it. Candidates play the answer-
collection attack (print garbage and read the expected value from the message), echo their
input on stdout and stderr, crash with it in a traceback, and trigger a checker FAIL whose
text quotes the answer. Sample tests are public: their messages must still come back in full
(otherwise the check would pass by returning nothing), as must hidden ones for the opt-ins.
"""

from __future__ import annotations

import json
import secrets

import pytest
from aiohttp.test_utils import TestClient, TestServer

from problem_store.manifest import (BuiltinChecker, CustomChecker, FunctionProblem, FunctionTest,
                                    MathProblem, StdioProblem, TestCase)
from problem_store.problems import ProblemStore
from tests.verifier.conftest import make_config
from verifier.app import create_app
from verifier.service import VerifierService

# A custom checker that quotes the jury answer in every message, FAIL included.
QUOTING_CHECKER = """
import sys
inp, out, ans = (open(p).read().split() for p in sys.argv[1:4])
if out == ["FAIL"]:
    print("jury answer", ans, "contradicts input", inp, file=sys.stderr); sys.exit(3)
if out != ans:
    print("expected", ans, "found", out, "on input", inp, file=sys.stderr); sys.exit(1)
print("ok", ans, file=sys.stderr)
"""

CANDIDATES = {
    "garbage": "print('garbage')\n",
    "echo": "import sys\nd = sys.stdin.read()\nprint(d)\nprint(d, file=sys.stderr)\n",
    "echo-crash": "import sys\nd = sys.stdin.read()\nprint(d)\nraise SystemExit('boom ' + d)\n",
    "fail": "print('FAIL')\n",
    "wrong-count": "print('x y z')\n",
}


def tok() -> str:
    return "h" + secrets.token_hex(10)


class Secrets:
    def __init__(self):
        self.hidden: list[str] = []  # every hidden input/answer token
        self.public: list[str] = []  # the sample's answer token


def build(blobs) -> tuple[Secrets, dict]:
    s = Secrets()
    ps = ProblemStore(blobs)
    put = lambda b: blobs.put(b)[0]  # noqa: E731
    tests, links = [], {}
    for i in range(6):
        inp, ans = tok(), tok()
        sample = i == 0
        (s.public if sample else s.hidden).extend([ans] if sample else [inp, ans])
        t = TestCase(name=f"t{i}", input=put(f"{inp}\n".encode()), answer=put(f"{ans}\n".encode()),
                     sample=sample)
        tests.append(t)
        links[t.name] = t
    for name, checker in (("leak-tokens", BuiltinChecker(name="tokens")),
                          ("leak-exact", BuiltinChecker(name="exact")),
                          ("leak-lines", BuiltinChecker(name="lines")),
                          ("leak-custom", CustomChecker(source=put(b"//"),
                                                        binary=put(QUOTING_CHECKER.encode())))):
        ps.put(StdioProblem(id=name, tests=tuple(tests), checker=checker))
    fn_tests = []
    for i in range(3):
        a, want = secrets.randbelow(10**6), tok()
        s.hidden.append(want)
        fn_tests.append(FunctionTest(name=f"f{i}", code=put(
            f"assert add({a}, 0) == {want!r}, 'expected ' + {want!r}\n".encode())))
    ps.put(FunctionProblem(id="leak-fn", entry_point="add", tests=tuple(fn_tests)))
    gold = str(10**9 + secrets.randbelow(10**9))
    s.hidden.append(gold)
    ps.put(MathProblem(id="leak-math", question="?", answer=gold))
    return s, links


def assert_no_hidden(body: bytes, sec: Secrets, where: str) -> None:
    text = body.decode()
    leaked = [h for h in sec.hidden if h in text]
    assert not leaked, f"{where}: hidden data in the response: {leaked} in {text[:800]}"


async def _client(blobs, backend, **cfg):
    svc = VerifierService(make_config(self_test=False, **cfg), backend, blobs)
    await svc.start()
    return svc, TestClient(TestServer(create_app(svc, manage_service=False), host="127.0.0.1"))


def _subs(problems=("leak-tokens", "leak-exact", "leak-lines", "leak-custom")):
    for pid in problems:
        for name, code in CANDIDATES.items():
            yield pid, name, {"problem_id": pid, "language": "python", "code": code}
    for code in ("def add(a, b):\n    return 'nope'\n",
                 "def add(a, b):\n    raise ValueError('x')\n",
                 "import sys\ndef add(a, b):\n    print(open(sys.argv[0]).read(), file=sys.stderr)\n"
                 "    return a\n",
                 # Forge the harness's CE and jury statuses with every readable file on stderr.
                 *(f"import os, sys\nfor n in os.listdir('.'):\n"
                   f"    try: sys.stderr.write(open(n).read())\n    except Exception: pass\n"
                   f"os._exit({status})\n" for status in (101, 102, 103, 104)),
                 "def add(a, b) return 1\n"):
        yield "leak-fn", "fn", {"problem_id": "leak-fn", "language": "python", "code": code}
    for code in ("\\boxed{1}", "the answer is 3"):
        yield "leak-math", "math", {"problem_id": "leak-math", "language": "math", "code": code}


async def test_verify_and_batch_never_return_hidden_data(blobs, backend):
    sec, _ = build(blobs)
    svc, c = await _client(blobs, backend)
    async with c:
        subs = list(_subs())
        sample_messages = []
        for pid, name, body in subs:
            r = await c.post("/v1/verify", json=body)
            raw = await r.read()
            assert r.status == 200, raw
            assert_no_hidden(raw, sec, f"verify {pid} {name}")
            resp = json.loads(raw)
            assert resp["verdict"] != "AC"
            sample_messages += [t["message"] for t in resp["tests"] if t["name"] == "t0"]
        bodies = [b for *_, b in subs]
        for i in range(0, len(bodies), 6):  # within the test config's queue
            r = await c.post("/v1/verify/batch", json={"submissions": bodies[i:i + 6]})
            raw = await r.read()
            assert r.status == 200, raw
            assert_no_hidden(raw, sec, "batch")
    await svc.close()
    # The sample is public: the answer-quoting messages on it come back whole.
    assert any(sec.public[0] in m for m in sample_messages), sample_messages


async def test_check_never_returns_hidden_data(blobs, backend):
    sec, tests = build(blobs)
    custom = ProblemStore(blobs).get("leak-custom").checker.binary
    svc, c = await _client(blobs, backend)
    async with c:
        for name, code in CANDIDATES.items():
            ex = await c.post("/v1/execute", json={"language": "python", "code": code, "inputs": [
                {"name": t.name, "input": t.input} for t in tests.values()]})
            raw = await ex.read()
            assert ex.status == 200
            assert_no_hidden(raw, sec, f"execute {name}")
            runs = {r["name"]: r for r in json.loads(raw)["runs"]}
            items = [{"name": n, "input": t.input, "answer": t.answer,
                      "output": runs[n]["output"] or t.input} for n, t in tests.items()]
            for checker in ({"type": "builtin", "name": "tokens"}, {"type": "builtin", "name": "exact"},
                            {"type": "custom", "binary": custom}):
                r = await c.post("/v1/check", json={"checker": checker, "items": items})
                raw = await r.read()
                assert r.status == 200, raw
                assert_no_hidden(raw, sec, f"check {checker} {name}")
    await svc.close()


@pytest.mark.parametrize("how", ["deployment", "trusted-token", "problem"])
async def test_opt_ins_return_full_messages(blobs, backend, how):
    sec, _ = build(blobs)
    cfg = {"feedback": "all"} if how == "deployment" else (
        {"trusted_tokens": ["tt"], "auth_token": "plain"} if how == "trusted-token" else {})
    if how == "problem":
        ps = ProblemStore(blobs)
        ps.put(ps.get("leak-tokens").model_copy(update={"feedback": "all"}))
    svc, c = await _client(blobs, backend, **cfg)
    headers = {"Authorization": "Bearer tt"} if how == "trusted-token" else {}
    async with c:
        r = await c.post("/v1/verify", headers=headers, json={
            "problem_id": "leak-tokens", "language": "python", "code": "print('garbage')"})
        raw = (await r.read()).decode()
        assert r.status == 200 and sum(h in raw for h in sec.hidden) >= 5, raw
        if how == "trusted-token":  # the ordinary token of the same deployment stays redacted
            r = await c.post("/v1/verify", headers={"Authorization": "Bearer plain"}, json={
                "problem_id": "leak-tokens", "language": "python", "code": "print('garbage')"})
            assert r.status == 200
            assert_no_hidden(await r.read(), sec, "plain token")
    await svc.close()


async def test_withheld_messages_reach_the_log(blobs, backend, caplog):
    sec, _ = build(blobs)
    svc, c = await _client(blobs, backend)
    async with c:
        with caplog.at_level("INFO", logger="verifier.redact"):
            r = await c.post("/v1/verify", json={"problem_id": "leak-custom", "language": "python",
                                                 "code": "print('FAIL')"})
            body = await r.json()
    await svc.close()
    assert body["verdict"] == "IE" and body["reward"] is None
    logged = " ".join(str(getattr(rec, "fields", "")) for rec in caplog.records)
    assert "jury answer" in logged  # operators keep the FAIL text, clients do not


async def test_function_syntax_error_keeps_a_useful_message(blobs, backend):
    build(blobs)
    svc, c = await _client(blobs, backend)
    async with c:
        r = await c.post("/v1/verify", json={"problem_id": "leak-fn", "language": "python",
                                             "code": "x = 1\ndef add(a, b) return 1\n"})
        body = await r.json()
    await svc.close()
    assert body["verdict"] == "CE" and body["reward"] == 0.0
    assert "SyntaxError" in body["message"] and "line 2" in body["message"], body["message"]
    assert body["compile"]["log"] == body["message"]


async def test_hidden_tests_carry_no_time_or_memory_side_channel(blobs, backend):
    """A red-team attack: allocate ord(input[0]) MiB and read the hidden input back, a byte per
    test, from memory_kb (or burn CPU for time_s). Hidden tests report neither; the sample
    keeps its figures (it is public)."""
    build(blobs)
    svc, c = await _client(blobs, backend)
    leak = ("import sys, time\nd = sys.stdin.read()\nb = bytearray(ord(d[1]) << 20)\n"
            "for i in range(0, len(b), 4096):\n    b[i] = 1\n"
            "t = time.process_time()\nwhile time.process_time() - t < ord(d[2]) / 2000:\n    pass\n"
            "print('x')\n")
    async with c:
        r = await c.post("/v1/verify", json={"problem_id": "leak-tokens", "language": "python",
                                             "code": leak})
        body = await r.json()
    await svc.close()
    tests = {t["name"]: t for t in body["tests"]}
    assert tests["t0"]["wall_time_s"] > 0  # the public sample keeps its figures
    for name, t in tests.items():
        if name != "t0":
            assert (t["memory_kb"], t["time_s"], t["wall_time_s"]) == (0, 0.0, 0.0), t
