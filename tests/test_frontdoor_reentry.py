"""Re-entries paid from the players' wallets, without Ray (LATE, REG-1; docs/FRONTDOOR.md
"Every structure"): the core re-enters a busted player only when he asks (`reentry_auto`
false), funded in the step of his re-entry (`player_funded`) and replayed from the log; the
desk offers the re-entry to whoever busted with one left, pays it from his wallet under a key
logged before the debit, and a restart closes the window between the debit and the
orchestrator's record."""

from __future__ import annotations

import dataclasses
import random

import pytest
from tournament_checks import opened_tables, quiet

from orchestrator.core import codec
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import Event, EventRecord, PlayerFunded, TournamentOpened
from orchestrator.core.replay import open_tournament, rebuild_from_log, snapshot, step_rng
from orchestrator.core.tournament import Step
from orchestrator.errors import (
    AlreadyRegisteredError,
    InsufficientFundsError,
    ReentryError,
    RegistrationClosedError,
)
from table_worker.protocol import HandPlayer, HandReport, NextHand

PRICE = 1100  # buy-in 1000 + fee 100
SEED = 7


class Logged:
    """A tournament whose every step is logged as the orchestrator logs it (each step's RNG
    from the log position it starts at), so the log rebuilds it."""

    def __init__(self, *, auto: bool, players: int = 3, reentries: int = 1) -> None:
        cfg = parse_config(
            {
                "tournament": {
                    "players": players,
                    "max_per_table": players + 3,  # seats open: re-entrants stay here
                    "buy_in": 1000,
                    "fee": 100,
                    "starting_stack": 1000,
                    "late_registration_levels": 2,
                    "reentries": reentries,
                },
                "levels": {"unit": "hands", "length": 3, "blinds": [[10, 20], [20, 40], [40, 80]]},
            }
        )
        cfg = dataclasses.replace(cfg, reentry_auto=auto)
        names = tuple(f"p{k}" for k in range(players))
        # the front door's start: each player brought exactly one entry (his wallet the rest)
        opened = TournamentOpened(
            tournament="t",
            config=cfg,
            players=names,
            deposits=dict.fromkeys(names, PRICE),
            seed=SEED,
        )
        self.cfg = cfg
        self.tournament, step = open_tournament(opened, now=1.0)
        self.records: list[EventRecord] = []
        self.record(step.events)  # the opening record first
        self.ready = opened_tables(step)
        for table in sorted(self.ready):
            self.take(lambda rng, t=table: self.tournament.table_ready(t, now=1.0))
        for table in sorted(self.ready):
            polled = self.take(lambda rng, t=table: self.tournament.poll(t, now=1.0, rng=rng))
            assert polled.reply is not None
            self.ready[table] = polled.reply

    def record(self, events: list[Event] | tuple[Event, ...]) -> None:
        after = len(self.records)
        self.records += [codec.record(e, seq=after + k, ts=1.0) for k, e in enumerate(events, 1)]

    def take(self, command: object) -> Step:
        assert callable(command)
        step: Step = command(step_rng(SEED, len(self.records)))
        self.record(step.events)
        return step

    def spec(self) -> NextHand:
        """The next hand of the first table, polling it while it waits."""
        table = min(self.ready)
        for _ in range(5):
            spec = self.ready[table].next_hand
            if spec is not None:
                return spec
            polled = self.take(lambda rng: self.tournament.poll(table, now=1.0, rng=rng))
            assert polled.reply is not None
            self.ready[table] = polled.reply
        raise AssertionError(f"table {table} deals no hand")

    def bust(self, player: str = "") -> str:
        """The next hand: `player` (default: the second seat) loses every chip to another
        seat; the busted one."""
        spec = self.spec()
        while player and player not in {p for _, p, _ in spec.seats}:  # dealt in next hand
            played = self.take(
                lambda rng, s=spec: self.tournament.apply_hand(quiet(s), now=1.0, rng=rng)
            )
            assert played.reply is not None
            self.ready[spec.table] = played.reply
            spec = self.spec()
        seats = {p: stack for _, p, stack in spec.seats}
        busted = player or spec.seats[1][1]
        winner = next(p for p in seats if p != busted)
        ends = seats | {busted: 0, winner: seats[winner] + seats[busted]}
        report = HandReport(
            spec.table,
            spec.hand,
            spec.blinds.button,
            tuple(HandPlayer(p, seat, stack, ends[p]) for seat, p, stack in spec.seats),
        )
        step = self.take(lambda rng: self.tournament.apply_hand(report, now=1.0, rng=rng))
        assert step.reply is not None
        self.ready[spec.table] = step.reply
        return busted

    def reenter(self, player: str, deposit: int) -> Step:
        return self.take(
            lambda rng: self.tournament.register_late(player, now=1.0, rng=rng, deposit=deposit)
        )

    def types(self) -> list[str]:
        return [str(r["type"]) for r in self.records]


def test_late_with_reentry_auto_a_bust_with_the_money_re_enters_by_himself() -> None:
    """`mtt run`'s way, unchanged: a player whose account holds another entry re-enters."""
    logged = Logged(auto=True)
    player = logged.bust()
    assert "player_reentered" not in logged.types()  # one entry's money only: out
    assert logged.tournament.late is not None and logged.tournament.late.waiting(player)


def test_late_a_bust_re_enters_only_when_he_asks_funded_in_his_step_and_replayed() -> None:
    logged = Logged(auto=False)
    player = logged.bust()
    assert "player_reentered" not in logged.types()
    late = logged.tournament.late
    assert late is not None and late.waiting(player)
    step = logged.reenter(player, PRICE)
    assert step.events[0] == PlayerFunded(player=player, amount=PRICE)
    kinds = [e.EVENT_TYPE for e in step.events]
    assert "player_registered" in kinds and kinds[-1] == "player_reentered"
    registered = next(e for e in step.events if e.EVENT_TYPE == "player_registered")
    assert registered.fields()["entry"] == 2
    assert not late.waiting(player)
    assert logged.tournament.stacks[player] == logged.cfg.starting_stack
    assert logged.tournament.prize_pool == 1000 * 4  # three entries and the re-entry
    rebuilt = rebuild_from_log(logged.records)
    assert snapshot(rebuilt) == snapshot(logged.tournament)


@pytest.mark.parametrize(
    ("case", "error"),
    [
        ("short", InsufficientFundsError),  # his wallet paid less than the price
        ("in_play", AlreadyRegisteredError),  # he has not busted
        ("twice", ReentryError),  # his one re-entry is used
        ("closed", RegistrationClosedError),  # late registration is over
    ],
)
def test_late_a_re_entry_refused_changes_nothing(case: str, error: type[Exception]) -> None:
    logged = Logged(auto=False, players=4)
    player = logged.bust()
    deposit = PRICE
    if case == "short":
        deposit = PRICE - 1
    elif case == "in_play":
        player = next(p for p in logged.tournament.stacks if p != player)
    elif case == "twice":
        logged.reenter(player, PRICE)
        logged.bust(player)
    elif case == "closed":
        late = logged.tournament.late
        assert late is not None
        # the window over (as its last level ending would leave it), his place still held
        logged.tournament.play.clock.level = logged.cfg.late_registration_levels + 1
    before = snapshot(logged.tournament)
    with pytest.raises(error):
        logged.tournament.register_late(player, now=3.0, rng=random.Random(1), deposit=deposit)
    assert snapshot(logged.tournament) == before
