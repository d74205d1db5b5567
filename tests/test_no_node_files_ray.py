"""DESIGN.md "Stores: the store is the record": no actor writes a tournament's data to its own
node's disk (on a cluster a node's disk is a pod's scratch space); hand histories travel in
the reports and the orchestrator commits them to the store with the hands' events.

A run on a 3-node cluster simulated on this machine (`mtt run --nodes 3`) is watched from
outside while it plays: every Ray worker process's open files are sampled (psutil, from
/proc/<pid>/fd), and the run's folder itself. Nothing under the folder is ever open in a worker,
for writing or at all, and the folder stays empty until the driver exports the store into it
when the run ends; then it is complete: the audit (chips, places, every hand replayed in
pokerkit, decks, ledger) finds nothing missing. The store lives where `--store` says, outside
the run's folder: it is the record, the folder its export."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from orchestrator.core.config_toml import parse_config
from orchestrator.shell.driver import RunOptions, run_tournament
from orchestrator.views.audit import audit_run, read_events, read_hand_files

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("ray")]

CONFIG = {
    "tournament": {
        "name": "nofiles",
        "players": 30,
        "max_per_table": 6,
        # Deep stacks and long levels, to be watched over several of the driver's polls (0.5 s
        # apart): a 1,500-chip field at 5-hand levels was sometimes played out in under two.
        "starting_stack": 6000,
        "buy_in": 100,
    },
    "levels": {"unit": "hands", "length": 20, "blinds": [[10, 20], [25, 50], [50, 100]]},
}


def ray_workers() -> Iterator[tuple[psutil.Process, str]]:
    """Every Ray worker process on this machine (every node's), with its title: Ray names a
    worker `ray::<Actor>` (`ray::Table.run`, `ray::Orchestrator...`) once it hosts one."""
    for proc in psutil.process_iter(["cmdline"]):
        title = " ".join(proc.info["cmdline"] or ())
        if "ray::" in title or "default_worker.py" in title:
            yield proc, title


@dataclass
class Watch:
    """What the sampler saw: files under the run folder open in a worker, titles of the
    workers it looked into, how many rounds it made."""

    folder: Path
    opened: list[tuple[str, str, str]] = field(default_factory=list)  # (title, path, mode)
    titles: set[str] = field(default_factory=set)
    rounds: int = 0
    stop: threading.Event = field(default_factory=threading.Event)

    def run(self) -> None:
        folder = str(self.folder.resolve())
        while not self.stop.wait(0.02):
            for proc, title in ray_workers():
                try:
                    files = proc.open_files()
                except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
                    continue
                self.titles.add(title.split()[0])
                self.opened += [(title, f.path, f.mode) for f in files if f.path.startswith(folder)]
            self.rounds += 1


def test_no_ray_worker_opens_a_file_under_the_run_folder_and_the_files_are_complete(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    store = f"sqlite:///{tmp_path / 'store.db'}"
    watch = Watch(out)
    sampler = threading.Thread(target=watch.run, daemon=True)
    during: list[list[str]] = []

    def look_at_the_folder(status: dict[str, Any]) -> None:
        during.append(sorted(str(p.relative_to(out)) for p in out.rglob("*")))

    sampler.start()
    try:
        summary = run_tournament(
            parse_config(CONFIG),
            RunOptions(out=out, seed=7, nodes=3, store=store, ray_logs=False),
            progress=look_at_the_folder,
        )
    finally:
        watch.stop.set()
        sampler.join()

    # While it played: watched, and nothing of the run's folder open in any worker.
    assert watch.rounds >= 10 and len(during) >= 3
    assert any("Table" in t for t in watch.titles), watch.titles
    assert any("Orchestrator" in t for t in watch.titles), watch.titles
    assert watch.opened == [], watch.opened[:5]
    assert all(listing == [] for listing in during), during
    # Afterwards: the folder is the store's export, complete.
    assert (out / "events.jsonl").is_file() and (out / "results.json").is_file()
    report = audit_run(out)
    assert not report.violations, "\n".join(map(str, report.violations))
    events = read_events(out / "events.jsonl")
    finished = [e for e in events if e["type"] == "hand_finished"]
    assert len(read_hand_files(out / "hands")) == len(finished) == summary.hands > 0
    assert not (out / "store.db").exists()
