"""`mtt bench store`: durable hand reports per second through the orchestrator's write path,
group commit against one store call per step (the path before it), in the same run.

`tables` simulated tables each report a hand, wait until it is durable, and report the next,
as table actors do (one report in flight per table). A report logs what a finished 9-handed
hand logs: its `hand_finished` record, and its PHH history (a real hand's, about 1.3 KB).
- group commit: the orchestrator actor's path (`EventLog.stage`, no await, then `await
  durable()`): one committer writes everything staged meanwhile in one store call, in a thread.
- one per step: each report appended in its own store call, blocking the event loop for its
  fsync, as the actor did before.
Each path runs `seconds` on a log of its own in the same store. The store is durable as the
orchestrator runs it: SQLite `synchronous=FULL` in a file in a temporary folder; Redis a private
`redis-server` on 127.0.0.1 with `appendonly yes`, `appendfsync always` (or `store_url`).
"""

from __future__ import annotations

import asyncio
import random
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orchestrator.core.events import HandFinished
from orchestrator.errors import StoreUnavailable
from orchestrator.shell.eventlog import EventLog
from orchestrator.shell.store import Store, StoredHand, open_store
from table_worker.phh import phhs_section
from table_worker.protocol import HandPlayer
from table_worker.session import PlayedHand, TableConfig, play_table

__all__ = ["PathFigures", "bench_store", "durable_store"]

BACKENDS = ("sqlite", "redis")


@dataclass(frozen=True, slots=True)
class PathFigures:
    reports: int
    seconds: float
    commits: int  # store calls
    latencies: list[float]  # a table's round trip: its previous report answered -> this one

    @property
    def per_second(self) -> float:
        return self.reports / self.seconds

    def latency_ms(self, quantile: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return 0.0
        return round(1000 * ordered[min(len(ordered) - 1, int(quantile * len(ordered)))], 3)


def bench_store(
    backend: str, *, tables: int, seconds: float, store_url: str | None = None
) -> dict[str, Any]:
    """Both paths on one backend; the figures `mtt bench store --json` prints."""
    with durable_store(backend, store_url) as url:
        store = open_store(url)
        try:
            sample = _sample_hand()
            run = uuid.uuid4().hex[:8]
            single = asyncio.run(
                _reports(store, f"bench-single/{run}", tables, seconds, sample, grouped=False)
            )
            group = asyncio.run(
                _reports(store, f"bench-group/{run}", tables, seconds, sample, grouped=True)
            )
        finally:
            store.close()
    return {
        "backend": backend,
        "tables": tables,
        "seconds_per_path": seconds,
        "group_reports_per_s": round(group.per_second),
        "single_reports_per_s": round(single.per_second),
        "ratio": round(group.per_second / single.per_second, 1),
        "group_reports_per_commit": round(group.reports / max(1, group.commits), 1),
        "group_round_trip_p50_ms": group.latency_ms(0.50),
        "group_round_trip_p99_ms": group.latency_ms(0.99),
        "single_round_trip_p50_ms": single.latency_ms(0.50),
        "single_round_trip_p99_ms": single.latency_ms(0.99),
        "hand_history_bytes": len(sample[1].encode()),
    }


# --- the two paths ---------------------------------------------------------------------------

Sample = tuple[tuple[HandPlayer, ...], str]


def _step(table: int, hand: int, sample: Sample) -> tuple[list[HandFinished], list[StoredHand]]:
    players, history = sample
    event = HandFinished(table=table, hand=hand, button=1, players=players, seconds=0.01)
    return [event], [StoredHand(table, hand, history.replace("[1]", f"[{hand}]", 1))]


async def _reports(
    store: Store, stream: str, tables: int, seconds: float, sample: Sample, *, grouped: bool
) -> PathFigures:
    """`tables` simulated tables reporting flat out for `seconds`, each waiting for its step to
    be durable before the next: through the group commit (`grouped`: staged, then awaited
    while the others stage theirs), or with one blocking append, and its fsync, per step."""
    log = EventLog(store, stream)
    latencies: list[float] = []
    deadline = time.perf_counter() + seconds

    async def table(number: int) -> None:
        hand, answered = 0, time.perf_counter()
        while answered < deadline:
            hand += 1
            events, hands = _step(number, hand, sample)
            if grouped:
                log.stage(events, ts=time.time(), hands=hands)
                await log.durable()
            else:
                log.append(events, ts=time.time(), hands=hands)  # blocks the loop: its fsync
            latencies.append(time.perf_counter() - answered)
            answered = time.perf_counter()
            if not grouped:
                await asyncio.sleep(0)  # the other tables' reports wait for this one

    started = time.perf_counter()
    await asyncio.gather(*(table(t) for t in range(1, tables + 1)))
    return PathFigures(len(latencies), time.perf_counter() - started, log.commits, latencies)


def _sample_hand() -> Sample:
    """A real 9-handed hand's players and PHH section (with its deck lines, as tables write)."""
    played: PlayedHand = next(play_table(TableConfig(players=9), 1, random.Random(7)))
    finishing = played.hand.finishing_stacks()
    players = tuple(
        HandPlayer(played.names[seat], seat, start, finishing[seat])
        for seat, start in zip(played.hand.seats, played.hand.starting_stacks, strict=True)
    )
    deck = "\n".join(
        [
            "_deck_serial = 123456",
            '_deck = "' + "AsKd" * 26 + '"',
            '_deck_commitment = "' + "ab" * 32 + '"',
            '_deck_salt = "' + "cd" * 16 + '"',
        ]
    )
    return players, phhs_section(played).rstrip("\n") + "\n" + deck + "\n\n"


# --- the store ---------------------------------------------------------------------------------


@contextmanager
def durable_store(backend: str, store_url: str | None = None) -> Iterator[str]:
    """The URL of a store as durable as the orchestrator runs it: `store_url` if given, or a
    SQLite file in a temporary folder, or a private Redis with the AOF fsynced on every write."""
    if store_url is not None:
        yield store_url
        return
    if backend not in BACKENDS:
        raise ValueError(f"backend is one of {BACKENDS}, not {backend!r}")
    with tempfile.TemporaryDirectory(prefix="mtt-bench-store-") as folder:
        if backend == "sqlite":
            yield f"sqlite:///{Path(folder) / 'store.db'}"
            return
        with _private_redis(Path(folder)) as url:
            yield url


@contextmanager
def _private_redis(folder: Path) -> Iterator[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise StoreUnavailable("redis-server is not installed: install it or pass --store")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    args = [binary, "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder)]
    args += ["--save", "", "--appendonly", "yes", "--appendfsync", "always"]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    url = f"redis://127.0.0.1:{port}/0"
    try:
        deadline = time.monotonic() + 15
        while True:
            probe = open_store(url)
            try:
                probe.last_seq("ping")
                break
            except StoreUnavailable:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
            finally:
                probe.close()
        yield url
    finally:
        proc.terminate()
        proc.wait()
