"""The real testlib.h and testlib's own stock checkers, fetched for the differential tests.

Nothing of testlib is committed to this repository: it comes from PyPI at setup/test time.
Source: the ``rbx.cp`` wheel (a problem-setting tool, Apache-2.0), which vendors testlib.h
0.9.44 (testlib's permissive notice kept in the file) and testlib's checkers wcmp, ncmp,
yesno and dcmp, unchanged. The wheel is pinned by version and sha256; the files are cached
under ``.data/testlib-reference/`` (or ``$OUBLIETTE_TESTLIB_REFERENCE``).

No registry we reach (PyPI, npm, Debian) ships the other stock checkers (lcmp, fcmp, nyesno,
rcmp4/6/9, hcmp, icmp, ...); for those the oracles are our own sources in
tests/verifier/stock_oracles/, compiled against this same real testlib.h.

    python -m tests.verifier.testlib_reference      # fetch now (scripts/setup.d runs this)
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

PACKAGE = "rbx.cp"
VERSION = "2.3.3"
WHEEL = "rbx_cp-2.3.3-py3-none-any.whl"
WHEEL_SHA256 = "630f573fa97b5911f9217a43f92a33768c623e1a71c8a20e601c1d12013f49fa"
TESTLIB_VERSION = "0.9.44"
_PREFIX = "rbx/resources/predownloaded/"
MEMBERS = {
    "testlib.h": _PREFIX + "testlib.h",
    "wcmp.cpp": _PREFIX + "checkers/wcmp.cpp",
    "ncmp.cpp": _PREFIX + "checkers/ncmp.cpp",
    "yesno.cpp": _PREFIX + "checkers/yesno.cpp",
    "dcmp.cpp": _PREFIX + "checkers/dcmp.cpp",
}
ROOT = Path(__file__).resolve().parents[2]


class ReferenceUnavailable(Exception):
    """The wheel could not be downloaded (no network to PyPI)."""


def cache_dir() -> Path:
    env = os.environ.get("OUBLIETTE_TESTLIB_REFERENCE")
    base = Path(env) if env else ROOT / ".data" / "testlib-reference"
    return base / f"{PACKAGE}-{VERSION}"


def ensure() -> Path:
    """The folder holding testlib.h and the stock checkers; fetched and verified once."""
    dest = cache_dir()
    stamp = dest / "wheel.sha256"
    if stamp.is_file() and stamp.read_text().strip() == WHEEL_SHA256 and \
            all((dest / name).is_file() for name in MEMBERS):
        return dest
    with tempfile.TemporaryDirectory(prefix="testlib-ref-") as tmp:
        cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
               "--disable-pip-version-check", "-q", "-d", tmp, f"{PACKAGE}=={VERSION}"]
        res = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
        wheel = Path(tmp) / WHEEL
        if res.returncode != 0 or not wheel.is_file():
            raise ReferenceUnavailable(f"pip download {PACKAGE}=={VERSION} failed: "
                                       f"{(res.stderr or res.stdout).strip()[-500:]}")
        digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
        if digest != WHEEL_SHA256:
            # A different file under a pinned name is an error, never a skip.
            raise RuntimeError(f"{WHEEL}: sha256 {digest}, expected {WHEEL_SHA256}")
        dest.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheel) as z:
            for name, member in MEMBERS.items():
                (dest / name).write_bytes(z.read(member))
        stamp.write_text(WHEEL_SHA256 + "\n")
    header = (dest / "testlib.h").read_text(errors="replace")
    if f'#define VERSION "{TESTLIB_VERSION}"' not in header:
        raise RuntimeError(f"{dest / 'testlib.h'} is not testlib {TESTLIB_VERSION}")
    return dest


if __name__ == "__main__":
    try:
        print(ensure())
    except ReferenceUnavailable as e:
        print(f"testlib reference not fetched: {e}", file=sys.stderr)
        sys.exit(1)
