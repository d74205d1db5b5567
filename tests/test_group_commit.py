"""Group commit (DESIGN.md "Stores": the reports that arrive together become durable in one
transaction, and a table gets its directive only after its report is durable). The event log
as the orchestrator actor drives it, without Ray: steps staged in order with no await, each
then waiting for `durable()`, one committer writing everything queued in one store call."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from orchestrator.core.events import HandFinished, TableOpened
from orchestrator.errors import HandConflict, RecoveryError
from orchestrator.shell.eventlog import EventLog, SnapshotPacer
from orchestrator.shell.store import SqliteStore, Store, StoredHand
from table_worker.protocol import HandPlayer

STREAM = "t/run"


class GatedStore:
    """A real store whose appends wait at a gate (the fsync that takes its time) and are
    counted, with what each wrote; everything else passes through."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner
        self.gate = threading.Event()
        self.gate.set()
        self.appends: list[tuple[list[int], list[tuple[int, int]]]] = []
        self.snapshots: list[tuple[int, int]] = []  # (seq, the log's last seq when saved)
        self.entered = threading.Event()

    def append(
        self, tournament: str, records: Sequence[dict[str, Any]], hands: Sequence[StoredHand] = ()
    ) -> None:
        self.entered.set()
        self.gate.wait()
        self.inner.append(tournament, records, hands)
        self.appends.append(([r["seq"] for r in records], [(h.table, h.hand) for h in hands]))

    def save_snapshot(self, tournament: str, seq: int, state: bytes) -> None:
        self.inner.save_snapshot(tournament, seq, state)
        self.snapshots.append((seq, self.inner.last_seq(tournament)))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def gated(tmp_path: Path) -> GatedStore:
    return GatedStore(SqliteStore(str(tmp_path / "store.db")))


def hand_step(table: int, hand: int) -> tuple[list[Any], list[StoredHand]]:
    finished = HandFinished(table=table, hand=hand, button=1, players=(HandPlayer("a", 1, 5, 5),))
    return [finished, TableOpened(table=100 + table)], [
        StoredHand(table, hand, f"[{hand}]\ntable = {table}\n\n")
    ]


def test_reports_that_arrive_together_are_durable_in_one_store_call(gated: GatedStore) -> None:
    """While one batch is in the store's hands the loop goes on deciding: every step staged
    meanwhile goes in the next call, and none of them is released before that call returns."""
    log = EventLog(gated, STREAM)  # type: ignore[arg-type]
    released: list[tuple[int, int]] = []  # (the step's last seq, the store's last seq then)

    async def report(table: int) -> None:
        events, hands = hand_step(table, 1)
        log.stage(events, ts=1.0, hands=hands)
        mine = log.seq
        await log.durable()
        released.append((mine, gated.inner.last_seq(STREAM)))

    async def main() -> None:
        gated.gate.clear()
        first = asyncio.create_task(report(1))
        await asyncio.sleep(0)  # the first report's batch goes to the store, and waits there
        while not gated.entered.is_set():
            await asyncio.sleep(0.001)
        others = [asyncio.create_task(report(t)) for t in range(2, 51)]
        await asyncio.sleep(0.05)
        assert released == []  # nothing answered before it is durable
        assert log.since(0) == []  # and followers see nothing either
        gated.gate.set()
        await asyncio.gather(first, *others)

    asyncio.run(main())
    assert [len(seqs) for seqs, _ in gated.appends] == [2, 98]  # two calls for 50 steps
    assert gated.inner.read(STREAM) == json.loads(json.dumps(log.since(0, limit=1000)))
    assert [r["seq"] for r in gated.inner.read(STREAM)] == list(range(1, 101))
    assert [(h.table, h.hand) for h in gated.inner.read_hands(STREAM)] == [
        (t, 1) for t in range(1, 51)
    ]
    assert all(mine <= durable for mine, durable in released)
    assert log.durable_seq == log.seq == 100 and log.commits == 2


def test_steps_are_numbered_in_the_order_they_are_decided(gated: GatedStore) -> None:
    log = EventLog(gated, STREAM)  # type: ignore[arg-type]

    async def report(table: int, hand: int) -> int:
        events, hands = hand_step(table, hand)
        log.stage(events, ts=float(hand), hands=hands)
        first = log.seq - 1
        await log.durable()
        return first

    async def main() -> list[int]:
        return list(await asyncio.gather(*(report(t, h) for h in range(1, 6) for t in range(1, 4))))

    firsts = asyncio.run(main())
    records = gated.inner.read(STREAM)
    assert firsts == list(range(1, 31, 2))
    for first in firsts:  # each step's records together, its cause pointing at its hand
        assert records[first - 1]["type"] == "hand_finished"
        assert records[first]["cause"] == first


