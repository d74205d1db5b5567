"""One contract test suite for every tournament store backend (DESIGN.md "Stores").

Each test runs against SQLite (a file in tmp_path) and a real redis-server on 127.0.0.1.
"""

from __future__ import annotations

import itertools
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from conftest import RedisServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orchestrator.errors import (
    BadStoreUrl,
    HandConflict,
    LogConflict,
    StoreCorrupted,
    StoreError,
    StoreLost,
    StoreUnavailable,
    TournamentExists,
    UnknownTournament,
)
from orchestrator.shell.store import RedisStore, SqliteStore, Store, StoredHand, open_store
from orchestrator.shell.store.redis_store import REGISTRY_KEY, log_key

TTL = 0.2  # seconds; tests only ever wait longer than this, never assert a timing


@dataclass
class Backend:
    """A backend under test, how to write bytes into it behind the store's back, and how to
    see a write half-way through (`watch_writes()` returns a probe: has a write begun landing
    since the probe was made, without being complete?)."""

    url: str
    raw_log_write: Callable[[str, int, str], None]  # (tournament, seq, text)
    raw_meta_write: Callable[[str, str], None]  # (tournament, text)
    watch_writes: Callable[[], Callable[[], bool]]


def _sqlite_backend(path: Path) -> Backend:
    def log_write(tournament: str, seq: int, text: str) -> None:
        with sqlite3.connect(path) as db:
            db.execute("INSERT INTO events VALUES (?, ?, ?)", (tournament, seq, text))

    def meta_write(tournament: str, text: str) -> None:
        with sqlite3.connect(path) as db:
            db.execute("INSERT OR REPLACE INTO tournaments VALUES (?, ?)", (tournament, text))

    def watch_writes() -> Callable[[], bool]:
        # A transaction bigger than SQLite's page cache spills its pages into the WAL before
        # it commits: the WAL growing by a megabyte means a transaction is under way.
        wal = Path(f"{path}-wal")
        before = wal.stat().st_size if wal.exists() else 0
        return lambda: wal.exists() and wal.stat().st_size > before + (1 << 20)

    return Backend(f"sqlite:///{path}", log_write, meta_write, watch_writes)


def _redis_backend(server: RedisServer) -> Backend:
    def log_write(tournament: str, seq: int, text: str) -> None:
        with server.client() as client:
            client.xadd(log_key(tournament), {"r": text}, id=f"{seq}-0")

    def meta_write(tournament: str, text: str) -> None:
        with server.client() as client:
            client.hset(REGISTRY_KEY, tournament, text)

    def watch_writes() -> Callable[[], bool]:
        # A command still arriving: some other client's arguments parsed (argv-mem) or
        # buffered (qbuf), not yet run. Redis runs a command only once all of it is in.
        probe = redis.Redis(host="127.0.0.1", port=server.port, single_connection_client=True)
        me = probe.client_id()

        def arriving() -> bool:
            return any(
                int(c["id"]) != me and (int(c["qbuf"]) > 0 or int(c.get("argv-mem", 0)) > 0)
                for c in probe.client_list()
            )

        return arriving

    return Backend(server.url, log_write, meta_write, watch_writes)


