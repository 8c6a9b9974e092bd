"""Content-addressed names for the sandbox images, and building them when missing.

Three images, each tagged with a hash of everything that goes into it, so a tag that
exists is a tag that is current and a rebuild happens exactly when an input changed:

- ``oubliette-sandbox-base:<h>``  Debian bookworm minbase + compilers, from a debootstrapped
  root filesystem (``infra/sandbox-image/base.sh``; about a minute; no registry needed).
  Inputs: base.sh, packages.txt.
- ``oubliette-sandbox:<h>``  base + this checkout's ``sandboxes/`` package + vendored
  pydantic (``infra/sandbox-image/Dockerfile``; seconds). The docker backend runs it.
- ``oubliette-lambda:<h>``  base + vendored pydantic/boto3 + problem_store's blob stores +
  ``sandboxes/`` (``infra/lambda/Dockerfile``; ~40 s the first time, seconds after a code
  change thanks to the layer cache). The lambda backend's function runs it.

Each is also tagged ``:latest``. Run ``python -m sandboxes.backends.docker_image --all``
(what ``infra/sandbox-image/build.sh`` does) to build them all.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import sandboxes

REPO_ROOT = Path(sandboxes.__file__).resolve().parent.parent
SANDBOX_DIR = REPO_ROOT / "infra" / "sandbox-image"
LAMBDA_DIR = REPO_ROOT / "infra" / "lambda"
BASE_REPO, SANDBOX_REPO, LAMBDA_REPO = "oubliette-sandbox-base", "oubliette-sandbox", "oubliette-lambda"
SANDBOX_SITE: list[str] = []  # the agent is stdlib only (sandboxes/runner/PROTOCOL.md)
LAMBDA_SITE = ["pydantic", "boto3"]  # the handler: typed batches, S3 store access
_TAG_LEN = 16


class ImageError(RuntimeError):
    """An image is missing and cannot be built from this checkout."""


def _hash_files(h: "hashlib._Hash", root: Path, paths: list[Path]) -> None:
    for p in sorted(paths):
        h.update(str(p.relative_to(root)).encode() + b"\0" + p.read_bytes() + b"\0")


def _package_files(name: str = "sandboxes") -> list[Path]:
    pkg = REPO_ROOT / name
    return [p for p in pkg.rglob("*") if p.is_file() and "__pycache__" not in p.parts
            and p.suffix not in (".pyc", ".pyo")]


def _site_versions(names: list[str]) -> str:
    import importlib.metadata as md
    return ",".join(f"{n}=={md.version(n)}" for n in names)


def base_tag() -> str:
    h = hashlib.sha256(b"base-v1\0")
    _hash_files(h, SANDBOX_DIR, [SANDBOX_DIR / "base.sh", SANDBOX_DIR / "packages.txt"])
    return h.hexdigest()[:_TAG_LEN]


def sandbox_tag() -> str:
    h = hashlib.sha256(b"sandbox-v1\0" + base_tag().encode() + _site_versions(SANDBOX_SITE).encode())
    _hash_files(h, SANDBOX_DIR, [SANDBOX_DIR / "Dockerfile", SANDBOX_DIR / "vendor_site.py"])
    _hash_files(h, REPO_ROOT, _package_files())
    return h.hexdigest()[:_TAG_LEN]


def _store_files() -> list[Path]:
    """The part of problem_store the handler imports (the blob stores), nothing else; the
    image gets an empty ``problem_store/__init__.py`` so the package's other imports stay out."""
    return [p for p in _package_files("problem_store/blobs") if p.suffix == ".py"]


def _lambda_inputs() -> list[Path]:
    return [p for p in LAMBDA_DIR.iterdir() if p.is_file() and p.name == "Dockerfile"]


def lambda_tag() -> str:
    h = hashlib.sha256(b"lambda-v3\0" + base_tag().encode() + _site_versions(LAMBDA_SITE).encode())
    _hash_files(h, LAMBDA_DIR, _lambda_inputs())
    _hash_files(h, REPO_ROOT, _store_files() + _package_files())
    return h.hexdigest()[:_TAG_LEN]


def _client():
    import docker
    return docker.from_env(timeout=600)


def _exists(client, ref: str) -> bool:
    import docker.errors
    try:
        client.images.get(ref)
        return True
    except docker.errors.ImageNotFound:
        return False


def _log(msg: str) -> None:
    print(f"[images] {msg}", file=sys.stderr, flush=True)


def ensure_base(client=None, build: bool = True) -> str:
    client = client or _client()
    ref = f"{BASE_REPO}:{base_tag()}"
    if not _exists(client, ref):
        if not build:
            raise ImageError(f"sandbox base image {ref} is missing: run infra/sandbox-image/build.sh")
        _log(f"building {ref} (debootstrap, about a minute)")
        subprocess.run(["bash", str(SANDBOX_DIR / "base.sh"), ref], check=True)
    client.images.get(ref).tag(BASE_REPO, "latest")
    return ref


