"""Playing in step (START-1, START-2, HALT-1) and balancing at every boundary (FO-2), in the
core without Ray: unit cases for each rule, and a property test that drives the core as a
cluster would, tables running at random speeds, starting late, losing several players in one
hand, dying and restarting, and checks the rules after every reaction."""

from __future__ import annotations

import heapq
import json
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_recovery import plain
from tournament_checks import begin, check_log, funds, opened_tables, quiet

from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import Event
from orchestrator.core.pace import Pace
from orchestrator.core.replay import rebuild, step_rng
from orchestrator.core.tournament import Step, Tournament
from orchestrator.errors import ConfigError
from table_worker.protocol import HandPlayer, HandReport, NextHand, TableDirective


def config(
    players: int,
    *,
    seats: int = 10,
    unit: str = "hands",
    length: int = 3,
    levels: dict[str, Any] | None = None,
    **tournament: Any,
) -> TournamentConfig:
    return parse_config(
        {
            "tournament": {
                "players": players,
                "max_per_table": seats,
                "starting_stack": 1000,
                **tournament,
            },
            "levels": {
                "unit": unit,
                "length": length,
                "blinds": [[10, 20], [20, 40], [40, 80], [80, 160]],
                **(levels or {}),
            },
        }
    )


def start(cfg: TournamentConfig, *, now: float = 0.0, seed: int = 1) -> tuple[Tournament, Step]:
    names = [f"p{k}" for k in range(cfg.players)]
    return Tournament.start(
        cfg,
        names,
        deposits=funds(cfg, names),
        tournament_id="t",
        now=now,
        rng=random.Random(seed),
    )


def kinds(step: Step) -> list[str]:
    return [e.EVENT_TYPE for e in step.events]


def busting(spec: NextHand, count: int) -> HandReport:
    """A report of `spec` in which the first `count` players lose everything to the last."""
    ends = {p: c for _, p, c in spec.seats}
    winner = spec.seats[-1][1]
    for _, player, chips in spec.seats[:count]:
        ends[winner] += chips
        ends[player] = 0
    return HandReport(
        spec.table,
        spec.hand,
        spec.blinds.button,
        tuple(HandPlayer(p, s, c, ends[p]) for s, p, c in spec.seats),
    )


# --- START-1 --------------------------------------------------------------------------------


def test_start1_no_table_deals_before_every_table_is_ready() -> None:
    tournament, opening = start(config(30))
    first = opened_tables(opening)
    assert sorted(first) == [1, 2, 3] and all(d.wait for d in first.values())
    rng = random.Random(0)
    for table in (1, 2):
        assert kinds(tournament.table_ready(table, now=1.0)) == ["table_ready"]
        assert tournament.table_ready(table, now=1.5).events == []  # once per table
    for table in (1, 2, 3):  # table 3's actor has not answered: everybody waits
        polled = tournament.poll(table, now=2.0, rng=rng)
        assert polled.events == [] and polled.reply == TableDirective(table, None)
    ready = tournament.table_ready(3, now=3.0)
    assert [(e.EVENT_TYPE, e.fields()) for e in ready.events] == [
        ("table_ready", {"table": 3}),
        ("play_started", {"tables": (1, 2, 3), "held_seconds": 3.0}),
    ]
    for table in (1, 2, 3):  # now each deals at its next poll, logged (table_polled)
        dealt = tournament.poll(table, now=3.1, rng=rng)
        assert kinds(dealt) == ["table_polled"]
        assert dealt.reply is not None and dealt.reply.next_hand is not None


def test_start1_the_level_clock_starts_when_play_starts() -> None:
    cfg = config(20, unit="minutes", length=10)
    tournament, opening = start(cfg, now=100.0)
    for table in sorted(opened_tables(opening)):
        step = tournament.table_ready(table, now=160.0)
    assert step.events[-1].fields() == {"tables": (1, 2), "held_seconds": 60.0}
    assert tournament.clock.level_started_at == 160.0  # 10 minutes of play from here


def test_start1_after_a_pause_every_table_starts_again_together() -> None:
    tournament, opening = start(config(30, length=50))
    ready = begin(tournament, opening, now=1.0)
    tournament.pause(now=2.0)
    rng = random.Random(0)
    hands = {t: d.next_hand for t, d in ready.items()}
    spec = hands[1]
    assert spec is not None
    done = tournament.apply_hand(quiet(spec), now=3.0, rng=rng)
    assert done.reply == TableDirective(1, None)  # the hand in progress ends; it waits
    tournament.resume(now=10.0)
    assert tournament.poll(1, now=11.0, rng=rng).reply == TableDirective(1, None)  # 2, 3 play
    for table in (2, 3):
        spec = hands[table]
        assert spec is not None
        last = tournament.apply_hand(quiet(spec), now=12.0, rng=rng)
    assert kinds(last)[-1] == "play_started"  # the last table at its boundary starts play
    assert last.reply is not None and last.reply.next_hand is not None
    polled = tournament.poll(1, now=12.5, rng=rng)
    assert polled.reply is not None and polled.reply.next_hand is not None


