"""`mtt export` (issue 15, "the store is the tournament's only record"): a run's folder written
from the store keeps every DESIGN.md contract, and a store or a file that is broken is refused
with the tournament (or the file) and the place where it breaks, never a traceback. No Ray:
the tables are played here, as the orchestrator's shell drives them, into a SQLite store."""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from test_tournament_core import config
from tournament_checks import funds, open_logged, opened_tables

from orchestrator.core.events import TournamentOpened
from orchestrator.core.replay import step_rng
from orchestrator.errors import FolderInUse, StoreCorrupted, UnknownTournament, UnreadableRun
from orchestrator.shell.eventlog import event_time
from orchestrator.shell.export import (
    encode_line,
    export_run,
    find_run,
    read_log,
    rebuild_run,
)
from orchestrator.shell.store import Store, StoredHand, open_store
from orchestrator.views.audit import audit_run, read_hand_files
from rng_service.commit import commitment
from rng_service.deck import ServedDeck
from table_worker.bots import make_bot
from table_worker.engine import Hand, HandSetup
from table_worker.phh import phhs_section
from table_worker.protocol import HandPlayer, HandReport, NextHand
from table_worker.session import PlayedHand

RUN = "cup-3/0a1b2c"


def deal(spec: NextHand, rng: random.Random, serial: int) -> tuple[HandReport, str]:
    """One hand played by bots from a committed deck: its report and its `.phhs` section."""
    cards = bytes(rng.sample(range(52), 52))
    salt = rng.randbytes(32)
    deck = ServedDeck(cards, serial, commitment(cards, salt), salt)
    hand = Hand(HandSetup.of(spec), deck.cards)
    bot = make_bot("random", rng)
    while (seat := hand.actor) is not None:
        hand.act(seat, bot.decide(hand, hand.legal_actions()))
    names = {seat: player for seat, player, _ in spec.seats}
    end = hand.finishing_stacks()
    report = HandReport(
        spec.table,
        spec.hand,
        spec.blinds.button,
        tuple(HandPlayer(p, s, c, end[s]) for s, p, c in spec.seats),
    )
    return report, phhs_section(PlayedHand(spec.table, spec.hand, names, hand, deck=deck))


def play(
    store: Store, folder: Path, *, hands: int | None = None, void_every: int = 0
) -> list[dict[str, Any]]:
    """A run as the orchestrator's shell logs it, into `store` (stream RUN): registered, its
    opening snapshot, every step appended with the history of the hand it reports, as the
    orchestrator commits them. With `void_every`, every so many hands a table is lost mid-hand:
    its report never comes, so its history is never stored; the hand is voided and the table
    restarted. Stops after `hands` hands, else at the end."""
    cfg = config(players=20, max_per_table=6, buy_in=1000, fee=100)
    seed, rng = 3, random.Random(3)
    store.register(RUN, {"tournament": "cup-3", "run": "0a1b2c", "out": str(folder), "seed": 3})
    now = event_time(1_700_000_000.0)
    players = [f"p{k:02d}" for k in range(20)]
    opened = TournamentOpened(
        tournament="cup-3",
        config=cfg,
        players=tuple(players),
        deposits=funds(cfg, players),
        seed=seed,
    )
    tournament, log, ready = open_logged(store, RUN, opened, now=now)
    dealt = 0
    while ready and not tournament.finished and (hands is None or tournament.hands < hands):
        table = rng.choice(sorted(ready))
        directive = ready.pop(table)
        history: tuple[StoredHand, ...] = ()
        if directive.next_hand is None:
            step = tournament.poll(table, now=now, rng=step_rng(seed, log.seq))
        else:
            now += 1.0
            dealt += 1
            report, section = deal(directive.next_hand, rng, dealt)
            if void_every and dealt % void_every == 0:  # lost before its report
                log.append(tournament.table_lost(table), ts=now)
                step = tournament.table_restarted(table, node="n2")
            else:
                step = tournament.apply_hand(report, now=now, rng=step_rng(seed, log.seq))
                history = (StoredHand(table, report.hand, section),)
        log.append(step.events, ts=now, hands=history)
        assert step.reply is not None
        if not step.reply.close:
            ready[table] = step.reply
        ready.update(opened_tables(step))
    return store.read(RUN)


def mtt(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "orchestrator.cli.main", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture
def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'store.db'}"