def _build(client, context: Path, ref: str, buildargs: dict[str, str]) -> None:
    import docker.errors
    repo, tag = ref.split(":")
    try:
        client.images.build(path=str(context), tag=ref, buildargs=buildargs, rm=True,
                            forcerm=True, network_mode="none", labels={"org.oubliette.tag": tag})
    except docker.errors.BuildError as e:
        lines = "".join(str(x.get("stream", x.get("error", ""))) for x in e.build_log)
        raise ImageError(f"building {ref} failed: {e.msg}\n{lines[-3000:]}") from e
    client.images.get(ref).tag(repo, "latest")
    _prune(client, repo, keep=ref)


def _prune(client, repo: str, keep: str, min_age_s: float = 3600.0) -> None:
    """Drop this repo's older hash tags (every code change makes one). In-use ones stay, and
    so do those younger than an hour: a moto server started a moment ago may still name one."""
    import datetime as dt
    now = dt.datetime.now(dt.timezone.utc)
    for image in client.images.list(name=repo):
        created = dt.datetime.fromisoformat(image.attrs["Created"][:19]).replace(tzinfo=dt.timezone.utc)
        if (now - created).total_seconds() < min_age_s:
            continue
        for t in image.tags:
            if t.startswith(repo + ":") and t not in (keep, f"{repo}:latest"):
                try:
                    client.images.remove(t, noprune=False)
                except Exception:  # used by a running container, or already gone
                    pass


def _vendor(dest: Path, names: list[str]) -> None:
    subprocess.run([sys.executable, str(SANDBOX_DIR / "vendor_site.py"), str(dest), *names],
                   check=True, stdout=subprocess.DEVNULL)


def ensure_sandbox(client=None, build_base: bool = False, build: bool = True) -> str:
    """Return ``oubliette-sandbox:<tag>`` for this checkout, building the top layer if needed."""
    client = client or _client()
    ref = f"{SANDBOX_REPO}:{sandbox_tag()}"
    if _exists(client, ref):
        return ref
    if not build:
        raise ImageError(f"sandbox image {ref} is missing: run infra/sandbox-image/build.sh")
    base = ensure_base(client, build=build_base)
    _log(f"building {ref} from {base}")
    with tempfile.TemporaryDirectory(prefix="oubliette-ctx-") as tmp:
        ctx = Path(tmp)
        shutil.copy2(SANDBOX_DIR / "Dockerfile", ctx / "Dockerfile")
        shutil.copytree(REPO_ROOT / "sandboxes", ctx / "sandboxes",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _vendor(ctx / "site", SANDBOX_SITE)
        _build(client, ctx, ref, {"BASE_IMAGE": base})
    return ref


def ensure_lambda(client=None, build_base: bool = False) -> str:
    """Return ``oubliette-lambda:<tag>`` (the function's container image), building if needed."""
    client = client or _client()
    ref = f"{LAMBDA_REPO}:{lambda_tag()}"
    if _exists(client, ref):
        return ref
    base = ensure_base(client, build=build_base)
    _log(f"building {ref} from {base}")
    with tempfile.TemporaryDirectory(prefix="oubliette-ctx-") as tmp:
        ctx = Path(tmp)
        for p in _lambda_inputs():
            shutil.copy2(p, ctx / p.name)
        for p in _store_files():
            out = ctx / p.relative_to(REPO_ROOT)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, out)
        (ctx / "problem_store" / "__init__.py").write_text(
            '"""Only the blob stores of problem_store, for the Lambda handler."""\n')
        shutil.copytree(REPO_ROOT / "sandboxes", ctx / "sandboxes",
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _vendor(ctx / "site", LAMBDA_SITE)
        _build(client, ctx, ref, {"BASE_IMAGE": base})
    return ref


def ensure_busybox() -> None:
    """``busybox:latest`` for moto's Lambda emulation (imported from Debian's busybox-static)."""
    subprocess.run(["bash", str(SANDBOX_DIR / "busybox.sh")], check=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="Build the sandbox images (skipped when current).")
    ap.add_argument("--lambda", dest="with_lambda", action="store_true", help="also the Lambda image")
    ap.add_argument("--print-tags", action="store_true", help="print the expected refs and exit")
    args = ap.parse_args(argv)
    if args.print_tags:
        print(f"{BASE_REPO}:{base_tag()}\n{SANDBOX_REPO}:{sandbox_tag()}\n{LAMBDA_REPO}:{lambda_tag()}")
        return 0
    try:
        print(ensure_sandbox(build_base=True))
        if args.with_lambda:
            ensure_busybox()
            print(ensure_lambda())
    except (ImageError, subprocess.CalledProcessError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