def test_start1_after_a_break_every_table_starts_again_together() -> None:
    cfg = parse_config(
        {
            "tournament": {"players": 20, "max_per_table": 10, "starting_stack": 1000},
            "levels": {"unit": "minutes", "length": 1, "blinds": [[10, 20], [20, 40]]},
            "breaks": [{"after_level": 1, "minutes": 5}],
        }
    )
    tournament, opening = start(cfg)
    ready = begin(tournament, opening)
    rng = random.Random(0)
    first, second = ready[1].next_hand, ready[2].next_hand
    assert first is not None and second is not None
    late = tournament.apply_hand(quiet(first), now=70.0, rng=rng)  # the level is over
    assert "break_started" in kinds(late) and late.reply == TableDirective(1, None)
    after = tournament.apply_hand(quiet(second), now=80.0, rng=rng)  # its hand in progress
    assert after.reply == TableDirective(2, None) and "play_started" not in kinds(after)
    assert tournament.poll(1, now=300.0, rng=rng).events == []  # 5 minutes from 70 s
    resumed = tournament.poll(1, now=371.0, rng=rng)
    assert kinds(resumed) == ["table_polled", "play_started"]
    assert tournament.clock.level_started_at == 371.0


def test_start1_a_new_shootout_phase_starts_when_its_tables_are_ready() -> None:
    cfg = parse_config(
        {
            "tournament": {"structure": "shootout", "players": 4, "starting_stack": 1000},
            "levels": {"length": 5, "blinds": [[10, 20], [20, 40]]},
            "shootout": {"heads_up": True},
        }
    )
    tournament, opening = start(cfg)
    ready = begin(tournament, opening)
    rng = random.Random(0)
    opened: dict[int, TableDirective] = {}
    for directive in ready.values():
        assert directive.next_hand is not None
        step = tournament.apply_hand(busting(directive.next_hand, 1), now=5.0, rng=rng)
        opened.update(opened_tables(step))
    assert list(opened) == [3] and opened[3].wait  # the final waits for its actor
    assert tournament.poll(3, now=6.0, rng=rng).reply == TableDirective(3, None)
    assert kinds(tournament.table_ready(3, now=7.0)) == ["table_ready", "play_started"]


def test_start1_a_table_lost_between_hands_holds_nobody_back_and_rejoins() -> None:
    cfg = config(30, levels={"lead": 0})  # hand for hand: any table left behind holds all
    tournament, opening = start(cfg)
    ready = begin(tournament, opening)
    rng = random.Random(0)
    spec = ready[3].next_hand
    assert spec is not None
    assert tournament.apply_hand(quiet(spec), now=1.0, rng=rng).reply == TableDirective(3, None)
    lost = tournament.table_lost(3)  # one hand ahead, waiting: nothing to void
    assert [(e.EVENT_TYPE, e.fields()) for e in lost] == [("table_lost", {"table": 3})]
    assert tournament.table_lost(3) == []  # the loss is news once
    for _ in range(3):  # tables 1 and 2 play round after round without table 3
        for table in (1, 2):
            spec = ready[table].next_hand
            assert spec is not None, f"table {table} held back by the lost table"
            step = tournament.apply_hand(quiet(spec), now=2.0, rng=rng)
            assert step.reply is not None
            ready[table] = step.reply
        step = tournament.poll(1, now=2.0, rng=rng)  # it waited for table 2's hand
        assert step.reply is not None
        ready[1] = step.reply
    back = tournament.table_restarted(3, node="n2")
    assert back.reply is not None and back.reply.next_hand is not None  # the running clock


# --- START-2 --------------------------------------------------------------------------------


def test_start2_a_table_more_than_lead_hands_ahead_of_the_slowest_waits() -> None:
    tournament, opening = start(config(20, length=50, levels={"lead": 2}))
    ready = begin(tournament, opening)
    rng = random.Random(0)
    spec = ready[1].next_hand
    played = 0
    while spec is not None:
        step = tournament.apply_hand(quiet(spec), now=1.0, rng=rng)
        played += 1
        assert step.reply is not None
        spec = step.reply.next_hand
    assert played == 3  # 3 ahead of table 2 (none played): more than 2, it waits
    assert tournament.poll(1, now=2.0, rng=rng).reply == TableDirective(1, None)
    table_2 = ready[2].next_hand
    assert table_2 is not None
    tournament.apply_hand(quiet(table_2), now=3.0, rng=rng)
    dealt = tournament.poll(1, now=4.0, rng=rng)
    assert dealt.reply is not None and dealt.reply.next_hand is not None


