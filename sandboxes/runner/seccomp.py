"""A small seccomp denylist for untrusted runs (x86_64; stdlib + ctypes only).

Why: namespaces, uid and rlimits already stop the attacks the threat model lists; this
filter shrinks the *kernel* surface a run can reach: no new namespaces (an unprivileged
user namespace gives a process capabilities over fresh kernel objects, a common exploit
path), no mount/ptrace/bpf/perf/io_uring/userfaultfd/keyring/module calls, no move off
the core its slot is pinned to (sched_setaffinity), and no network sockets (socket() for
AF_INET/AF_INET6/AF_PACKET/AF_VSOCK: see below). Denied calls
fail with EPERM (clone3 with ENOSYS, so glibc falls back to clone, whose namespace flags
are checked); 32-bit (i386/x32) syscalls kill the process since their numbers differ.
Installed after PR_SET_NO_NEW_PRIVS, which lets an unprivileged process add a filter.

Format: classic BPF over ``struct seccomp_data {int nr; u32 arch; u64 ip; u64 args[6];}``.
"""

from __future__ import annotations

import ctypes
import errno
import platform
import struct

PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
RET_ALLOW = 0x7FFF0000
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
LD_W_ABS, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
CLONE_NS_FLAGS = (0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000
                  | 0x40000000)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET

# x86_64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl).
CLONE, CLONE3 = 56, 435
DENIED_X86_64 = {
    "ptrace": 101, "syslog": 103, "acct": 163, "mount": 165, "umount2": 166, "swapon": 167,
    "swapoff": 168, "reboot": 169, "pivot_root": 155, "chroot": 161, "init_module": 175,
    "delete_module": 176, "quotactl": 179, "kexec_load": 246, "add_key": 248,
    "request_key": 249, "keyctl": 250, "unshare": 272, "move_pages": 279,
    "perf_event_open": 298, "name_to_handle_at": 303, "open_by_handle_at": 304, "setns": 308,
    "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313, "kcmp": 312,
    "bpf": 321, "userfaultfd": 323, "kexec_file_load": 320, "io_uring_setup": 425,
    "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
    "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "mount_setattr": 442,
    # A slot's runs share the core it is pinned to (backends/cpu_pin.py); a run may not move
    # itself onto another slot's core (reading its affinity stays allowed).
    "sched_setaffinity": 203,
}


# -- no network sockets in a run (every backend) ---------------------------------------------
# socket() for AF_INET, AF_INET6, AF_PACKET and AF_VSOCK fails with EACCES (what socket(2)
# documents for a refused family); AF_UNIX and netlink stay (runtimes use them locally).
# io_uring, which can create sockets too, is denied above; socketpair() has no network families.
# Why, per backend:
# - Lambda: a function has no network namespace of its own, so a run would keep the
#   function's network (the internet, unless the deployment's VPC has no route; the
#   metadata and Runtime API endpoints in any case).
# - local and docker: a slot's network namespace (only ``lo``) lives for many runs, and TCP
#   leaves state in it that outlives every process of a run and that nothing resets:
#   connections in TIME_WAIT (60 s, listed in /proc/net/tcp) and the kernel's TCP metrics
#   cache (an entry per address pair for up to an hour, ``ip tcp_metrics``). A hostile review
#   stored a run's answers there, keyed by its input, as the addresses of loopback
#   connections (127.0.0.0/8: 24 bits a connection), and a later submission that never
#   added the numbers read them back and got AC on every test of A+B. Loopback traffic
#   also moved the slot-wide counters of /proc/net/dev and /proc/net/snmp. Without network
#   sockets a run can leave none of that behind.
SOCKET = 41
NETWORK_FAMILIES = {"AF_INET": 2, "AF_INET6": 10, "AF_PACKET": 17, "AF_VSOCK": 40}


def _socket_rule() -> list[tuple]:
    return [(JEQ, "socket", 0, SOCKET)]


def _socket_rule_tail() -> list[tuple]:
    rule: list[tuple] = [("label", "socket"), (LD_W_ABS, 0, 0, 16)]  # low 32 bits of args[0] (domain)
    rule += [(JEQ, "socket_deny", 0, fam) for fam in sorted(NETWORK_FAMILIES.values())]
    rule += [(RET, 0, 0, RET_ALLOW),
             ("label", "socket_deny"), (RET, 0, 0, RET_ERRNO | errno.EACCES)]
    return rule


def _ins(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k & 0xFFFFFFFF)


def build_filter() -> bytes:
    """The BPF program as bytes (sock_filter array), the network socket rule above included."""
    denied = sorted(DENIED_X86_64.values())
    prog: list[tuple] = [
        (LD_W_ABS, 0, 0, 4),                     # A = arch
        (JEQ, 1, 0, AUDIT_ARCH_X86_64),
        (RET, 0, 0, RET_KILL_PROCESS),
        (LD_W_ABS, 0, 0, 0),                     # A = nr
        (JGE, "kill", 0, X32_BIT),
        (JEQ, "clone", 0, CLONE),
        (JEQ, "enosys", 0, CLONE3),
    ]
    prog += _socket_rule()
    prog += [(JEQ, "deny", 0, nr) for nr in denied]
    # Every jump goes forward (classic BPF has no backward jumps).
    prog += [("label", "allow"), (RET, 0, 0, RET_ALLOW),
             ("label", "clone"), (LD_W_ABS, 0, 0, 16),  # low 32 bits of args[0] (flags)
             (JSET, "deny", 0, CLONE_NS_FLAGS),
             (RET, 0, 0, RET_ALLOW),
             ("label", "deny"), (RET, 0, 0, RET_ERRNO | errno.EPERM),
             ("label", "enosys"), (RET, 0, 0, RET_ERRNO | errno.ENOSYS),
             ("label", "kill"), (RET, 0, 0, RET_KILL_PROCESS)]
    prog += _socket_rule_tail()
    labels, pos = {}, 0
    for item in prog:
        if item[0] == "label":
            labels[item[1]] = pos
        else:
            pos += 1
    out, pos = [], 0
    for item in prog:
        if item[0] == "label":
            continue
        code, jt, jf, k = item
        if isinstance(jt, str):
            jt = labels[jt] - pos - 1
        if isinstance(jf, str):
            jf = labels[jf] - pos - 1
        if not (0 <= jt <= 255 and 0 <= jf <= 255):
            raise ValueError("seccomp jump out of range")
        out.append(_ins(code, jt, jf, k))
        pos += 1
    return b"".join(out)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_FILTER = build_filter() if platform.machine() == "x86_64" else b""
_FILTER_BUF = ctypes.create_string_buffer(_FILTER, len(_FILTER)) if _FILTER else None
_libc = ctypes.CDLL(None, use_errno=True)


def filter_hex() -> str:
    """The filter as hex, for the spawn shim's command line."""
    return _FILTER_HEX


_FILTER_HEX = _FILTER.hex()


def supported() -> bool:
    return bool(_FILTER)


def install() -> None:
    """Apply the filter to the calling thread (call in the child, after NO_NEW_PRIVS)."""
    if not _FILTER:
        return
    prog = _SockFprog(len(_FILTER) // 8, ctypes.cast(_FILTER_BUF, ctypes.c_void_p))
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_SECCOMP)")
