"""`mtt bench scale`: a whole tournament of `players` entries through the real core and the real
durable store with group commit, with the tables simulated in this process (no Ray).

The write path is the orchestrator actor's (`shell.actor`), step for step: the opening record and
the start appended at once, then for each report the core's step with the step's own RNG
(`core.replay.step_rng`) and the logged time, staged in the `EventLog` with no await in between,
and answered once its batch is durable (one committer, one store call per batch, in a thread).
Each table is an asyncio task with one report in flight, as a table actor is: it deals the hand
its directive gives, reports it, and waits at its boundary (polling with the table actor's
backoff) when told to wait; a table opened by a step starts after the step is durable.

Two hand models play each dealt hand (`hands`):
- `engine`: the real hand engine (`table_worker.engine`) and the field's bots
  (`FIELD_BOTS`, as `mtt bench tournament` plays), a seeded deck per hand, its PHH history stored
  with the hand as a table actor's is.
- `model`: a chip-exact fast model of a hand (`FastHands`), no cards: antes and blinds are
  posted, and either one player takes them (a raise nobody calls) or two players contest a pot
  whose size grows as stacks get short in big blinds, with all-ins, side pots and a winner per
  pot drawn at random. Its constants are calibrated so a tournament takes as many hands as with
  the engine and bots on the same config (`calibrate` measures both and prints the ratio; a test
  keeps it within 10%). It stores no hand history (it plays no cards).

Two paces (`pace`): `flat`, every table deals its next hand as soon as its report is answered
(the most reports the core and store take); `online`, each hand also lasts a random time (a
lognormal around `hand_seconds`, as hands at an online table vary), so reports arrive spread out
and START-2 holds the tables that run ahead.

Figures: reports/s over the whole run, each report's core step and durable commit (p50, p99),
the process's peak resident memory and the growth per player over the resident memory before
the start, and the wall time.
"""

from __future__ import annotations

import asyncio
import math
import random
import resource
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

from orchestrator.core.config import TournamentConfig
from orchestrator.core.directives import OpenTable, Step
from orchestrator.core.events import HandFinished, TournamentOpened
from orchestrator.core.replay import open_tournament, snapshot, step_rng
from orchestrator.errors import ConfigError
from orchestrator.shell.bench_store import durable_store
from orchestrator.shell.eventlog import SNAPSHOT_EVERY, EventLog, SnapshotPacer, event_time
from orchestrator.shell.long_poll import LongPolls
from orchestrator.shell.simulation import entry_deposits, late_bot_names
from orchestrator.shell.store import StoredHand, open_store
from table_worker.bots import Bot, SittingOut, make_bot, mix_pool, parse_mix, policy_for
from table_worker.engine import Hand, HandSetup
from table_worker.phh import phhs_section
from table_worker.protocol import DECK_SIZE, HandPlayer, HandReport, NextHand, TableDirective
from table_worker.session import PlayedHand

__all__ = [
    "FIELD_BOTS",
    "HAND_MODELS",
    "PACES",
    "EngineHands",
    "FastHands",
    "ScaleFigures",
    "ScaleOptions",
    "bench_scale",
    "calibrate",
]

FIELD_BOTS = "tag=70,lag=15,station=10,random=5"  # the field `mtt bench tournament` plays
HAND_MODELS = ("model", "engine")
PACES = ("flat", "online")
WAITS = ("long", "backoff")
# The old path (`waits="backoff"`, before `LongPolls`): a waiting table asked again after
# WAIT_SECONDS, backing off to MAX_WAIT_SECONDS, as the table actor did.
WAIT_SECONDS = 0.02
MAX_WAIT_SECONDS = 0.25


@dataclass(frozen=True, slots=True, kw_only=True)
class ScaleOptions:
    config: TournamentConfig  # with its `players` the field size
    backend: str = "sqlite"
    pace: str = "flat"
    hands: str = "model"
    seed: int = 1
    hand_seconds: float = 0.5  # online pace: a hand's median duration, in seconds
    waits: str = "long"  # a waiting table: held until it may deal, or the old backoff
    store_url: str | None = None

    def __post_init__(self) -> None:
        if self.pace not in PACES:
            raise ConfigError(f"pace is one of {PACES}, not {self.pace!r}")
        if self.waits not in WAITS:
            raise ConfigError(f"waits is one of {WAITS}, not {self.waits!r}")
        if self.hands not in HAND_MODELS:
            raise ConfigError(f"hands is one of {HAND_MODELS}, not {self.hands!r}")
        if not self.hand_seconds > 0:
            raise ConfigError(f"hand_seconds must be above zero, not {self.hand_seconds}")
        if self.config.late_entries or self.config.structure != "freezeout":
            raise ConfigError(
                "mtt bench scale plays a freeze-out field: tournament.structure = "
                "'freezeout' and no late entries"
            )


