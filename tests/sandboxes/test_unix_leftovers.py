"""The reset's wait for unix sockets a run left behind (reset.unix_sockets_left).

Oracle: the kernel's own socket list as ``ss -x`` prints it (when installed), beside
``unix_socket_uids``; a socket held by a live process of the uid must be reported, one
left only in flight must be freed by the collector the reset schedules.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time

import pytest

from sandboxes.runner import reset

UID = 61979


def _as_uid(fn) -> int:
    pid = os.fork()
    if pid == 0:
        try:
            os.setgid(UID)
            os.setuid(UID)
            fn()
        finally:
            os._exit(0)
    return pid


def test_socket_uids_match_the_kernel_list():
    if not shutil.which("ss"):
        pytest.skip("no ss to compare with")
    a, b = socket.socketpair()
    try:
        uids = reset.unix_socket_uids()
        listed = subprocess.run(["ss", "-xa"], capture_output=True, text=True).stdout.splitlines()[1:]
        assert os.geteuid() in uids and abs(len(uids) - len(listed)) <= 4, (len(uids), len(listed))
    finally:
        a.close()
        b.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run as another uid")
def test_in_flight_sockets_are_collected_and_live_ones_reported():
    def leave_in_flight():
        x, y = socket.socketpair()
        socket.send_fds(x, [b"x"], [x.fileno(), y.fileno()])
        x.detach()
        y.detach()

    _, status = os.waitpid(_as_uid(leave_in_flight), 0)
    assert status == 0
    assert reset.unix_socket_uids().count(UID) == 2, "the pair should be in flight now"
    assert reset.unix_sockets_left(UID) is None  # it schedules the collector itself
    assert reset.unix_socket_uids().count(UID) == 0

    r, w = os.pipe()

    def hold_one():
        os.close(w)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        os.read(r, 1)  # until the test closes its end
        s.close()

    pid = _as_uid(hold_one)
    os.close(r)
    try:
        deadline = time.monotonic() + 10
        while reset.unix_socket_uids().count(UID) == 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        left = reset.unix_sockets_left(UID, timeout_s=0.05)
        assert left and "1 unix socket" in left, left
    finally:
        os.close(w)
        os.waitpid(pid, 0)
