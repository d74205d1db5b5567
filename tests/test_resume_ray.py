"""`mtt resume` on real Ray (issue 15, DESIGN.md "Failure model": the driver, the Ray head or
the machine dies): a whole `mtt run` (driver, deck service, Ray, every actor) is killed with
SIGKILL mid-run; `mtt resume --store` rebuilds the tournament from the store, voids the hands
in progress, restarts every table and plays to one winner; every chip and cent is accounted
for, the log before the crash is unchanged, and `mtt replay` finds nothing wrong."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from orchestrator.shell.store import open_store
from orchestrator.views.audit import audit_run, read_events

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

CONFIG = """
[tournament]
name = "lost"
players = 80
max_per_table = 8
starting_stack = 2000
buy_in = 100
fee = 10

[levels]
unit = "hands"
length = 6
blinds = [[10, 20], [25, 50], [50, 100], [100, 200]]
"""


def mtt(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orchestrator.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def session_processes(session: int) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if os.getsid(process.pid) == session:
                found.append(process)
        except (ProcessLookupError, PermissionError):
            continue
    return found


def kill_the_whole_run(run: subprocess.Popen[Any]) -> None:
    """SIGKILL to `mtt run`'s process group (driver, deck service, Ray and its workers), then
    to anything of its session that lives on (by pid), so no Ray process survives."""
    os.killpg(run.pid, signal.SIGKILL)
    run.wait(timeout=30)
    deadline = time.monotonic() + 30
    while left := session_processes(run.pid):
        for process in left:
            try:
                process.kill()
            except psutil.NoSuchProcess:
                continue
        assert time.monotonic() < deadline, f"still running: {left}"
        time.sleep(0.2)


def test_a_run_killed_whole_is_resumed_from_the_store_to_one_winner(tmp_path: Path) -> None:
    config, out = tmp_path / "lost.toml", tmp_path / "run"
    config.write_text(CONFIG)
    url = f"sqlite:///{tmp_path / 'store.db'}"
    command = ["run", str(config), "--seed", "13", "--out", str(out), "--store", url]
    with (tmp_path / "run.log").open("wb") as log:
        run = subprocess.Popen(
            [sys.executable, "-m", "orchestrator.cli.main", *command],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 300
        hands = 0
        while hands < 15:
            assert run.poll() is None, (tmp_path / "run.log").read_text()
            assert time.monotonic() < deadline, "no hands in the store"
            time.sleep(0.1)
            store = open_store(url)
            try:
                streams = store.tournaments()
                log_so_far = store.read(streams[0]) if streams else []
            finally:
                store.close()
            hands = sum(r["type"] == "hand_finished" for r in log_so_far)
    finally:
        kill_the_whole_run(run)
    store = open_store(url)
    (stream,) = store.tournaments()
    before = store.read(stream)
    store.close()
    assert not any(r["type"] == "tournament_finished" for r in before)
    assert stream.startswith("lost-13/")

    done = mtt("resume", "--store", url, "lost-13")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "wins lost-13/" in done.stdout and "80 of" not in done.stderr

    store = open_store(url)
    after = store.read(stream)
    assert store.owner(stream) is None  # released at the end
    store.close()
    assert after[: len(before)] == before  # the hands before the crash are as they were
    resumed = after[len(before) :]
    kinds = [r["type"] for r in resumed]
    assert kinds.count("tournament_finished") == 1
    open_tables = {r["table"] for r in before if r["type"] == "table_opened"} - {
        r["table"] for r in before if r["type"] == "table_closed"
    }
    restarted = {r["table"] for r in resumed if r["type"] == "table_restarted"}
    assert restarted == open_tables  # every table the crash left was restarted
    assert read_events(out / "events.jsonl") == after
    report = audit_run(out)
    assert not report.violations, "\n".join(map(str, report.violations))
    replay = mtt("replay", str(out))
    assert replay.returncode == 0 and replay.stdout.startswith("OK"), replay.stdout
    from_store = mtt("replay", "--store", url, "lost-13")
    assert from_store.returncode == 0, from_store.stdout + from_store.stderr