# --- the hand models ---------------------------------------------------------------------------


class HandModel(Protocol):
    def play(self, spec: NextHand) -> HandReport: ...


class EngineHands:
    """The real engine and the field's bots, as a table actor plays a hand (`Table.play`),
    with a seeded deck instead of the deck service's."""

    def __init__(self, seed: int, bots: str = FIELD_BOTS) -> None:
        self._seed = seed
        self._pool = mix_pool(parse_mix(bots))
        self._bots: dict[str, Bot] = {}
        self._deck = list(range(DECK_SIZE))
        self._rng = random.Random(f"{seed}:decks")

    def play(self, spec: NextHand) -> HandReport:
        self._rng.shuffle(self._deck)
        hand = Hand(HandSetup.of(spec), self._deck)
        names = {seat: player for seat, player, _ in spec.seats}
        bots = {
            seat: SittingOut() if seat in spec.sitting_out else self._bot(player)
            for seat, player in names.items()
        }
        while (actor := hand.actor) is not None:
            hand.act(actor, bots[actor].decide(hand, hand.legal_actions()))
        finishing = hand.finishing_stacks()
        for seat, stack in finishing.items():
            if not stack:  # out: its bot is not needed again
                self._bots.pop(names[seat], None)
        played = PlayedHand(spec.table, spec.hand, names, hand)
        return HandReport(
            table=spec.table,
            hand=spec.hand,
            button=spec.blinds.button,
            players=tuple(
                HandPlayer(player, seat, stack, finishing[seat])
                for seat, player, stack in spec.seats
            ),
            history=phhs_section(played),
            pots=hand.pots(),
        )

    def _bot(self, player: str) -> Bot:
        bot = self._bots.get(player)
        if bot is None:
            policy = policy_for(player, self._pool, self._seed)
            bot = self._bots[player] = make_bot(policy, random.Random(f"{self._seed}:{player}"))
        return bot


@dataclass(frozen=True, slots=True)
class FastHands:
    """A hand without cards, chip-exact. Antes and blinds are posted (all-in when short). Then,
    with probability `contested`, two players drawn at random contest the pot: each puts in the
    same share of the shorter stack, all of it (an all-in) with probability
    `min(1, shove_depth / depth)`, where `depth` is the shorter stack in big blinds, otherwise
    a share drawn up to `max_share`; otherwise one player drawn at random takes the forced
    bets (a raise nobody calls). Players all-in from the forced bets are in the showdown too.
    Each pot, main then side, goes to one of the players in for it, drawn at random.

    The constants are calibrated against the engine and bots on the online regular
    (`calibrate`; docs/BENCHMARKS.md "mtt bench scale")."""

    rng: random.Random
    contested: float = 0.55
    shove_depth: float = 14.0
    max_share: float = 0.35

    def play(self, spec: NextHand) -> HandReport:
        rng = self.rng
        seats = [seat for seat, _, _ in spec.seats]
        left = {seat: stack for seat, _, stack in spec.seats}
        put = dict.fromkeys(seats, 0)

        def pay(seat: int, amount: int) -> None:
            paid = min(amount, left[seat])
            left[seat] -= paid
            put[seat] += paid

        if spec.big_blind_ante:
            pay(spec.blinds.big_blind, spec.ante)
        else:
            for seat in seats:
                pay(seat, spec.ante)
        if spec.blinds.small_blind is not None:
            pay(spec.blinds.small_blind, spec.small_blind)
        pay(spec.blinds.big_blind, spec.big_blind)
        showdown = [seat for seat in seats if not left[seat]]  # all-in already
        able = [seat for seat in seats if left[seat]]
        if len(able) >= 2 and rng.random() < self.contested:
            pair = rng.sample(able, 2)
            shorter = min(left[s] + put[s] for s in pair)
            depth = shorter / max(1, spec.big_blind)
            if rng.random() < min(1.0, self.shove_depth / max(depth, 1e-9)):
                stake = shorter
            else:
                stake = max(spec.big_blind, int(shorter * rng.uniform(0.0, self.max_share)))
            for seat in pair:
                pay(seat, max(0, stake - put[seat]))
            showdown += pair
        elif able:
            showdown.append(rng.choice(able))
        end = dict(left)
        for amount, eligible in _pots(put, showdown):
            end[rng.choice(eligible)] += amount
        return HandReport(
            table=spec.table,
            hand=spec.hand,
            button=spec.blinds.button,
            players=tuple(
                HandPlayer(player, seat, stack, end[seat]) for seat, player, stack in spec.seats
            ),
        )


