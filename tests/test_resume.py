"""`mtt resume` before it starts anything (no Ray): what it refuses, and a run that was over
already. Resuming a run killed whole is `tests/test_resume_ray.py`."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from test_export import RUN, play

from orchestrator.errors import TournamentStateError
from orchestrator.shell.resume import ResumeOptions, resume_tournament
from orchestrator.shell.store import open_store
from orchestrator.views.audit import audit_run


def mtt(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orchestrator.cli.main", "resume", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


def test_a_run_that_was_over_gets_its_files_written_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    play(store, tmp_path / "run")
    store.close()
    done = mtt("--store", url, "cup-3", "--out", str(tmp_path / "again"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{RUN} was over already")
    report = audit_run(tmp_path / "again")
    assert not report.violations, "\n".join(map(str, report.violations))


def test_resume_refuses_a_log_with_a_gap_and_an_unknown_tournament(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    play(store, tmp_path / "run", hands=10)
    store.close()
    unknown = mtt("--store", url, "cup-9")
    assert unknown.returncode == 2 and "no tournament 'cup-9'" in unknown.stderr
    with sqlite3.connect(tmp_path / "store.db") as db:
        db.execute("DELETE FROM events WHERE tournament = ? AND seq = 70", (RUN,))
    done = mtt("--store", url, "cup-3")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"tournament '{RUN}' seq 70: missing" in done.stderr


def test_resume_refuses_a_tournament_whose_orchestrator_still_renews_its_lease(
    tmp_path: Path,
) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    play(store, tmp_path / "run", hands=10)
    assert store.acquire(RUN, "cup-3-orchestrator", 60.0)  # alive somewhere, renewing
    options = ResumeOptions(store=url, tournament="cup-3", lease_patience=0.5)
    with pytest.raises(TournamentStateError, match="keeps renewing its lease: the tournament"):
        resume_tournament(options)
    store.close()


def test_resume_leaves_a_front_door_tournament_to_the_front_door(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = open_store(url)
    play(store, tmp_path / "run", hands=4)
    store.register("cup-3.frontdoor", {"tournament": "cup-3"})
    store.close()
    done = mtt("--store", url, "cup-3")
    assert done.returncode == 1 and "restart `mtt serve` on this store" in done.stderr
