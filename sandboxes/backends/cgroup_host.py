"""The host side of per-run cgroups: find the hierarchies, make a subtree per slot, delegate it.

A backend that is root on the host (local, docker) calls ``CgroupTree.create()`` once:
it finds where this process sits in each hierarchy (``/proc/self/cgroup`` +
``/proc/self/mountinfo``) and makes ``oubliette-<pid>-<n>`` below it: in the unified v2
hierarchy when it has the memory and pids controllers for us, else in the v1
``pids``, ``cpuacct`` and ``memory`` hierarchies (no freezer: a kill stops forks with
``pids.max`` 0). Each slot or container gets ``slot-<i>`` below that (``slot()``); the runner
agent creates and removes one group per run inside its slot (``sandboxes.runner.cgroup``).

Where no cgroup can be made (no hierarchy, read-only, not root) ``create()`` returns None
and ``reason`` says why; the backend then reports ``accounting: rlimit`` and runs with
the rlimit fallback, visibly, never as if it had cgroups.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
from dataclasses import dataclass

from sandboxes.runner.cgroup import V1_CONTROLLERS, CgroupDirs, kill_v1, kill_v2, rmdir_retry

log = logging.getLogger(__name__)
_V1_REQUIRED = ("cpuacct", "memory", "pids")
_counter = itertools.count()


def _mounts(controllers=V1_CONTROLLERS) -> dict[str, str]:
    """Controller (or 'unified') -> mount point of its hierarchy root."""
    out = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if len(rfields) < 3 or fields[3] != "/":
                continue  # a bind of a sub-dir (a container's view): not a hierarchy root
            fstype, opts = rfields[0], rfields[2].split(",")
            if fstype == "cgroup2":
                out.setdefault("unified", fields[4])
            elif fstype == "cgroup":
                for c in controllers:
                    if c in opts:
                        out.setdefault(c, fields[4])
    return out


def _all_mounts() -> list[str]:
    """Mount points of every cgroup hierarchy (v1 named ones and v2 included), at their roots."""
    out = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            fields, rfields = left.split(), right.split()
            if rfields and rfields[0] in ("cgroup", "cgroup2") and fields[3] == "/":
                out.append(fields[4])
    return out


def _own_paths() -> dict[str, str]:
    """Controller (or 'unified') -> this process's cgroup path in that hierarchy."""
    out = {}
    with open("/proc/self/cgroup") as f:
        for line in f:
            _, ctrls, path = line.rstrip("\n").split(":", 2)
            if ctrls == "":
                out["unified"] = path
            for c in ctrls.split(","):
                out[c] = path
    return out


def own_dir(controller: str) -> tuple[int, str] | None:
    """(version, dir) of the group this process sits in for ``controller`` (e.g. ``cpu``):
    its v1 hierarchy if one is mounted, else the unified v2 one; None where neither is."""
    mounts, own = _mounts((controller,)), _own_paths()
    if controller in mounts and controller in own:
        return 1, os.path.join(mounts[controller], own[controller].lstrip("/"))
    if "unified" in mounts and "unified" in own:
        return 2, os.path.join(mounts["unified"], own["unified"].lstrip("/"))
    return None


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