def _pots(put: dict[int, int], showdown: Sequence[int]) -> list[tuple[int, list[int]]]:
    """The main pot and the side pots (HE-6) of what each seat `put` in: each level's chips
    with the players of `showdown` in for the whole level; a level nobody in the showdown
    reached goes to those who reached the last level below it.

    >>> _pots({1: 100, 2: 300, 3: 300, 4: 50}, [1, 2])
    [(350, [1, 2]), (400, [2])]
    """
    pots: list[tuple[int, list[int]]] = []
    below = 0
    for level in sorted({put[s] for s in showdown}):
        amount = sum(min(p, level) - min(p, below) for p in put.values())
        pots.append((amount, [s for s in showdown if put[s] >= level]))
        below = level
    uncalled = sum(p - min(p, below) for p in put.values())
    if uncalled:  # folded players' chips above the showdown's highest level
        amount, eligible = pots[-1]
        pots[-1] = (amount + uncalled, eligible)
    return pots


# --- the run -----------------------------------------------------------------------------------


@dataclass(slots=True)
class ScaleFigures:
    reports: int = 0
    polls: int = 0
    commits: int = 0
    snapshots: int = 0
    snapshot_seconds: float = 0.0  # the event loop held, all snapshots together
    snapshot_bytes: int = 0  # the last one's
    hands: int = 0
    winner: str | None = None
    seconds: float = 0.0
    core_seconds: list[float] = field(default_factory=list)  # per report: the core's step
    commit_seconds: list[float] = field(default_factory=list)  # per report: until durable
    log: list[dict[str, Any]] = field(default_factory=list)  # the records, when kept