def test_a_write_that_fails_fails_every_step_waiting_and_every_later_one(
    gated: GatedStore,
) -> None:
    """The decisions are then ahead of the log: the actor dies and Ray restarts it from the
    log, which holds none of them; none was carried out."""
    gated.inner.append(STREAM, [], [StoredHand(1, 1, "another deal")])
    log = EventLog(gated, STREAM)  # type: ignore[arg-type]

    async def report(table: int) -> BaseException | None:
        events, hands = hand_step(table, 1)
        log.stage(events, ts=1.0, hands=hands)
        try:
            await log.durable()
        except (HandConflict, RecoveryError) as exc:
            return exc
        return None

    async def main() -> list[BaseException | None]:
        outcomes = await asyncio.gather(*(report(t) for t in range(1, 4)))
        later = await report(9)
        return [*outcomes, later]

    outcomes = asyncio.run(main())
    assert all(isinstance(o, HandConflict) for o in outcomes[:3])
    assert isinstance(outcomes[3], RecoveryError)
    assert gated.inner.read(STREAM) == []


def test_a_snapshot_is_saved_after_its_batch_and_holds_no_step_up(gated: GatedStore) -> None:
    """Taken at a step boundary, saved once the log holds its seq (never ahead of the log), by
    a task of its own: the steps of its batch are released, and later steps commit, while it
    is still being written."""
    log = EventLog(gated, STREAM)  # type: ignore[arg-type]
    saving, go_on = threading.Event(), threading.Event()
    original = gated.save_snapshot

    def save_snapshot(tournament: str, seq: int, state: bytes) -> None:
        saving.set()
        go_on.wait()
        original(tournament, seq, state)

    gated.save_snapshot = save_snapshot  # type: ignore[method-assign]

    async def report(table: int, snap: bool = False) -> None:
        events, hands = hand_step(table, 1)
        log.stage(events, ts=1.0, hands=hands)
        if snap:
            log.offer_snapshot(log.seq, b"core after step 2")
        await log.durable()

    async def main() -> None:
        await asyncio.gather(report(1), report(2, snap=True))
        while not saving.is_set():
            await asyncio.sleep(0.001)
        await report(3)  # the snapshot is still being written
        assert gated.snapshots == [] and log.durable_seq == 6
        go_on.set()
        await log.settle()

    asyncio.run(main())
    assert gated.snapshots == [(4, 6)]
    assert gated.inner.load_snapshot(STREAM) == (4, b"core after step 2")


class SwappableStore:
    """A store that can be swapped for an empty one: a Redis restarted without its data."""

    def __init__(self, inner: Store) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def test_a_lost_tail_is_appended_again_with_its_hands(tmp_path: Path) -> None:
    """docs/OPERATIONS.md "a lost tail": the store came back without the last batches; the
    next write finds the gap and appends what memory holds, the hands of those steps too."""
    store = SwappableStore(SqliteStore(str(tmp_path / "a.db")))
    log = EventLog(store, STREAM, sleep=lambda _: None)  # type: ignore[arg-type]
    for table in (1, 2):
        events, hands = hand_step(table, 1)
        log.append(events, ts=1.0, hands=hands)
    store.inner = SqliteStore(str(tmp_path / "empty.db"))
    events, hands = hand_step(3, 1)
    log.append(events, ts=2.0, hands=hands)
    assert [r["seq"] for r in store.inner.read(STREAM)] == list(range(1, 7))
    assert [(h.table, h.hand) for h in store.inner.read_hands(STREAM)] == [(1, 1), (2, 1), (3, 1)]


def test_mtt_bench_store_prints_both_paths_and_their_ratio(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from orchestrator.cli.main import main

    code = main(["bench", "store", "--tables", "5", "--seconds", "0.3", "--json"])
    figures = json.loads(capsys.readouterr().out)
    assert code == 0
    assert figures["backend"] == "sqlite" and figures["tables"] == 5
    assert figures["group_reports_per_s"] > 0 and figures["single_reports_per_s"] > 0
    assert figures["ratio"] > 0 and figures["group_reports_per_commit"] >= 1


# --- snapshots paced by their cost ------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_snapshot_is_due_after_its_events_then_not_before_its_cost_over_the_duty() -> None:
    clock = Clock()
    pacer = SnapshotPacer(10, duty=0.05, clock=clock)
    assert not pacer.staged(9)
    assert pacer.staged(1)  # 10 events

    def encode() -> bytes:
        clock.now += 2.0  # a big field's snapshot: 2 s of the event loop
        return b"state"

    assert pacer.take(encode) == b"state"
    assert (pacer.taken, pacer.seconds) == (1, 2.0)
    clock.now = 100.0 + 39.0  # 2 s at 5%: none before 40 s after it began
    assert not pacer.staged(1_000)
    clock.now = 100.0 + 40.0
    assert pacer.staged(1)  # the events kept counting meanwhile
    assert not pacer.staged(1)  # the count starts again once one is due


def test_cheap_snapshots_are_paced_by_their_events_alone() -> None:
    clock = Clock()
    pacer = SnapshotPacer(5, clock=clock)
    due = 0
    for _ in range(50):
        if pacer.staged(1):
            due += 1
            pacer.take(lambda: b"")  # takes no time on this clock
    assert due == 10
