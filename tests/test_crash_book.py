"""The orchestrator's crash book (`shell.actor.CrashBook`): Ray restarts the orchestrator for
ever, but a failure that comes back on every rebuild with no step taken in between ends the run
after `CRASH_LOOP` crashes instead of looping."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.errors import RecoveryError
from orchestrator.shell.actor import CRASH_LOOP, CrashBook
from orchestrator.shell.store import open_store


def test_crashes_at_one_log_position_in_a_row_end_the_run(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    at = [40]
    book = CrashBook(store, "cup/run", at=lambda: at[0])
    try:
        for _ in range(CRASH_LOOP - 1):
            book.record("the tournament core failed in a step: KeyError(3)")
        book.check(40)  # one short of the loop: restarted again
        at[0] = 41  # a step was taken: the crash after it is a new story
        book.record("the event log refused a step: LogConflict()")
        book.check(41)
        for _ in range(CRASH_LOOP - 1):
            book.record("the event log refused a step: LogConflict()")
        with pytest.raises(
            RecoveryError, match=f"crashed {CRASH_LOOP} times at seq 41 .*LogConflict"
        ):
            book.check(41)
        book.check(42)  # the log went on (an SRE's kill never records a crash)
        assert store.tournaments() == []  # nothing registered: exports never see the book
    finally:
        store.close()


def test_a_crash_the_store_cannot_record_still_crashes(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    store.close()  # the store is what failed
    CrashBook(store, "cup/run", at=lambda: 1).record("the store went away")
