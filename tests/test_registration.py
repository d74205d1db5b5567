"""Registration by rule: states and transitions, REG-1 entries, REG-2 unregistering, capacity,
late registration and re-entries by level, SKILL-1..SKILL-3 levels, rankings and admission,
CRASH-1 and CRASH-2 cancellation; every bad input a typed error that changes nothing; and a
hypothesis property over random command sequences."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from orchestrator.core.events import (
    LedgerPosted,
    PlayerRegistered,
    PlayerUnregistered,
    Refund,
    RegistrationClosed,
    RollForwardPaid,
    TournamentCancelled,
)
from orchestrator.core.ledger import Ledger
from orchestrator.core.rankings import (
    STARTING_RANKING,
    Rankings,
    SkillLevel,
    SkillRange,
    ranking_change,
    skill_level,
)
from orchestrator.core.registration import Registration, RegistrationRules, RegistrationState
from orchestrator.errors import (
    AlreadyRegisteredError,
    InsufficientFundsError,
    NotRegisteredError,
    OrchestratorError,
    ReentryError,
    RegistrationClosedError,
    RegistrationError,
    RegistrationStateError,
    SkillRangeError,
    TournamentFullError,
    UnknownEntrantError,
    UnregisterClosedError,
)

BUY_IN, FEE = 10_000, 1_000
PLAYERS = ("ann", "bob", "cy", "dee", "eve")


def make(
    players: tuple[str, ...] = PLAYERS,
    *,
    rankings: dict[str, int] | None = None,
    balance: int = 100_000,
    **rules: Any,
) -> Registration:
    ledger = Ledger()
    room = Rankings(rankings)
    for player in players:
        ledger.open_account(player, balance, now=0.0)
        room.add_player(player)
    terms = RegistrationRules(tournament="Sunday", buy_in=BUY_IN, fee=FEE, **rules)
    return Registration(terms, ledger, room)


def opened(*register: str, **rules: Any) -> Registration:
    reg = make(**rules)
    reg.open(now=1.0)
    for player in register:
        reg.register(player, now=2.0)
    return reg


# --- SKILL ---------------------------------------------------------------------------------


def test_skill1_levels_with_the_gaps_closed() -> None:
    cases = {101: "Beginner", 250: "Beginner", 251: "Expert", 500: "Expert", 501: "Professional"}
    cases |= {750: "Professional", 751: "Legend", 5_000: "Legend"}
    assert {r: skill_level(r).label for r in cases} == cases
    with pytest.raises(ValueError, match="SKILL-1"):
        skill_level(100)


def test_skill3_new_players_start_as_beginners() -> None:
    room = Rankings()
    assert room.add_player("new") == STARTING_RANKING
    assert room.level("new") is SkillLevel.BEGINNER


def test_skill3_ranking_moves_by_place_relative_to_field() -> None:
    assert [ranking_change(p, 3) for p in (1, 2, 3)] == [20, 0, -20]
    assert ranking_change(1, 1) == 0
    assert ranking_change(1, 1_000) == 20 and ranking_change(1_000, 1_000) == -20
    room = Rankings({"a": 300, "b": 300, "c": 300})
    updates = room.record_results({"a": 1, "b": 2, "c": 3})
    assert [(u.player, u.before, u.after) for u in updates] == [
        ("a", 300, 320),
        ("b", 300, 300),
        ("c", 300, 280),
    ]


def test_skill3_ranking_never_falls_below_the_floor_of_the_level_reached() -> None:
    room = Rankings({"expert": 255, "beginner": 101, "legend": 760})
    room.record_results({"legend": 1, "expert": 2, "beginner": 3})
    assert [room.ranking(p) for p in ("legend", "expert", "beginner")] == [780, 255, 101]
    room.record_results({"legend": 2, "expert": 3, "beginner": 1})
    assert room.ranking("expert") == 251  # an Expert never becomes a Beginner again
    assert room.level("expert") is SkillLevel.EXPERT
    for _ in range(5):
        room.record_results({"legend": 3}, field=3)
    assert room.ranking("legend") == 751


def test_skill2_range_of_levels() -> None:
    experts_and_pros = SkillRange.of_levels(SkillLevel.EXPERT, SkillLevel.PROFESSIONAL)
    assert experts_and_pros == SkillRange(251, 750)
    assert SkillRange.of_levels(SkillLevel.LEGEND) == SkillRange(751, None)
    assert [experts_and_pros.admits(r) for r in (250, 251, 750, 751)] == [False, True, True, False]


def test_reg3_skill2_tournament_admits_only_its_ranking_range() -> None:
    reg = opened(rankings={"ann": 300, "bob": 120}, skill_range=SkillRange(251, 500))
    reg.register("ann", now=2.0)
    before = reg.snapshot()
    with pytest.raises(SkillRangeError, match=r"SKILL-2.*120.*Beginner"):
        reg.register("bob", now=2.0)
    assert reg.snapshot() == before
    assert not reg.can_register("bob")


# --- states ---------------------------------------------------------------------------------


def state_of(reg: Registration) -> RegistrationState:
    return reg.state  # a call, so mypy does not narrow the state across commands


def test_states_follow_the_legal_transitions() -> None:
    reg = make()
    assert state_of(reg) is RegistrationState.ANNOUNCED
    with pytest.raises(RegistrationStateError):
        reg.start(now=1.0)
    reg.open(now=1.0)
    with pytest.raises(RegistrationStateError):
        reg.open(now=1.0)
    with pytest.raises(RegistrationStateError):
        reg.finish(now=1.0)
    reg.register("ann", now=2.0)
    reg.register("bob", now=2.0)
    reg.start(now=3.0)
    assert state_of(reg) is RegistrationState.RUNNING
    reg.finish(now=4.0)
    assert state_of(reg) is RegistrationState.FINISHED
    for command in (reg.open, reg.start, reg.finish):
        with pytest.raises(RegistrationStateError):
            command(now=5.0)
    with pytest.raises(RegistrationStateError):
        reg.cancel("late", now=5.0)


def test_start_needs_the_minimum_entries() -> None:
    reg = opened("ann")
    before = reg.snapshot()
    with pytest.raises(RegistrationStateError, match="at least 2"):
        reg.start(now=3.0)
    assert reg.snapshot() == before


def test_cancel_announced_moves_no_money() -> None:
    reg = make()
    assert reg.cancel("no venue", now=1.0) == (TournamentCancelled(reason="no venue"),)
    assert reg.state is RegistrationState.CANCELLED


# --- REG-1, REG-2 ---------------------------------------------------------------------------


def test_reg1_register_debits_fee_to_pool_and_commission_to_operator() -> None:
    reg = opened()
    events = reg.register("ann", now=2.0)
    assert events[0] == PlayerRegistered(player="ann", entry=1, buy_in=BUY_IN, fee=FEE)
    assert [e.amount for e in events[1:] if isinstance(e, LedgerPosted)] == [BUY_IN, FEE]
    assert (reg.prize_pool, reg.ledger.operator, reg.entries) == (BUY_IN, FEE, 1)
    assert reg.ledger.balance_of("ann") == 100_000 - BUY_IN - FEE


def test_reg1_registering_twice_is_refused() -> None:
    reg = opened("ann")
    before = reg.snapshot()
    with pytest.raises(AlreadyRegisteredError):
        reg.register("ann", now=2.0)
    assert reg.snapshot() == before


def test_reg1_registering_when_not_open_is_refused() -> None:
    reg = make()
    with pytest.raises(RegistrationClosedError, match="announced"):
        reg.register("ann", now=1.0)
    reg = opened("ann", "bob")
    reg.start(now=3.0)
    with pytest.raises(RegistrationClosedError, match="after level 0"):
        reg.register("cy", now=4.0)


def test_reg1_registering_without_the_money_is_refused() -> None:
    reg = make(balance=BUY_IN + FEE - 1)
    reg.open(now=1.0)
    before = reg.snapshot()
    with pytest.raises(InsufficientFundsError, match="REG-1"):
        reg.register("ann", now=2.0)
    assert reg.snapshot() == before


def test_registering_an_unknown_player_is_refused() -> None:
    reg = opened()
    before = reg.snapshot()
    with pytest.raises(UnknownEntrantError):
        reg.register("zed", now=2.0)
    with pytest.raises(UnknownEntrantError):
        reg.unregister("zed", now=2.0)
    assert reg.snapshot() == before


def test_capacity_max_entries_refuses_when_full_and_a_refund_frees_a_place() -> None:
    reg = opened("ann", "bob", max_entries=2)
    before = reg.snapshot()
    with pytest.raises(TournamentFullError):
        reg.register("cy", now=2.0)
    assert reg.snapshot() == before
    reg.unregister("bob", now=2.5)
    reg.register("cy", now=3.0)
    assert set(reg.in_play()) == {"ann", "cy"}


def test_reg2_unregister_refunds_entry_less_cancellation_charge() -> None:
    reg = opened("ann", "bob", cancellation_bp=500)  # 5% of 11,000 = 550
    events = reg.unregister("ann", now=3.0)
    assert events[:2] == (
        PlayerUnregistered(player="ann", refund=10_450, charge=550),
        Refund(player="ann", amount=10_450),
    )
    assert reg.ledger.balance_of("ann") == 100_000 - 550
    assert reg.prize_pool == BUY_IN  # bob's buy-in only
    assert reg.ledger.operator == FEE + 550
    assert reg.entries == 1 and reg.in_play() == ("bob",)
    reg.register("ann", now=4.0)  # a new registration, not a re-entry
    assert reg.registrant("ann") is not None and reg.registrant("ann").entries == 1  # type: ignore[union-attr]
    reg.ledger.check()


def test_reg2_unregistering_after_the_start_is_refused() -> None:
    reg = opened("ann", "bob")
    reg.start(now=3.0)
    before = reg.snapshot()
    with pytest.raises(UnregisterClosedError, match="REG-2"):
        reg.unregister("ann", now=4.0)
    assert reg.snapshot() == before
    assert not reg.can_unregister("ann")


def test_reg2_unregistering_a_player_not_registered_is_refused() -> None:
    reg = opened("ann")
    with pytest.raises(NotRegisteredError):
        reg.unregister("bob", now=2.0)


# --- late registration and re-entry ---------------------------------------------------------


def test_late_registration_is_open_through_its_level() -> None:
    reg = opened("ann", "bob", late_registration_levels=2)
    assert reg.start(now=3.0) == ()
    assert reg.level_started(2, now=4.0) == ()
    reg.register("cy", now=4.5)
    closed = reg.level_started(3, now=5.0)
    assert closed == (RegistrationClosed(entries=3, prize_pool=3 * BUY_IN),)
    before = reg.snapshot()
    with pytest.raises(RegistrationClosedError, match="after level 2"):
        reg.register("dee", now=6.0)
    assert reg.snapshot() == before


def test_reentry_allowed_per_player_within_the_window() -> None:
    reg = opened("ann", "bob", late_registration_levels=1, reentries=1)
    reg.start(now=3.0)
    reg.eliminated("ann", now=4.0)
    events = reg.register("ann", now=5.0)
    assert events[0] == PlayerRegistered(player="ann", entry=2, buy_in=BUY_IN, fee=FEE)
    assert reg.entries == 3 and reg.prize_pool == 3 * BUY_IN
    reg.eliminated("ann", now=6.0)
    before = reg.snapshot()
    with pytest.raises(ReentryError, match="1 of 1"):
        reg.register("ann", now=7.0)
    assert reg.snapshot() == before


def test_san1_disqualified_player_may_not_reenter() -> None:
    reg = opened("ann", "bob", late_registration_levels=3, reentries=2)
    reg.start(now=3.0)
    reg.eliminated("ann", now=4.0, disqualified=True)
    with pytest.raises(ReentryError, match="disqualified"):
        reg.register("ann", now=5.0)


# --- prizes and cancellation ----------------------------------------------------------------


def test_prizes_are_paid_from_the_pool_once_per_place() -> None:
    reg = opened("ann", "bob", "cy")
    reg.start(now=3.0)
    reg.eliminated("cy", now=4.0)
    events = reg.pay_prize("bob", place=2, amount=9_000, now=5.0)
    assert [type(e) for e in events] == [LedgerPosted]
    before = reg.snapshot()
    with pytest.raises(RegistrationStateError, match="already paid"):
        reg.pay_prize("ann", place=2, amount=1, now=5.0)
    assert reg.snapshot() == before
    reg.pay_prize("ann", place=1, amount=21_000, now=5.0)
    assert reg.prize_pool == 0
    reg.finish(now=6.0)
    reg.ledger.check()


def test_crash1_cancel_in_registration_refunds_every_player_in_full() -> None:
    reg = opened("ann", "bob", "cy", cancellation_bp=1_000)
    reg.unregister("cy", now=2.5)  # cy paid the REG-2 charge; that stands
    events = reg.cancel("node lost, no other machine", now=3.0)
    assert events[0] == TournamentCancelled(reason="node lost, no other machine")
    refunds = [e for e in events if isinstance(e, Refund)]
    assert refunds == [Refund(player="ann", amount=11_000), Refund(player="bob", amount=11_000)]
    assert reg.ledger.balance_of("ann") == 100_000
    assert reg.prize_pool == 0 and reg.ledger.operator == 1_100
    assert reg.state is RegistrationState.CANCELLED and reg.entries == 0
    reg.ledger.check()


def test_crash2_cancel_while_running_rolls_forward_with_the_chips() -> None:
    reg = opened("ann", "bob", "cy", "dee")
    reg.start(now=3.0)
    reg.eliminated("dee", now=4.0)
    with pytest.raises(NotRegisteredError, match="CRASH-2"):
        reg.cancel("store lost", now=5.0, chips={"ann": 1, "bob": 1})
    events = reg.cancel("store lost", now=5.0, chips={"ann": 6_000, "bob": 3_000, "cy": 1_000})
    paid = {
        e.player: (e.equal_share, e.chip_share) for e in events if isinstance(e, RollForwardPaid)
    }
    assert paid == {"ann": (6_667, 12_000), "bob": (6_667, 6_000), "cy": (6_666, 2_000)}
    assert [e for e in events if isinstance(e, Refund)] == [
        Refund(player=p, amount=FEE) for p in ("ann", "bob", "cy")
    ]
    assert reg.prize_pool == 0 and reg.in_play() == ()
    reg.ledger.check()


# --- bad input changes nothing, for every command -------------------------------------------

Command = Callable[[Registration], object]
COMMANDS: dict[str, Command] = {
    "register": lambda r: r.register("ann", now=9.0),
    "unregister": lambda r: r.unregister("ann", now=9.0),
    "start": lambda r: r.start(now=9.0),
    "level": lambda r: r.level_started(2, now=9.0),
    "eliminate": lambda r: r.eliminated("bob", now=9.0),
    "prize": lambda r: r.pay_prize("bob", place=1, amount=5_000, now=9.0),
    "finish": lambda r: r.finish(now=9.0),
    "cancel": lambda r: r.cancel("test", now=9.0),
    "cancel_with_chips": lambda r: r.cancel("test", now=9.0, chips={"ann": 5}),
}


# weighted by repetition: mostly entries and play, now and then an end
SCRIPT_COMMANDS = (
    *["register"] * 8,
    *["eliminate", "prize", "level", "unregister", "start", "cancel_running"] * 2,
    *["open", "finish", "cancel"],
)


@settings(max_examples=300, deadline=None)
@given(
    script=st.lists(
        st.tuples(
            st.sampled_from(SCRIPT_COMMANDS),
            st.sampled_from((*PLAYERS, "zed")),
            st.integers(0, 25_000),
        ),
        min_size=10,
        max_size=60,
    ),
    late=st.integers(0, 2),
    reentries=st.integers(0, 2),
    charge=st.integers(0, 10_000),
    max_entries=st.none() | st.integers(2, 6),
    open_first=st.integers(0, 4).map(bool),  # mostly opened: the announced state is dull
)
def test_any_command_sequence_keeps_money_balanced_and_refusals_change_nothing(
    script: list[tuple[str, str, int]],
    late: int,
    reentries: int,
    charge: int,
    max_entries: int | None,
    open_first: bool,
) -> None:
    reg = make(
        late_registration_levels=late,
        reentries=reentries,
        cancellation_bp=charge,
        max_entries=max_entries,
        balance=30_000,
    )
    if open_first:
        reg.open(now=0.5)
    opened_total = reg.ledger.total()
    level = 1
    for step, (command, player, amount) in enumerate(script, start=1):
        now = float(step)
        before = reg.snapshot()
        try:
            if command == "open":
                reg.open(now=now)
            elif command == "register":
                reg.register(player, now=now)
            elif command == "unregister":
                reg.unregister(player, now=now)
            elif command == "start":
                reg.start(now=now)
            elif command == "level":
                level += 1
                reg.level_started(level, now=now)
            elif command == "eliminate":
                reg.eliminated(player, now=now)
            elif command == "prize":
                reg.pay_prize(player, place=1 + amount % 5, amount=amount, now=now)
            elif command == "finish":
                reg.finish(now=now)
            elif command == "cancel":
                reg.cancel("test", now=now)
            else:
                chips = {p: 1 + (amount * (k + 1)) % 9_000 for k, p in enumerate(reg.in_play())}
                reg.cancel("test", now=now, chips=chips)
            event(f"{command} accepted")
        except OrchestratorError as refusal:
            # the ledger refuses only money that is not there: a prize above the pool, an
            # entry the player cannot pay
            assert isinstance(refusal, RegistrationError | InsufficientFundsError), refusal
            assert reg.snapshot() == before
        reg.ledger.check()
        assert reg.ledger.total() == opened_total
        assert min(reg.ledger.balances().values()) >= 0
        assert len(reg.in_play()) <= reg.entries or reg.state is RegistrationState.CANCELLED
        if max_entries is not None:
            assert reg.entries <= max_entries
        if reg.state is RegistrationState.CANCELLED:
            assert reg.prize_pool == 0


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_command_refused_in_a_terminal_state_changes_nothing(command: str) -> None:
    reg = opened("ann", "bob")
    reg.cancel("test", now=3.0)
    before = reg.snapshot()
    with pytest.raises(RegistrationError):
        COMMANDS[command](reg)
    assert reg.snapshot() == before