@pytest.fixture(params=["sqlite", "redis"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "redis":
        return _redis_backend(request.getfixturevalue("redis_server"))
    return _sqlite_backend(tmp_path / "store.db")


@pytest.fixture
def store(backend: Backend) -> Iterator[Store]:
    opened = open_store(backend.url)
    yield opened
    opened.close()


def events(first: int, count: int, **fields: Any) -> list[dict[str, Any]]:
    return [{"seq": s, "ts": 1.5, "type": "table_opened", "table": s, **fields} for s in
            range(first, first + count)]  # fmt: skip


# -- event log -------------------------------------------------------------------------------


def test_log_append_read_last_seq(store: Store) -> None:
    assert store.last_seq("t1") == 0
    assert store.read("t1") == []
    store.append("t1", events(1, 3))
    store.append("t1", events(4, 2))
    store.append("t2", events(1, 1, other=True))
    assert store.read("t1") == events(1, 5)
    assert store.last_seq("t1") == 5
    assert store.read("t1", after=3) == events(4, 2)
    assert store.read("t1", after=1, limit=2) == events(2, 2)
    assert store.read("t1", limit=0) == []
    assert store.read("t1", after=5) == []
    assert store.read("t2") == events(1, 1, other=True)


def test_log_keeps_records_exactly(store: Store) -> None:
    record = {"seq": 1, "ts": 1712.25, "type": "hand_finished", "cause": None,
              "players": [{"player": "p-ü", "seat": 3, "start": 10, "end": 0}]}  # fmt: skip
    store.append("t", [record])
    assert store.read("t") == [record]
    assert list(store.read("t")[0]) == list(record)  # key order kept, as in events.jsonl


def test_log_refuses_a_duplicate_seq_and_is_unchanged(store: Store) -> None:
    store.append("t", events(1, 3))
    for first in (1, 3):
        with pytest.raises(LogConflict) as caught:
            store.append("t", events(first, 2))
        assert (caught.value.last_seq, caught.value.first_seq) == (3, first)
    assert store.read("t") == events(1, 3)


def test_log_refuses_a_gap_and_is_unchanged(store: Store) -> None:
    with pytest.raises(LogConflict, match="gap"):
        store.append("t", events(2, 1))
    store.append("t", events(1, 2))
    with pytest.raises(LogConflict, match="gap"):
        store.append("t", events(4, 3))
    assert store.read("t") == events(1, 2)
    assert store.last_seq("t") == 2


def test_log_batch_is_all_or_nothing(store: Store) -> None:
    store.append("t", events(1, 2))
    # Starts at a seq already there and runs past the end: no part of it lands.
    with pytest.raises(LogConflict):
        store.append("t", events(2, 5))
    # Not consecutive, or a record without a seq, or one that is not JSON: a programming error,
    # refused before anything is written.
    bad_batches: list[list[dict[str, Any]]] = [
        [*events(3, 1), *events(5, 1)],
        [*events(3, 1), {"type": "no seq"}],
        [*events(3, 1), {"seq": True}],
    ]
    for batch in bad_batches:
        with pytest.raises(ValueError):
            store.append("t", batch)
    with pytest.raises(TypeError):
        store.append("t", [*events(3, 1), {"seq": 4, "x": object()}])
    store.append("t", [])
    assert store.read("t") == events(1, 2)
    store.append("t", events(3, 1))
    assert store.last_seq("t") == 3


def test_log_survives_reopening(store: Store, backend: Backend) -> None:
    store.append("t", events(1, 2))
    again = open_store(backend.url)
    try:
        assert again.read("t") == events(1, 2)
        with pytest.raises(LogConflict):
            again.append("t", events(2, 1))
        again.append("t", events(3, 1))
    finally:
        again.close()
    assert store.last_seq("t") == 3


def test_corrupted_record_names_tournament_and_seq(store: Store, backend: Backend) -> None:
    store.append("t", events(1, 1))
    backend.raw_log_write("t", 2, '{"seq": 2, "type": ')
    with pytest.raises(StoreCorrupted) as caught:
        store.read("t")
    assert (caught.value.tournament, caught.value.seq) == ("t", 2)
    assert "'t' seq 2" in str(caught.value)
    assert store.read("t", limit=1) == events(1, 1)  # the good part is still readable
    backend.raw_log_write("t", 3, '{"seq": 99}')  # valid JSON, but not the record at seq 3
    with pytest.raises(StoreCorrupted, match="seq 3"):
        store.read("t", after=2)


def test_corrupted_registry_entry_is_typed(store: Store, backend: Backend) -> None:
    backend.raw_meta_write("t", "not json")
    with pytest.raises(StoreCorrupted, match="'t'"):
        store.meta("t")


# -- hand histories, committed with the log ----------------------------------------------------


def hands(*keys: tuple[int, int], text: str = "") -> list[StoredHand]:
    return [StoredHand(t, h, text or f"[{h}]\ntable = {t}\nhand = {h}\n\n") for t, h in keys]


def test_hands_are_committed_with_the_log_and_read_by_table_then_hand(store: Store) -> None:
    assert store.read_hands("t") == []
    store.append("t", events(1, 2), hands((2, 1), (1, 1)))
    store.append("t", events(3, 1), hands((1, 2), (10, 1), (2, 2)))
    store.append("u", events(1, 1), hands((1, 1), text="other tournament"))
    assert store.read_hands("t") == hands((1, 1), (1, 2), (2, 1), (2, 2), (10, 1))
    assert store.read("t") == events(1, 3)
    assert store.read_hands("u") == hands((1, 1), text="other tournament")


def test_hands_read_back_exactly(store: Store) -> None:
    text = '[7]\nplayers = ["Jo \\"the Rock\\"", "p-ü"]\nactions = [\n  "d dh p1 AsKd",\n]\n\n'
    store.append("t", events(1, 1), [StoredHand(3, 7, text)])
    assert store.read_hands("t") == [StoredHand(3, 7, text)]


def test_hands_page_by_the_last_key_read(store: Store) -> None:
    keys = [(t, h) for t in (1, 2, 3, 12) for h in (1, 2, 3, 9, 10, 11)]
    store.append("t", events(1, 1), hands(*reversed(keys)))
    pages: list[list[StoredHand]] = []
    after: tuple[int, int] | None = None
    while page := store.read_hands("t", after, 5):
        pages.append(page)
        after = (page[-1].table, page[-1].hand)
    assert [len(p) for p in pages] == [5, 5, 5, 5, 4]
    assert [h for p in pages for h in p] == hands(*keys)
    assert store.read_hands("t", (2, 9), 2) == hands((2, 10), (2, 11))
    assert store.read_hands("t", (12, 11)) == []
    assert store.read_hands("t", limit=0) == []


def test_a_duplicate_hand_with_the_same_text_is_a_no_op(store: Store) -> None:
    """A retried report: its hand is stored already, and the same again changes nothing."""
    store.append("t", events(1, 2), hands((1, 1), (1, 2)))
    store.append("t", events(3, 1), hands((1, 2), (1, 3), (1, 3)))
    store.append("t", [], hands((1, 1)))  # hands alone, all known
    assert store.read_hands("t") == hands((1, 1), (1, 2), (1, 3))
    assert store.read("t") == events(1, 3)


def test_a_hand_with_another_text_is_refused_and_nothing_of_its_batch_is_written(
    store: Store,
) -> None:
    store.append("t", events(1, 2), hands((1, 1)))
    for batch in (
        hands((1, 2), (1, 1), text="a different deal of hand 1"),
        [*hands((1, 2)), *hands((1, 2), text="two texts in one batch")],
    ):
        with pytest.raises(HandConflict) as caught:
            store.append("t", events(3, 2), batch)
        assert caught.value.tournament == "t" and caught.value.table == 1
    assert store.read("t") == events(1, 2)  # the records of the refused batch: not written
    assert store.read_hands("t") == hands((1, 1))
    store.append("t", events(3, 2), hands((1, 2)))
    assert store.last_seq("t") == 4


def test_a_batch_refused_for_its_seq_writes_none_of_its_hands(store: Store) -> None:
    store.append("t", events(1, 2), hands((1, 1)))
    for first in (2, 4):  # a duplicate, a gap
        with pytest.raises(LogConflict):
            store.append("t", events(first, 1), hands((1, 2)))
    assert store.read_hands("t") == hands((1, 1))
    assert store.read("t") == events(1, 2)


def test_bad_hands_are_a_programming_error(store: Store) -> None:
    bad: list[Any] = [
        StoredHand(True, 1, "x"),
        StoredHand(1, -1, "x"),
        StoredHand(10**10, 1, "x"),
        StoredHand(1, 1, b"bytes"),  # type: ignore[arg-type]
        (1, 1, "a tuple"),
    ]
    for hand in bad:
        with pytest.raises(ValueError):
            store.append("t", events(1, 1), [hand])
    with pytest.raises(ValueError):
        store.read_hands("t", (1, -1))
    assert store.read("t") == [] and store.read_hands("t") == []


# A writer that appends one big batch of records and hands, and says when it is about to.
_BIG_BATCH_WRITER = textwrap.dedent(
    """
    import sys
    from orchestrator.shell.store import StoredHand, open_store
    url, tournament, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    store = open_store(url)
    records = [{"seq": s, "ts": 1.5, "type": "table_opened", "table": s, "pad": "x" * 60}
               for s in range(2, count + 2)]
    hands = [StoredHand(t, 1, f"[1]\\ntable = {t}\\n" + "y" * 200) for t in range(1, count // 10)]
    print("appending", flush=True)
    store.append(tournament, records, hands)
    """
)


def test_a_writer_killed_in_the_middle_of_a_batch_leaves_all_of_it_or_none(
    store: Store, backend: Backend
) -> None:
    """A group commit is one transaction: the orchestrator's process killed while it writes
    (here a child process, SIGKILL once the backend shows the batch half-way in) leaves the log
    and the hands as they were, or the whole batch; never a part. Tried with growing batches
    until one is caught half-way (the probe saw it and nothing landed)."""
    caught_halfway = False
    for attempt, count in enumerate((150_000, 300_000, 600_000)):
        tournament = f"big{attempt}"
        store.append(tournament, events(1, 1), hands((1, 0)))
        probe = backend.watch_writes()
        child = subprocess.Popen(
            [sys.executable, "-c", _BIG_BATCH_WRITER, backend.url, tournament, str(count)],
            stdout=subprocess.PIPE,
            text=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        )
        assert child.stdout is not None and child.stdout.readline() == "appending\n"
        deadline = time.monotonic() + 60
        while child.poll() is None and not probe() and time.monotonic() < deadline:
            time.sleep(0.001)
        halfway = child.poll() is None and probe()
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        log, stored = store.read(tournament), store.read_hands(tournament)
        if len(log) == 1:  # none of it
            assert stored == hands((1, 0))
            if halfway:
                caught_halfway = True
                break
        else:  # all of it: the kill came after the commit
            assert [r["seq"] for r in log] == list(range(1, count + 2))
            assert len(stored) == 1 + len(range(1, count // 10))
    assert caught_halfway, "no batch was caught half-way written"


# -- snapshots -------------------------------------------------------------------------------


def test_snapshot_latest_wins(store: Store) -> None:
    assert store.load_snapshot("t") is None
    store.append("t", events(1, 10))
    store.save_snapshot("t", 4, b"state at 4")
    assert store.load_snapshot("t") == (4, b"state at 4")
    store.save_snapshot("t", 9, b"\x00\xffbinary")
    assert store.load_snapshot("t") == (9, b"\x00\xffbinary")
    store.save_snapshot("t", 6, b"older")  # an older snapshot never replaces a newer one
    assert store.load_snapshot("t") == (9, b"\x00\xffbinary")
    assert store.load_snapshot("other") is None


def test_snapshot_beyond_the_log_is_refused(store: Store) -> None:
    store.append("t", events(1, 2))
    with pytest.raises(LogConflict):
        store.save_snapshot("t", 3, b"ahead of the log")
    assert store.load_snapshot("t") is None


# -- registry --------------------------------------------------------------------------------


def test_registry(store: Store) -> None:
    assert store.tournaments() == []
    store.register("sunday", {"players": 1000, "structure": "freezeout"})
    store.register("monday", {})
    with pytest.raises(TournamentExists):
        store.register("sunday", {"players": 1})
    assert store.tournaments() == ["monday", "sunday"]
    assert store.meta("sunday") == {"players": 1000, "structure": "freezeout"}
    with pytest.raises(UnknownTournament):
        store.meta("tuesday")


# -- leases ----------------------------------------------------------------------------------


def test_lease_acquire_renew_release(store: Store) -> None:
    assert store.owner("t") is None
    assert store.acquire("t", "orch-a", 30)
    assert not store.acquire("t", "orch-b", 30)
    assert store.acquire("t", "orch-a", 30)  # already ours: extended
    assert store.owner("t") == "orch-a"
    assert store.renew("t", "orch-a", 30)
    assert not store.renew("t", "orch-b", 30)
    store.release("t", "orch-b")  # not theirs: nothing happens
    assert store.owner("t") == "orch-a"
    store.release("t", "orch-a")
    assert store.owner("t") is None
    assert store.acquire("t", "orch-b", 30)
    assert store.owner("other") is None


def test_lease_expires_and_can_be_stolen(store: Store) -> None:
    assert store.acquire("t", "orch-a", TTL)
    time.sleep(TTL * 2)
    assert store.owner("t") is None
    assert not store.renew("t", "orch-a", TTL)  # expired is lost, even before anyone steals it
    assert store.acquire("t", "orch-b", 30)
    assert store.owner("t") == "orch-b"
    assert not store.renew("t", "orch-a", 30)
    store.release("t", "orch-a")
    assert store.owner("t") == "orch-b"


def test_lease_renewed_in_time_is_kept(store: Store) -> None:
    assert store.acquire("t", "orch-a", TTL)
    assert store.renew("t", "orch-a", 30)
    time.sleep(TTL * 2)
    assert store.owner("t") == "orch-a"
    assert not store.acquire("t", "orch-b", TTL)


def test_lease_ttl_must_be_positive(store: Store) -> None:
    for bad in (0.0, -1.0, float("nan")):
        with pytest.raises(ValueError):
            store.acquire("t", "orch-a", bad)


# -- used decks, URLs ------------------------------------------------------------------------


def test_decks_are_the_deck_services_store(store: Store, backend: Backend) -> None:
    deck = os.urandom(16)
    assert store.decks is store.decks
    assert store.decks.record_new([deck, os.urandom(16)]) == [1, 2]
    store.append("t", events(1, 1))  # shares the backend with the log without interfering
    again = open_store(backend.url)
    try:
        assert again.decks.record_new([deck]) == [None]
        assert again.decks.count() == 2
    finally:
        again.close()


def test_open_store_picks_the_backend(redis_server: RedisServer, tmp_path: Path) -> None:
    for url, kind in [(redis_server.url, RedisStore), (f"sqlite:///{tmp_path}/s.db", SqliteStore)]:
        opened = open_store(url)
        assert isinstance(opened, kind)
        opened.close()


@pytest.mark.parametrize(
    "url", ["mysql://127.0.0.1/x", "sqlite://", "sqlite:///", "store.db", "", "memory://"]
)
def test_unknown_url_is_a_clear_store_error(url: str) -> None:
    with pytest.raises(BadStoreUrl, match=r"sqlite:///path/to/file\.db"):
        open_store(url)
    assert issubclass(BadStoreUrl, StoreError)


def test_sqlite_unopenable_file_is_unavailable(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable):
        open_store(f"sqlite:///{tmp_path}/missing-dir/store.db")


# -- Redis: down, restart, durability --------------------------------------------------------


def _every_call(store: Store) -> list[Callable[[], object]]:
    return [
        lambda: store.append("t", events(4, 1)),
        lambda: store.read("t"),
        lambda: store.append("t", events(4, 1), hands((1, 4))),
        lambda: store.read_hands("t"),
        lambda: store.last_seq("t"),
        lambda: store.save_snapshot("t", 1, b"s"),
        lambda: store.load_snapshot("t"),
        lambda: store.register("u", {}),
        lambda: store.tournaments(),
        lambda: store.meta("t"),
        lambda: store.acquire("t", "orch-b", 30),
        lambda: store.renew("t", "orch-a", 30),
        lambda: store.release("t", "orch-a"),
        lambda: store.owner("t"),
        lambda: store.check_epoch("e"),
    ]


# -- the store's epoch (RNG-3: a store that lost its data is not written to) ---------------------


def test_a_store_holds_one_epoch_for_both_stores_at_its_url(backend: Backend) -> None:
    store = open_store(backend.url)
    try:
        epoch = store.decks.epoch  # written by the first opener of the used-deck store
        store.check_epoch(epoch)
        with pytest.raises(StoreLost, match=f"holds epoch {epoch}, not epoch other"):
            store.check_epoch("other")
    finally:
        store.close()
    again = open_store(backend.url, epoch=epoch)
    try:
        again.check_epoch(epoch)
        again.append("t", events(1, 2))  # the epoch it holds: written
        assert again.last_seq("t") == 2
    finally:
        again.close()


def test_a_new_store_where_the_old_one_was_is_refused(tmp_path: Path) -> None:
    old = open_store(f"sqlite:///{tmp_path / 'store.db'}")
    epoch = old.decks.epoch
    old.close()
    (tmp_path / "store.db").unlink()  # the file lost (a node's disk, a wrong volume)
    new = open_store(f"sqlite:///{tmp_path / 'store.db'}", epoch=epoch)
    try:
        with pytest.raises(StoreLost, match=f"holds no epoch, not epoch {epoch}"):
            new.check_epoch(epoch)
    finally:
        new.close()


def test_redis_restarted_empty_refuses_every_append_whole(redis_server: RedisServer) -> None:
    """No persistence in this fixture: Redis comes back empty. An append on the store opened
    with the run's epoch is refused, atomically with the write (nothing is written), where
    it would otherwise have begun a new log at seq 1 as if nothing had happened."""
    first = open_store(redis_server.url)
    epoch = first.decks.epoch
    first.close()
    store = open_store(redis_server.url, epoch=epoch)
    try:
        store.append("t", events(1, 3))
        redis_server.restart()
        with pytest.raises(StoreLost, match=f"holds no epoch, not epoch {epoch}"):
            store.append("t", events(1, 1))
        assert store.last_seq("t") == 0 and store.tournaments() == []
        with pytest.raises(StoreLost):
            store.check_epoch(epoch)
    finally:
        store.close()


@pytest.mark.slow
def test_redis_down_is_unavailable_and_the_store_reconnects_after_restart(
    redis_factory: Callable[..., RedisServer],
) -> None:
    server = redis_factory("--appendonly", "yes", "--appendfsync", "always")
    store = open_store(server.url)
    try:
        store.append("t", events(1, 3))
        store.save_snapshot("t", 2, b"two")
        store.register("t", {"players": 9})
        assert store.acquire("t", "orch-a", 30)
        server.stop()
        for call in _every_call(store):
            with pytest.raises(StoreUnavailable):
                call()
        server.start()  # AOF on: everything acknowledged comes back
        assert store.read("t") == events(1, 3)
        assert store.load_snapshot("t") == (2, b"two")
        assert store.meta("t") == {"players": 9}
        assert store.owner("t") == "orch-a"
        store.append("t", events(4, 1))
        server.restart()  # a restart between two calls is invisible to the caller
        assert store.last_seq("t") == 4
    finally:
        store.close()


def test_redis_a_torn_aof_tail_drops_the_whole_batch(
    redis_factory: Callable[..., RedisServer],
) -> None:
    """A host crash while Redis writes a group commit leaves the AOF torn inside that batch.
    The batch reached the AOF as one MULTI/EXEC block (one script call), and Redis loading a
    file that ends inside such a block drops all of it: the log and the hands come back as
    they were before the batch, and the batch can be written again."""
    server = redis_factory("--appendonly", "yes", "--appendfsync", "always")
    store = open_store(server.url)
    try:
        store.append("t", events(1, 2), hands((1, 1)))
        batch, batch_hands = events(3, 50), hands((1, 2), (2, 1), (3, 1))
        store.append("t", batch, batch_hands)
        server.stop()
        (aof,) = (server.directory / "appendonlydir").glob("*.incr.aof")
        data = aof.read_bytes()
        multi = data.rindex(b"MULTI")
        assert data.rindex(b"EXEC") > multi  # the last batch is one block
        aof.write_bytes(data[: multi + (len(data) - multi) // 2])  # torn half-way through it
        server.start()
        assert store.read("t") == events(1, 2)
        assert store.read_hands("t") == hands((1, 1))
        store.append("t", batch, batch_hands)
        assert store.last_seq("t") == 52 and len(store.read_hands("t")) == 4
    finally:
        store.close()


def test_redis_durability_is_detected(redis_factory: Callable[..., RedisServer]) -> None:
    server = redis_factory("--appendonly", "yes", "--appendfsync", "always")
    store = RedisStore(server.url)
    try:
        durability = store.durability()
        assert durability.appendonly
        assert durability.appendfsync == "always"
        # WAITAOF only from Redis 7.2 (the OS package here is 7.0: then appendfsync alone).
        assert durability.waitaof == (durability.version >= (7, 2))
        store.append("t", events(1, 2))  # with WAITAOF on 7.2+, plain append on 7.0
        assert store.read("t") == events(1, 2)
    finally:
        store.close()


def test_redis_without_aof_reports_it(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    try:
        assert not store.durability().appendonly
        assert not store.durability().waitaof
    finally:
        store.close()


# -- property: the log behaves like a list ---------------------------------------------------

_examples = itertools.count()

# An append attempt: tournament, where its first seq lands relative to the log's end
# (1 = the next one; 0 or less = a duplicate; 2 or more = a gap), and how many records.
_attempts = st.lists(
    st.tuples(st.sampled_from(["a", "b"]), st.integers(-2, 3), st.integers(0, 3)), max_size=25
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(attempts=_attempts)
def test_log_matches_an_in_memory_model(store: Store, attempts: list[tuple[str, int, int]]) -> None:
    prefix = f"ex{next(_examples)}-"  # one store for all examples: fresh tournaments each
    model: dict[str, list[dict[str, Any]]] = {"a": [], "b": []}
    for name, offset, count in attempts:
        log = model[name]
        first = max(1, len(log) + offset)
        batch = events(first, count)
        if count and first != len(log) + 1:
            with pytest.raises(LogConflict):
                store.append(prefix + name, batch)
        else:
            store.append(prefix + name, batch)
            log.extend(batch)
        assert store.last_seq(prefix + name) == len(log)
    for name, log in model.items():
        assert store.read(prefix + name) == log
        assert store.read(prefix + name, after=1, limit=2) == log[1:3]


_hand_attempts = st.lists(
    st.tuples(st.integers(1, 3), st.integers(1, 4), st.sampled_from(["deal a", "deal b"])),
    max_size=20,
)


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(attempts=_hand_attempts)
def test_hands_match_an_in_memory_model(store: Store, attempts: list[tuple[int, int, str]]) -> None:
    """Each attempt appends the next record with one hand: a new (table, hand) is stored, the
    same text again is a no-op, another text is refused with its record."""
    name = f"hx{next(_examples)}"
    model: dict[tuple[int, int], str] = {}
    seq = 0
    for table, hand, text in attempts:
        batch = events(seq + 1, 1)
        if model.get((table, hand), text) != text:
            with pytest.raises(HandConflict):
                store.append(name, batch, [StoredHand(table, hand, text)])
            continue
        store.append(name, batch, [StoredHand(table, hand, text)])
        model[(table, hand)] = text
        seq += 1
    assert store.last_seq(name) == seq
    assert store.read_hands(name) == [StoredHand(t, h, x) for (t, h), x in sorted(model.items())]
