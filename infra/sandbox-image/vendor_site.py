"""Copy installed Python distributions (and their requirements) into a directory.

The sandbox image runs Debian's /usr/bin/python3 (3.11, the same minor version as the
project's venv), and nothing can be pulled from a registry inside ``docker build``. So the
few pure/cp311 packages the image needs (pydantic for the runner's types, boto3 for the
Lambda handler) are copied from the interpreter that runs this script, file by file as
listed in each distribution's RECORD, into a directory the Dockerfile COPYs to
/opt/oubliette/site.

    python vendor_site.py DEST pydantic boto3
"""

from __future__ import annotations

import importlib.metadata as md
import re
import shutil
import sys
from pathlib import Path

from packaging.requirements import Requirement


def _requirement_names(dist: md.Distribution) -> list[str]:
    """Names of the requirements that apply here: markers (python_version, sys_platform,
    extras) are evaluated for this interpreter, which matches the image's python3."""
    names = []
    for spec in dist.requires or []:
        req = Requirement(spec)
        if req.marker is None or req.marker.evaluate({"extra": ""}):
            names.append(req.name)
    return names


def closure(names: list[str]) -> list[md.Distribution]:
    seen: dict[str, md.Distribution] = {}
    todo = list(names)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        dist = md.distribution(name)
        seen[key] = dist
        todo.extend(_requirement_names(dist))
    return [seen[k] for k in sorted(seen)]


def copy_dists(dest: Path, names: list[str]) -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for dist in closure(names):
        for rel in dist.files or []:
            parts = Path(rel).parts
            if parts and parts[0] == ".." or "__pycache__" in parts or rel.suffix == ".pyc":
                continue  # console scripts outside site-packages; bytecode is rebuilt
            src = Path(dist.locate_file(rel))
            if src.is_file():
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, out)
        copied.append(f"{dist.metadata['Name']}=={dist.version}")
    return copied


def main(argv: list[str]) -> int:
    if len(argv) < 1:
        print(__doc__, file=sys.stderr)
        return 2
    for line in copy_dists(Path(argv[0]), argv[1:]):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