def test_start2_levels_in_hands_change_when_the_slowest_table_has_played_them() -> None:
    tournament, opening = start(config(20, length=2, levels={"lead": 5}))
    ready = begin(tournament, opening)
    rng = random.Random(0)
    specs = {t: d.next_hand for t, d in ready.items()}

    def hand(table: int) -> list[str]:
        spec = specs[table]
        assert spec is not None
        step = tournament.apply_hand(quiet(spec), now=1.0, rng=rng)
        assert step.reply is not None
        specs[table] = step.reply.next_hand
        return kinds(step)

    for _ in range(4):
        assert "level_started" not in hand(1)  # table 2 has played none
    assert "level_started" not in hand(2)
    assert "level_started" in hand(2)  # the slowest has played its 2 hands: level 2
    assert tournament.clock.level == 2
    assert "level_started" not in hand(2)  # table 1 carries 2 hands into level 2
    assert "level_started" in hand(2)


# --- HALT-1 ---------------------------------------------------------------------------------


def test_halt1_a_table_3_short_of_the_fullest_waits_until_balancing_brings_it_within_2() -> None:
    tournament, opening = start(config(20))  # two tables of 10
    ready = begin(tournament, opening)
    rng = random.Random(0)
    short, full = ready[1].next_hand, ready[2].next_hand
    assert short is not None and full is not None
    step = tournament.apply_hand(busting(short, 3), now=1.0, rng=rng)  # 7 against 10
    assert step.reply == TableDirective(1, None)
    assert tournament.poll(1, now=2.0, rng=rng).reply == TableDirective(1, None)
    filled = tournament.apply_hand(quiet(full), now=3.0, rng=rng)  # FO-2: 10 -> 9, 7 -> 8
    assert kinds(filled).count("player_moved") == 1
    dealt = tournament.poll(1, now=4.0, rng=rng)
    assert dealt.reply is not None and dealt.reply.next_hand is not None


