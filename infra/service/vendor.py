"""Copy the service's Python dependencies (with their requirement closure) into a directory.

Like infra/sandbox-image/vendor_site.py, but requirement markers are evaluated properly
(``python_version < "3.11"``, ``sys_platform == "win32"`` and extras are skipped), which the
service's larger dependency tree (aiohttp, boto3, sympy) needs. The image's /usr/bin/python3
is 3.11 like the venv this runs in, so compiled wheels (uvloop, pydantic-core) fit.

    python infra/service/vendor.py DEST aiohttp uvloop pydantic ...
"""

from __future__ import annotations

import importlib.metadata as md
import re
import shutil
import sys
from pathlib import Path

from packaging.requirements import Requirement


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
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is not None and not req.marker.evaluate({"extra": ""}):
                continue
            todo.append(req.name)
    return [seen[k] for k in sorted(seen)]


def copy_dists(dest: Path, names: list[str]) -> list[str]:
    dest.mkdir(parents=True, exist_ok=True)
    copied = []
    for dist in closure(names):
        for rel in dist.files or []:
            parts = Path(rel).parts
            if (parts and parts[0] == "..") or "__pycache__" in parts or rel.suffix == ".pyc":
                continue
            src = Path(dist.locate_file(rel))
            if src.is_file():
                out = dest / rel
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, out)
        copied.append(f"{dist.metadata['Name']}=={dist.version}")
    return copied


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("\n".join(copy_dists(Path(sys.argv[1]), sys.argv[2:])))