@dataclass
class CgroupTree:
    """This backend's subtree: ``base`` dirs, one per controller key (or one v2 dir)."""

    version: int
    base: dict

    @classmethod
    def create(cls, prefix: str = "oubliette", *, at_root: bool = False) -> "CgroupTree | None":
        """``at_root``: below each hierarchy's root instead of our own group, so the base has
        the same path in every hierarchy (what ``docker --cgroup-parent`` needs)."""
        cls.reason = ""
        if os.geteuid() != 0:
            cls.reason = "not root: cannot create cgroups"
            return None
        try:
            mounts, own = _mounts(), _own_paths()
            if at_root:
                own = {k: "/" for k in own}
        except OSError as exc:
            cls.reason = f"cannot read /proc/self/cgroup or mountinfo: {exc}"
            return None
        sweep_dead([os.path.join(m, own.get(c, "/").lstrip("/")) for c, m in mounts.items()]
                   + _all_mounts())
        name = f"{prefix}-{os.getpid()}-{next(_counter)}"
        errors = []
        if "unified" in mounts and "unified" in own:
            tree = cls._try_v2(os.path.join(mounts["unified"], own["unified"].lstrip("/")), name, errors)
            if tree is not None:
                return tree
        if all(c in mounts and c in own for c in _V1_REQUIRED):
            tree = cls._try_v1(mounts, own, name, errors)
            if tree is not None:
                return tree
        else:
            errors.append("v1: no cpuacct+memory+pids hierarchies mounted")
        cls.reason = "; ".join(errors)
        return None

    @classmethod
    def _try_v2(cls, own_dir: str, name: str, errors: list) -> "CgroupTree | None":
        try:
            have = set(open(os.path.join(own_dir, "cgroup.controllers")).read().split())
        except OSError as exc:
            errors.append(f"v2: {exc}")
            return None
        if not {"memory", "pids"} <= have:
            errors.append(f"v2: controllers {sorted(have)} lack memory/pids")
            return None
        base = os.path.join(own_dir, name)
        try:
            _enable_for_children(own_dir)
            os.mkdir(base, 0o755)
            _write(os.path.join(base, "cgroup.subtree_control"), "+memory +pids")
        except OSError as exc:
            errors.append(f"v2: cannot delegate under {own_dir}: {exc}")
            try:
                os.rmdir(base)
            except OSError:
                pass
            return None
        return cls(2, {"unified": base})

    @classmethod
    def _try_v1(cls, mounts: dict, own: dict, name: str, errors: list) -> "CgroupTree | None":
        base = {}
        try:
            for c in V1_CONTROLLERS:
                if c in mounts and c in own:
                    path = os.path.join(mounts[c], own[c].lstrip("/"), name)
                    os.mkdir(path, 0o755)
                    base[c] = path
            return cls(1, base)
        except OSError as exc:
            errors.append(f"v1: {exc}")
            for path in base.values():
                try:
                    os.rmdir(path)
                except OSError:
                    pass
            return None

    @property
    def label(self) -> str:
        return f"cgroup-v{self.version}"

    @property
    def name(self) -> str:
        return os.path.basename(next(iter(self.base.values())))

    def slot(self, name: str, *, memory_bytes: int | None = None, max_pids: int | None = None) -> CgroupDirs:
        """Make (or empty) ``name`` below the base; optional limits cover all it holds."""
        dirs = {}
        for key, base in self.base.items():
            path = os.path.join(base, name)
            if os.path.isdir(path):
                self.remove_slot(name)
            os.mkdir(path, 0o755)
            dirs[key] = path
        if self.version == 2:
            _write(os.path.join(dirs["unified"], "cgroup.subtree_control"), "+memory +pids")
            if memory_bytes:
                _write(os.path.join(dirs["unified"], "memory.max"), str(memory_bytes))
            if max_pids:
                _write(os.path.join(dirs["unified"], "pids.max"), str(max_pids))
        else:
            if memory_bytes:
                _write(os.path.join(dirs["memory"], "memory.limit_in_bytes"), str(memory_bytes))
            if max_pids:
                _write(os.path.join(dirs["pids"], "pids.max"), str(max_pids))
        return CgroupDirs(self.version, dirs)

    def remove_slot(self, name: str) -> None:
        """Kill everything below ``name`` and remove its dirs, deepest first."""
        for base in self.base.values():
            _remove_tree(os.path.join(base, name), self.version)

    def close(self) -> None:
        for base in self.base.values():
            _remove_tree(base, self.version)
        if self.version == 1:
            # docker --cgroup-parent makes the parent path in every hierarchy (blkio,
            # devices, cpu, a hybrid host's v2 mount...), not only ours; remove those
            # copies too (empty by now).
            for mount in _all_mounts():
                _remove_tree(os.path.join(mount, self.name), 1)


# subtrees made by a backend: oubliette-local-<pid>-<n>, oubliette-docker-<pid>-<ms>-<pid>-<n>
_OURS = re.compile(r"^oubliette-(?:local|docker)-(\d+)-")


def sweep_dead(parents: list[str]) -> int:
    """Remove subtrees left by services that died without closing (SIGKILL, a crash): their
    owner pid is gone and nothing runs in them any more. Only empty groups are removed
    (rmdir): a group that still holds a process is left alone, whoever owns it, so a live
    service whose pid we cannot see (another pid namespace) loses nothing. Returns the
    number of subtrees removed."""
    removed = 0
    for parent in dict.fromkeys(parents):
        try:
            names = os.listdir(parent)
        except OSError:
            continue
        for name in names:
            m = _OURS.match(name)
            if m is None or int(m.group(1)) == os.getpid() or os.path.exists(f"/proc/{m.group(1)}"):
                continue
            removed += _rmdir_empty_tree(os.path.join(parent, name))
    if removed:
        log.info("removed %d cgroup subtrees left by services that are gone", removed)
    return removed


def _rmdir_empty_tree(top: str) -> int:
    try:
        for root, dirs, _files in os.walk(top, topdown=False):
            for d in dirs:
                os.rmdir(os.path.join(root, d))
        os.rmdir(top)
        return 1
    except OSError:  # still holds a process (EBUSY) or already gone
        return 0


def _enable_for_children(own_dir: str) -> None:
    """Enable memory+pids for the children of our own v2 group.

    v2 refuses that (EBUSY) while the group itself holds processes ("no internal
    processes"), unless it is the root. Then we move this process into a leaf of its own
    first, the way a delegated service does; other processes in the group keep it EBUSY,
    and the caller reports why.
    """
    control = os.path.join(own_dir, "cgroup.subtree_control")
    try:
        _write(control, "+memory +pids")
        return
    except OSError as exc:
        if exc.errno != 16:  # EBUSY
            raise
    leaf = os.path.join(own_dir, f"oubliette-service-{os.getpid()}")
    os.makedirs(leaf, exist_ok=True)
    _write(os.path.join(leaf, "cgroup.procs"), str(os.getpid()))
    _write(control, "+memory +pids")


def _remove_tree(top: str, version: int) -> None:
    if not os.path.isdir(top):
        return
    for root, dirs, _files in os.walk(top, topdown=False):
        for d in dirs:
            _remove_one(os.path.join(root, d), version)
    _remove_one(top, version)


def _remove_one(path: str, version: int) -> None:
    try:
        if version == 2:
            kill_v2(path, 5.0)
        else:
            kill_v1({"pids": path}, 5.0)
        rmdir_retry(path, 5.0)
    except OSError as exc:
        log.warning("cannot remove cgroup %s: %s", path, exc)