def bench_scale(options: ScaleOptions, *, keep_log: bool = False) -> dict[str, Any]:
    """One tournament; the figures `mtt bench scale --json` prints (and, with `keep_log`,
    the log's records under `log`, for the tests' checks)."""
    config = options.config
    before = _rss_bytes()
    with durable_store(options.backend, options.store_url) as url:
        store = open_store(url)
        try:
            figures = asyncio.run(_play(options, EventLog(store, _stream(config)), keep_log))
        finally:
            store.close()
    peak = _rss_bytes()
    report: dict[str, Any] = {
        "players": config.players,
        "config": config.name,
        "backend": options.backend,
        "pace": options.pace,
        "waits": options.waits,
        "hands_model": options.hands,
        "tables": -(-config.players // config.max_per_table),
        "hands": figures.hands,
        "eliminations_per_hand": round((config.players - 1) / max(1, figures.hands), 5),
        "reports": figures.reports,
        "polls": figures.polls,
        "commits": figures.commits,
        "snapshots": figures.snapshots,
        "snapshot_seconds": round(figures.snapshot_seconds, 2),
        "last_snapshot_mb": round(figures.snapshot_bytes / 2**20, 1),
        "reports_per_s": round(figures.reports / figures.seconds, 1),
        "core_p50_ms": _ms(figures.core_seconds, 0.50),
        "core_p99_ms": _ms(figures.core_seconds, 0.99),
        "commit_p50_ms": _ms(figures.commit_seconds, 0.50),
        "commit_p99_ms": _ms(figures.commit_seconds, 0.99),
        "peak_rss_mb": round(peak / 2**20, 1),
        "bytes_per_player": round((peak - before) / config.players),
        "wall_seconds": round(figures.seconds, 1),
        "winner": figures.winner,
    }
    if keep_log:
        report["log"] = figures.log
    return report


def _stream(config: TournamentConfig) -> str:
    return f"bench-scale/{config.players}/{uuid.uuid4().hex[:8]}"


async def _play(options: ScaleOptions, log: EventLog, keep_log: bool) -> ScaleFigures:
    config, seed = options.config, options.seed
    players = [f"p{k:06d}" for k in range(1, config.players + 1)]
    figures = ScaleFigures()
    started = time.perf_counter()
    opened = TournamentOpened(
        tournament=config.name,
        config=config,
        players=tuple(players),
        deposits=entry_deposits(config, [*players, *late_bot_names(config)]),
        seed=seed,
    )
    now = event_time(time.time())
    tournament, step = open_tournament(opened, now=now)
    records = log.append(step.events, ts=now)
    if keep_log:
        figures.log += records
    model = _model(options)
    pace_rng = random.Random(f"{seed}:pace")
    tasks: set[asyncio.Task[None]] = set()

    polls = LongPolls()
    snapshots = SnapshotPacer(SNAPSHOT_EVERY)

    def take_snapshot() -> None:
        state = snapshots.take(lambda: snapshot(tournament))
        figures.snapshot_bytes = len(state)
        log.offer_snapshot(log.seq, state)

    def stage(decide: Callable[[float, random.Random], Step], report: HandReport | None) -> Step:
        """A step as the actor takes it: decided and staged with no await."""
        now = event_time(time.time())
        step = decide(now, step_rng(seed, log.seq))
        staged = log.stage(step.events, ts=now, hands=_history(report, step))
        polls.stepped(
            step.events, tournament.wake_mark(), tournament.slowest(), tournament.idle_wakes()
        )
        if snapshots.staged(len(step.events)):  # as the actor: at the loop's next turn
            asyncio.get_running_loop().call_soon(take_snapshot)
        if keep_log:
            figures.log += staged
        return step

    async def carry_out(step: Step) -> None:
        """Once the step is durable: the tables it opens."""
        await log.durable()
        for directive in step.directives:
            if isinstance(directive, OpenTable):
                open_table(directive.first)

    async def record(
        decide: Callable[[float, random.Random], Step], report: HandReport | None = None
    ) -> Step:
        began = time.perf_counter()
        step = stage(decide, report)
        decided = time.perf_counter()
        await carry_out(step)
        if report is not None:
            figures.reports += 1
            figures.core_seconds.append(decided - began)
            figures.commit_seconds.append(time.perf_counter() - decided)
        return step

    async def poll(number: int, wait: float) -> Step:
        """A waiting table's poll: held until it may deal, as the actor holds it, or (the old
        path) asked again after a sleep that backs off."""
        figures.polls += 1
        if options.waits == "long":
            return await polls.poll(
                number,
                lambda: stage(lambda now, rng: tournament.poll(number, now=now, rng=rng), None),
                carry_out,
                partial(tournament.release_at, number),
            )
        await asyncio.sleep(wait)
        return await record(lambda now, rng: tournament.poll(number, now=now, rng=rng))

    async def table(first: TableDirective) -> None:
        number = first.table
        await record(lambda now, _: tournament.table_ready(number, now=now))  # START-1
        directive, wait = first, WAIT_SECONDS
        while not directive.close:
            if directive.next_hand is None:
                step = await poll(number, wait)
                wait = min(2 * wait, MAX_WAIT_SECONDS)
            else:
                wait = WAIT_SECONDS
                report = model.play(directive.next_hand)
                if options.pace == "online":
                    median = math.log(options.hand_seconds)
                    await asyncio.sleep(pace_rng.lognormvariate(median, 0.5))
                else:
                    await asyncio.sleep(0)  # the other tables' reports go in the same batch
                step = await record(partial(apply_hand, report), report)
            assert step.reply is not None
            directive = step.reply

    def apply_hand(report: HandReport, now: float, rng: random.Random) -> Step:
        return tournament.apply_hand(report, now=now, rng=rng)

    def open_table(first: TableDirective) -> None:
        task = asyncio.get_running_loop().create_task(table(first))
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    for directive in step.directives:
        if isinstance(directive, OpenTable):
            open_table(directive.first)
    while tasks:
        await asyncio.gather(*list(tasks))
    await log.settle()
    figures.seconds = time.perf_counter() - started
    figures.hands = tournament.hands
    figures.commits = log.commits
    figures.snapshots, figures.snapshot_seconds = snapshots.taken, snapshots.seconds
    if tournament.finished:
        figures.winner = next(iter(tournament.stacks))
    return figures


def _history(report: HandReport | None, step: Step) -> tuple[StoredHand, ...]:
    """The report's history, stored with the step that applied its hand (as the actor's
    `_history`: a step that applied it begins with its `hand_finished`)."""
    if report is None or not report.history or not step.events:
        return ()
    first = step.events[0]
    if not isinstance(first, HandFinished) or (first.table, first.hand) != (
        report.table,
        report.hand,
    ):
        return ()
    return (StoredHand(report.table, report.hand, report.history),)


def _model(options: ScaleOptions) -> HandModel:
    if options.hands == "engine":
        return EngineHands(options.seed)
    return FastHands(random.Random(f"{options.seed}:hands"))


def calibrate(config: TournamentConfig, *, seeds: Sequence[int] = (1, 2, 3)) -> dict[str, Any]:
    """The fast model against the engine and bots on `config` (a small field), flat out on
    SQLite: hands per tournament with each, over `seeds`, and their ratio (model / engine)."""
    totals = {"model": 0, "engine": 0}
    for hands in totals:
        for seed in seeds:
            run = bench_scale(ScaleOptions(config=config, hands=hands, seed=seed))
            totals[hands] += run["hands"]
    return {
        "players": config.players,
        "seeds": len(seeds),
        "engine_hands": totals["engine"],
        "model_hands": totals["model"],
        "ratio": round(totals["model"] / totals["engine"], 3),
    }


def _rss_bytes() -> int:
    """The process's peak resident memory so far (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _ms(values: list[float], quantile: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return round(1000 * ordered[min(len(ordered) - 1, int(quantile * len(ordered)))], 3)
