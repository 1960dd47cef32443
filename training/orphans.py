"""Worker processes that end with their parent.

A worker blocked on a pipe read only sees EOF when every copy of the pipe's other end is closed;
a parent killed with SIGKILL cannot close anything, and with the ``fork`` start method a worker
may itself hold copies of parent-side ends (its own, or its siblings'), so it would wait forever.
``exit_with_parent`` makes a worker end when its parent does, by two means:

* Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` - the kernel kills the worker the moment its parent
  exits (for whatever reason), even while it is stuck in C code;
* everywhere: a daemon thread that polls ``os.getppid()`` and ends the process once it changes
  (the worker was re-parented), for platforms without prctl.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

_PR_SET_PDEATHSIG = 1
#: how often the portable watchdog looks at the parent (seconds)
WATCH_INTERVAL = 0.5


def _set_parent_death_signal(sig: int) -> bool:
    """Ask the Linux kernel to send ``sig`` to this process when its parent exits; False where
    that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(parent_pid: int, interval: float) -> None:
    while True:
        if os.getppid() != parent_pid:
            os._exit(1)               # no cleanup: the parent that would collect the results is gone
        time.sleep(interval)


def parent_token() -> tuple[int, bool]:
    """What a parent passes to its worker for ``exit_with_parent``: its process id, and whether it
    starts the worker from its main thread (the kernel's death signal follows the starting
    *thread*, so a worker started from a short-lived thread relies on the watchdog alone)."""
    return os.getpid(), threading.current_thread() is threading.main_thread()


def exit_with_parent(token: tuple[int, bool], interval: float = WATCH_INTERVAL) -> None:
    """Call first thing in a worker process, with the parent's ``parent_token()``: the worker ends
    when the parent ends. If the parent died before this call the worker ends at once."""
    parent_pid, main_thread = token
    if main_thread:
        _set_parent_death_signal(signal.SIGKILL)
    # checked after prctl: a parent dying between the fork and the prctl sends no signal
    if os.getppid() != parent_pid:
        os._exit(1)
    threading.Thread(target=_watch, args=(parent_pid, interval), name="exit-with-parent", daemon=True).start()