def test_export_writes_the_runs_files_from_the_store_and_they_audit_clean(
    tmp_path: Path, url: str
) -> None:
    """events.jsonl is the store's log line for line; results.json comes from the core
    rebuilt from the store; hands/ holds every logged hand's history and none of the voided
    ones; the folder passes `mtt replay` as the run's own folder does."""
    store = open_store(url)
    log = play(store, tmp_path / "run", void_every=7)
    assert any(r["type"] == "hand_voided" for r in log)
    done = export_run(store, RUN, tmp_path / "export")
    store.close()
    out = tmp_path / "export"
    assert (out / "events.jsonl").read_text() == "".join(encode_line(r) for r in log)
    logged = [(r["table"], r["hand"]) for r in log if r["type"] == "hand_finished"]
    sections = read_hand_files(out / "hands")
    assert sorted((s.fields["table"], s.fields["hand"]) for s in sections) == sorted(logged)
    assert done.finished and done.complete and done.hands == len(logged) and not done.notes
    results = json.loads((out / "results.json").read_text())
    assert results["places"][0]["player"] == next(
        r["winner"] for r in log if r["type"] == "tournament_finished"
    )
    report = audit_run(out)
    assert not report.violations, "\n".join(map(str, report.violations))


def test_mtt_export_replay_and_report_take_the_store_and_a_tournament_id(
    tmp_path: Path, url: str
) -> None:
    store = open_store(url)
    play(store, tmp_path / "run")
    store.close()
    done = mtt("export", "--store", url, "cup-3", str(tmp_path / "export"))
    assert done.returncode == 0, done.stderr
    assert f"{RUN}: " in done.stdout and "(finished)" in done.stdout
    assert (tmp_path / "export" / "results.json").is_file()
    replay = mtt("replay", "--store", url, "cup-3")
    assert replay.returncode == 0, replay.stderr
    assert replay.stdout.splitlines()[-1].startswith("OK: 1 event(s)")
    report = mtt("report", "--store", url, "cup-3", "--out", str(tmp_path / "report"))
    assert report.returncode == 0, report.stderr
    assert (tmp_path / "report" / "report.html").is_file()
    unknown = mtt("export", "--store", url, "cup-4", str(tmp_path / "other"))
    assert unknown.returncode == 2
    assert unknown.stderr == "mtt export: no tournament 'cup-4' in the store (it holds cup-3)\n"
    missing = mtt("replay", "--store", f"sqlite:///{tmp_path / 'none.db'}", "cup-3")
    assert missing.returncode == 2 and "no such store file" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_a_tournament_id_names_its_newest_run(tmp_path: Path, url: str) -> None:
    store = open_store(url)
    for run, ts in (("old", 100.0), ("new", 300.0), ("mid", 200.0)):
        store.register(f"cup-3/{run}", {"tournament": "cup-3", "run": run})
        store.append(f"cup-3/{run}", [{"seq": 1, "ts": ts, "type": "x"}])
    store.register("cup-3-side1/new", {"tournament": "cup-3-side1", "run": "new"})
    assert find_run(store, "cup-3") == "cup-3/new"
    assert find_run(store, "cup-3/old") == "cup-3/old"
    with pytest.raises(UnknownTournament, match="no tournament 'cup' in the store"):
        find_run(store, "cup")
    store.close()