@pytest.mark.parametrize(
    ("settings", "halts"),
    [
        ({}, True),  # on by default from 8 seats
        ({"halt_short_tables": False}, False),
        ({"seats": 7}, False),  # off by default below 8 seats
        ({"seats": 7, "halt_short_tables": True}, True),
    ],
)
def test_halt1_is_on_from_8_seats_and_a_tournament_may_turn_it_off(
    settings: dict[str, Any], halts: bool
) -> None:
    seats = settings.pop("seats", 10)
    tournament, opening = start(config(2 * seats, seats=seats, **settings))
    ready = begin(tournament, opening)
    spec = ready[1].next_hand
    assert spec is not None
    step = tournament.apply_hand(busting(spec, 3), now=1.0, rng=random.Random(0))
    assert step.reply is not None and step.reply.wait is halts


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"levels": {"lead": -1}}, "levels.lead must be 0..1000"),
        ({"levels": {"lead": 1.5}}, "levels.lead must be a whole number"),
        ({"unit": "minutes", "levels": {"lead": 2}}, "levels.lead counts hands"),
        ({"halt_short_tables": "yes"}, "halt_short_tables must be true or false"),
        ({"halt_short_tables": True, "policy": "threshold"}, "halt_short_tables needs policy"),
    ],
)
def test_start2_halt1_config_keys_are_checked_naming_the_key(
    data: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        config(20, **data)


def test_start2_lead_defaults_to_2() -> None:
    assert config(20).level_lead == 2
    assert config(20, levels={"lead": 0}).level_lead == 0


# --- FO-2 at every boundary -----------------------------------------------------------------


def test_fo2_a_table_2_above_the_shortest_gives_even_when_it_is_not_the_fullest() -> None:
    cfg = config(28, halt_short_tables=False)  # 10, 9, 9 (SEAT-1)
    tournament, opening = start(cfg)
    ready = begin(tournament, opening)
    rng = random.Random(0)
    sizes = {t: len(s) for t, s in tournament.seating.tables.items()}
    nine, other = sorted(t for t, n in sizes.items() if n == 9)
    spec = ready[other].next_hand
    assert spec is not None
    tournament.apply_hand(busting(spec, 2), now=1.0, rng=rng)  # 10, 9, 7: nobody at a boundary
    spec = ready[nine].next_hand
    assert spec is not None
    step = tournament.apply_hand(quiet(spec), now=2.0, rng=rng)  # 9 is 2 above 7: it gives
    assert kinds(step).count("player_moved") == 1
    assert sorted(len(s) for s in tournament.seating.tables.values()) == [8, 8, 10]


def test_fo2_a_table_waiting_at_its_boundary_gives_when_it_is_polled() -> None:
    cfg = config(20, levels={"lead": 0}, halt_short_tables=False)
    tournament, opening = start(cfg)
    ready = begin(tournament, opening)
    rng = random.Random(0)
    first, second = ready[1].next_hand, ready[2].next_hand
    assert first is not None and second is not None
    waiting = tournament.apply_hand(quiet(first), now=1.0, rng=rng)
    assert waiting.reply == TableDirective(1, None)  # lead 0: it waits for table 2's hand
    tournament.apply_hand(busting(second, 3), now=2.0, rng=rng)  # 10 against 7
    polled = tournament.poll(1, now=3.0, rng=rng)
    assert kinds(polled)[:2] == ["table_polled", "player_moved"]  # 10, 7 -> 9, 8
    assert sorted(len(s) for s in tournament.seating.tables.values()) == [8, 9]


# --- the property ---------------------------------------------------------------------------


@dataclass(order=True)
class Due:
    at: float
    order: int
    table: int = field(compare=False)
    what: str = field(compare=False)  # ready, poll, report, restart


class Cluster:
    """The tables of one tournament on a simulated cluster, driving the core as the actor does:
    every step with its logged time and its step RNG, its events logged."""

    POLL = 1.0

    def __init__(self, cfg: TournamentConfig, seed: int) -> None:
        self.cfg, self.seed = cfg, seed
        self.dice = random.Random(f"{seed}:cluster")
        self.names = [f"p{k}" for k in range(cfg.players)]
        self.tournament, opening = Tournament.start(
            cfg,
            self.names,
            deposits=funds(cfg, self.names),
            tournament_id="t",
            now=0.0,
            rng=step_rng(seed, 0),
        )
        self.log: list[dict[str, Any]] = []
        self.cause: int | None = None
        self.playing = False
        self.record(opening.events, 0.0)
        self.queue: list[Due] = []
        self.order = 0
        self.speed = {t: self.dice.uniform(0.5, 4.0) for t in opening_tables(opening)}
        self.dealt: dict[int, NextHand] = {}
        for table in opening_tables(opening):  # actors start late, in any order
            self.due(self.dice.uniform(0.0, 15.0), table, "ready")
            self.due(self.dice.uniform(0.0, 1.0), table, "poll")

    def due(self, at: float, table: int, what: str) -> None:
        self.order += 1
        heapq.heappush(self.queue, Due(at, self.order, table, what))

    def record(self, events: list[Event], at: float) -> None:
        self.cause = None
        for event in events:
            entry = {"seq": len(self.log) + 1, "ts": at, "type": event.EVENT_TYPE}
            entry.update(event.fields())
            if event.EVENT_TYPE == "hand_finished":
                self.cause = entry["seq"]
            elif self.cause is not None:
                entry["cause"] = self.cause
            self.log.append(json.loads(json.dumps(entry)))  # as the store gives it back
            if event.EVENT_TYPE == "play_started":
                self.playing = True
            elif event.EVENT_TYPE in ("tournament_paused", "break_started"):
                self.playing = False

    def rng(self) -> random.Random:
        return step_rng(self.seed, len(self.log))

    def run(self, *, limit: int = 5000) -> None:
        t = self.tournament
        for _ in range(limit):
            if t.finished or not self.queue:
                return
            due = heapq.heappop(self.queue)
            if due.table not in t.tables:
                continue
            now = due.at
            if due.what == "ready":
                self.record(t.table_ready(due.table, now=now).events, now)
                continue
            if due.what == "restart":
                step = t.table_restarted(due.table, node="n2")
                self.react(due.table, step, now, boundary=False)
            elif due.what == "poll":
                if self.dice.random() < 0.02:  # its actor dies between two hands
                    self.record(t.table_lost(due.table), now)
                    self.due(now + self.dice.uniform(1.0, 6.0), due.table, "restart")
                    continue
                step = t.poll(due.table, now=now, rng=self.rng())
                self.react(due.table, step, now, boundary=bool(step.events))
            else:
                spec = self.dealt.pop(due.table)
                if self.dice.random() < 0.05:  # its actor dies in the hand: voided
                    self.record(t.table_lost(due.table), now)
                    self.due(now + self.dice.uniform(1.0, 6.0), due.table, "restart")
                    continue
                step = t.apply_hand(self.hand(spec), now=now, rng=self.rng())
                self.react(due.table, step, now, boundary=True)

    def hand(self, spec: NextHand) -> HandReport:
        """0 to 3 of its players lose everything to one of the others."""
        count = min(len(spec.seats) - 1, self.dice.choice((0, 0, 0, 1, 1, 2, 3)))
        losers = self.dice.sample(range(len(spec.seats)), count)
        ends = {p: c for _, p, c in spec.seats}
        winner = self.dice.choice([p for k, (_, p, _) in enumerate(spec.seats) if k not in losers])
        for k in losers:
            player = spec.seats[k][1]
            ends[winner] += ends[player]
            ends[player] = 0
        return HandReport(
            spec.table,
            spec.hand,
            spec.blinds.button,
            tuple(HandPlayer(p, s, c, ends[p]) for s, p, c in spec.seats),
        )

    def react(self, table: int, step: Step, now: float, *, boundary: bool) -> None:
        """Log the step, check the rules, and carry out its directive."""
        self.record(step.events, now)
        assert step.reply is not None
        self.check(table, step.reply, boundary=boundary)
        if step.reply.close:
            return
        if step.reply.next_hand is not None:
            self.dealt[table] = step.reply.next_hand
            self.due(now + self.speed[table] * self.dice.uniform(0.5, 1.5), table, "report")
        else:
            self.due(now + self.POLL, table, "poll")

    def check(self, table: int, reply: TableDirective, *, boundary: bool) -> None:
        t = self.tournament
        tables: Mapping[int, Mapping[int, str]] = t.seating.tables
        if t.finished:
            return
        counts = {n: len(seats) for n, seats in tables.items()}
        # FO-3: the fewest tables that seat everyone.
        assert len(tables) == math.ceil(t.active_players / self.cfg.max_per_table), counts
        # FO-2: a table that reached its boundary left it within 1 of the shortest.
        if boundary and table in counts:
            assert counts[table] < min(counts.values()) + 2, (table, counts)
        if reply.next_hand is not None:
            assert self.playing, f"START-1: table {table} dealt before play_started"
            if self.cfg.halts_short_tables:  # HALT-1
                assert max(counts.values()) - counts[table] < 3, (table, counts)


def opening_tables(step: Step) -> list[int]:
    return sorted(opened_tables(step))


@settings(max_examples=2000, deadline=None)
@given(
    players=st.integers(2, 28),
    seats=st.integers(2, 10),
    lead=st.integers(0, 3),
    halt=st.sampled_from([None, True, False]),
    seed=st.integers(0, 2**32),
)
def test_fo2_fo3_start1_halt1_hold_after_every_reaction_of_a_cluster_at_random_speeds(
    players: int, seats: int, lead: int, halt: bool | None, seed: int
) -> None:
    settings_: dict[str, Any] = {} if halt is None else {"halt_short_tables": halt}
    cfg = config(players, seats=seats, levels={"lead": lead}, **settings_)
    cluster = Cluster(cfg, seed)
    cluster.run()
    assert cluster.tournament.finished, "the tables stopped short of a winner (a deadlock)"
    check_log(cfg, cluster.log)  # the audit: START-1 and FO-2 from the log alone, and more
    if seed % 8 == 0:  # and the log replays to the same core
        rebuilt = rebuild(
            cfg,
            cluster.names,
            deposits=funds(cfg, cluster.names),
            tournament_id="t",
            seed=seed,
            records=cluster.log,
        )
        assert plain(rebuilt) == plain(cluster.tournament)


def test_start2_the_lead_holds_no_table_back_in_hand_for_hand_rounds() -> None:
    """START-2's lead and ELIM-1's hand-for-hand rounds: during the rounds every table plays
    one hand and waits for the others, so a table ahead of the slowest must still deal its
    round's hand (held by the lead it would wait for a table that waits for the round: a run
    hung so, a table 47 hands ahead of a table opened for a late entrant)."""
    pace = Pace(lead=2, length=10, halt=False, playing=True)
    seating = {5: {1: "a", 2: "b", 3: "c"}, 9: {1: "d", 2: "e", 3: "f"}}
    pace.ready = {5, 9}
    pace.sync(seating)
    for _ in range(5):
        pace.hand_played(5)
    assert not pace.may_deal(5, seating)  # START-2: 5 hands ahead of table 9, it waits
    assert pace.may_deal(5, seating, in_rounds=True)  # hand-for-hand: its round's hand
    assert pace.may_deal(9, seating)
