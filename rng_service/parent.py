"""The deck service dies with the process that started it, however that one dies (Linux).

The parent names itself in `EXIT_WITH_PARENT` and the service, once started, asks the kernel
for SIGTERM when that parent goes (`prctl(PR_SET_PDEATHSIG)`). Done here, after the exec,
rather than in a `preexec_fn` between fork and exec: a parent running gRPC's threads may
leave a forked child unable to reach its exec (gRPC's fork handlers), and then the service
never starts; without a `preexec_fn` the child is spawned, not forked with Python in it."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

__all__ = ["EXIT_WITH_PARENT", "exit_with_parent"]

EXIT_WITH_PARENT = "MTT_EXIT_WITH_PARENT"  # the parent's pid
_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def exit_with_parent() -> None:
    """If a parent is named: SIGTERM when it dies, and exit now if it died already."""
    parent = os.environ.get(EXIT_WITH_PARENT)
    if not parent or not sys.platform.startswith("linux"):
        return
    ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != int(parent):  # the parent died before the call took effect
        sys.exit(1)