def test_a_log_with_a_gap_is_refused_naming_the_tournament_and_the_seq(
    tmp_path: Path, url: str
) -> None:
    store = open_store(url)
    play(store, tmp_path / "run", hands=10)
    store.close()
    with sqlite3.connect(tmp_path / "store.db") as db:
        db.execute("DELETE FROM events WHERE tournament = ? AND seq = 60", (RUN,))
    store = open_store(url)
    with pytest.raises(StoreCorrupted, match=r"seq 60: missing: the log goes from seq 59 to 61"):
        read_log(store, RUN)
    store.close()
    done = mtt("export", "--store", url, "cup-3", str(tmp_path / "export"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert f"tournament '{RUN}' seq 60" in done.stderr and "Traceback" not in done.stderr


def test_a_log_cut_before_its_snapshot_is_refused(tmp_path: Path, url: str) -> None:
    store = open_store(url)
    log = play(store, tmp_path / "run", hands=10)
    opening = store.load_snapshot(RUN)
    assert opening is not None
    store.close()
    with sqlite3.connect(tmp_path / "store.db") as db:  # a truncated copy of the store
        db.execute("DELETE FROM events WHERE tournament = ? AND seq > 5", (RUN,))
    store = open_store(url)
    with pytest.raises(StoreCorrupted, match="the log ends at seq 5 but its snapshot is at seq "):
        rebuild_run(store, RUN, read_log(store, RUN))
    store.close()
    assert len(log) > opening[0] > 5


def test_a_corrupted_sqlite_store_is_refused_naming_the_seq_where_it_breaks(
    tmp_path: Path, url: str
) -> None:
    store = open_store(url)
    log = play(store, tmp_path / "run")
    store.close()
    with sqlite3.connect(tmp_path / "store.db") as db:  # every page back in the main file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (root,) = db.execute("SELECT rootpage FROM sqlite_master WHERE name = 'events'").fetchone()
        (page_size,) = db.execute("PRAGMA page_size").fetchone()
        pages = [
            page
            for (page,) in db.execute(
                "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf'"
            )
        ]
    assert root and len(pages) > 3
    with open(tmp_path / "store.db", "r+b") as file:  # a leaf of the log, overwritten
        file.seek((pages[len(pages) // 2] - 1) * page_size + 16)
        file.write(b"\xff" * (page_size - 32))
    done = mtt("export", "--store", url, "cup-3", str(tmp_path / "export"))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"tournament '{RUN}' seq " in done.stderr and "Traceback" not in done.stderr
    seq = int(done.stderr.split(" seq ")[1].split(":")[0])
    assert 1 < seq < len(log)
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(os.urandom(8192))
    done = mtt("replay", "--store", f"sqlite:///{garbage}", "cup-3")
    assert done.returncode == 2 and str(garbage) in done.stderr and "Traceback" not in done.stderr


def test_export_refuses_a_folder_holding_another_runs_files_unless_forced(
    tmp_path: Path, url: str
) -> None:
    store = open_store(url)
    play(store, tmp_path / "run", hands=5)
    other = tmp_path / "other"
    (other / "hands").mkdir(parents=True)
    (other / "events.jsonl").write_text('{"seq":1,"ts":1.0,"type":"player_registered"}\n')
    with pytest.raises(FolderInUse, match="holds an earlier run's files"):
        export_run(store, RUN, other)
    assert export_run(store, RUN, other, force=True).events == len(store.read(RUN))
    # The run's own folder is written again, as is an earlier export of the same run.
    export_run(store, RUN, tmp_path / "run")
    export_run(store, RUN, other)
    store.close()


def test_mtt_replay_reads_an_empty_hand_file_and_names_where_a_torn_one_breaks(
    tmp_path: Path, url: str
) -> None:
    """Every crash-then-cancel folder has an empty `.phhs` (a table restarted after dealing
    nothing): it holds no hand. A file cut off in its last hand names the file and line."""
    store = open_store(url)
    play(store, tmp_path / "run")
    export_run(store, RUN, tmp_path / "export")
    store.close()
    run = tmp_path / "export"
    (run / "hands" / "table-0009.phhs").write_text("")
    clean = mtt("replay", str(run))
    assert clean.returncode == 0, clean.stdout + clean.stderr
    table = sorted((run / "hands").glob("table-000[1-8].phhs"))[0]
    text = table.read_text()
    table.write_text(text[: len(text) - 40])
    torn = mtt("replay", str(run))
    assert torn.returncode == 2 and torn.stderr.count("\n") == 1, torn.stderr
    assert str(table) in torn.stderr and "it breaks in the hand from line " in torn.stderr
    with pytest.raises(UnreadableRun, match="cut off by a crash"):
        read_hand_files(run / "hands")


def test_mtt_run_refuses_to_overwrite_an_earlier_runs_folder_unless_forced(
    tmp_path: Path,
) -> None:
    (tmp_path / "hands").mkdir()
    (tmp_path / "hands" / "table-0001.phhs").write_text("[1]\n")
    (tmp_path / "events.jsonl").write_text('{"seq":1}\n')
    root = Path(__file__).resolve().parent.parent
    done = mtt("run", str(root / "examples/single-table-9.toml"), "--out", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert "holds an earlier run's files (events.jsonl, hands/ (1 PHH file))" in done.stderr
    assert "--force" in done.stderr and (tmp_path / "events.jsonl").read_text() == '{"seq":1}\n'
    assert "--force" in mtt("run", "--help").stdout
