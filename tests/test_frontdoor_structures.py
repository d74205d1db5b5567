"""Every structure through the front door, without Ray: the desk takes shoot-outs, heads-up
knockouts, rebuys, knockouts and guarantees; a late registrant the start did not fund is funded
in the step of his entry and replays (REG-1); a deal's refusals at the desk (DEAL-1) and how
the lobby folds a deal's events."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest
from test_frontdoor_desk import desk_on
from tournament_checks import funds

from orchestrator.core import codec
from orchestrator.core.config_toml import parse_config
from orchestrator.core.events import (
    DealAnswered,
    DealProposed,
    EventRecord,
    PlayerFunded,
    TournamentOpened,
)
from orchestrator.core.replay import open_tournament, rebuild_from_log, snapshot, step_rng
from orchestrator.core.tournament import Tournament
from orchestrator.errors import (
    AlreadyRegisteredError,
    InsufficientFundsError,
    RegistrationClosedError,
    TournamentFullError,
)
from orchestrator.frontdoor.deal_state import DealState
from orchestrator.frontdoor.errors import InvalidRequest, NotFound, WrongState

LEVELS = '[levels]\nunit = "hands"\nlength = 5\nblinds = [[10, 20], [20, 40]]\n'

STRUCTURES = {
    "shootout": '[tournament]\nname = "so"\nstructure = "shootout"\nmax_per_table = 3\n'
    + LEVELS
    + "[[phases]]\nmax_per_table = 3\nqualifiers = 1\n",
    "heads_up": '[tournament]\nname = "hu"\nstructure = "shootout"\nmax_per_table = 2\n'
    + LEVELS
    + "[shootout]\nheads_up = true\n",
    "rebuy": '[tournament]\nname = "rb"\nstructure = "rebuy"\nstarting_stack = 1500\n'
    + LEVELS
    + "[rebuy]\nauto = false\nlevels = 1\n",
    "knockout": '[tournament]\nname = "ko"\nbuy_in = 1000\n'
    + LEVELS
    + '[knockout]\nkind = "progressive"\nbounty = 400\n',
    "guarantee": '[tournament]\nname = "gtd"\nbuy_in = 1000\n'
    + LEVELS
    + "[payouts]\nguarantee = 50000\n",
    "late": '[tournament]\nname = "late"\nbuy_in = 1000\nlate_registration_levels = 2\n' + LEVELS,
}


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
def test_every_structure_is_created_at_the_front_door(tmp_path: Path, kind: str) -> None:
    desk = desk_on(tmp_path)
    entry = desk.create(STRUCTURES[kind])
    desk.open_registration(entry.tournament_id)
    tokens = [desk.register(entry.tournament_id, p) for p in ("ann", "bob", "cy")]
    assert len(set(tokens)) == 3 and desk.registration_open(entry)
    if kind == "knockout":  # KO-5: the bounty part of each entry is not in the prize pool
        assert entry.registration.prize_pool == 3 * (1000 - 400)


def test_bot_only_structures_are_still_refused_naming_the_key(tmp_path: Path) -> None:
    desk = desk_on(tmp_path)
    late_bots = STRUCTURES["late"].replace("buy_in = 1000\n", "buy_in = 1000\nlate_entries = 3\n")
    with pytest.raises(InvalidRequest, match="late_entries"):
        desk.create(late_bots)
    side = STRUCTURES["rebuy"] + "[side_events]\nplayers = 4\n"
    with pytest.raises(InvalidRequest, match="side_events"):
        desk.create(side)
    assert desk.all() == []


def test_reentries_are_taken_at_the_front_door(tmp_path: Path) -> None:
    """Re-entries are paid from the players' wallets, asked for on their streams
    (tests/test_frontdoor_reentry.py)."""
    desk = desk_on(tmp_path)
    reentries = STRUCTURES["late"].replace("buy_in = 1000\n", "buy_in = 1000\nreentries = 1\n")
    assert desk.create(reentries).config.reentries == 1


def test_deal1_deals_and_rebuys_are_refused_before_the_start(tmp_path: Path) -> None:
    desk = desk_on(tmp_path)
    entry = desk.create(STRUCTURES["rebuy"])
    desk.open_registration(entry.tournament_id)
    desk.register(entry.tournament_id, "ann")

    async def scenario() -> None:
        with pytest.raises(WrongState, match="running"):
            await desk.propose_deal(entry.tournament_id, "icm", 0)
        with pytest.raises(WrongState, match="not running"):
            await desk.request_rebuy(entry.tournament_id, "ann")
        with pytest.raises(WrongState, match="not running"):
            await desk.answer_deal(entry.tournament_id, "ann", True)
        with pytest.raises(NotFound):
            await desk.propose_deal("nope", "icm", 0)

    asyncio.run(scenario())
    assert entry.state == "registering" and entry.deal is None


def test_deal1_the_lobby_folds_a_proposal_its_answers_and_a_refusal() -> None:
    deal = DealState.proposed(
        DealProposed(kind="icm", players=("a", "b"), chips=(300, 100), amounts=(700, 300), left=0)
    )
    deal.answered(DealAnswered(player="a", accepted=True))
    assert deal.state == "proposed"
    deal.answered(DealAnswered(player="b", accepted=False))
    shown = deal.message()
    assert shown.state == "declined"
    assert [(s.player, s.amount, s.answer) for s in shown.shares] == [
        ("a", 700, "accepted"),
        ("b", 300, "declined"),
    ]


def _late_tournament(**tournament: object) -> tuple[Tournament, list[EventRecord], int]:
    cfg = parse_config(
        {
            "tournament": {
                "players": 4,
                "max_per_table": 4,
                "buy_in": 1000,
                "fee": 100,
                "late_registration_levels": 1,
                "reentries": 1,
            }
            | tournament,
            "levels": {"length": 4, "blinds": [[10, 20], [20, 40]]},
        }
    )
    players = ("p0", "p1", "p2", "p3")
    opened = TournamentOpened(
        tournament="t", config=cfg, players=players, deposits=funds(cfg, players), seed=7
    )
    tournament_, step = open_tournament(opened, now=1.0)
    records = [codec.record(e, seq=k, ts=1.0) for k, e in enumerate(step.events, start=1)]
    return tournament_, records, 1100 * 2


def test_reg1_a_late_registrant_the_start_did_not_fund_is_funded_in_his_step_and_replays() -> None:
    tournament, records, deposit = _late_tournament()
    rng = step_rng(7, len(records))
    step = tournament.register_late("newcomer", now=2.0, rng=rng, deposit=deposit)
    assert isinstance(step.events[0], PlayerFunded) and step.events[0].amount == deposit
    assert "newcomer" in tournament.stacks
    after = len(records)
    records += [codec.record(e, seq=after + k, ts=2.0) for k, e in enumerate(step.events, 1)]
    rebuilt = rebuild_from_log(records)
    assert snapshot(rebuilt) == snapshot(tournament)
    # Funding a second time is refused, and changes nothing
    before = snapshot(tournament)
    with pytest.raises(AlreadyRegisteredError):
        tournament.register_late("newcomer", now=3.0, rng=rng, deposit=deposit)
    assert snapshot(tournament) == before


@pytest.mark.parametrize(
    ("settings", "deposit", "error"),
    [
        ({}, 100, InsufficientFundsError),
        ({"max_entries": 4}, 2200, TournamentFullError),
    ],
)
def test_reg1_a_late_registrant_refused_opens_no_account(
    settings: dict[str, object], deposit: int, error: type[Exception]
) -> None:
    tournament, _, _ = _late_tournament(**settings)
    before = snapshot(tournament)
    with pytest.raises(error):
        tournament.register_late("newcomer", now=2.0, rng=random.Random(1), deposit=deposit)
    assert snapshot(tournament) == before


def test_reg1_late_funding_is_refused_once_registration_closed() -> None:
    tournament, _, _ = _late_tournament(late_registration_levels=0, reentries=0)
    before = snapshot(tournament)
    with pytest.raises(RegistrationClosedError):
        tournament.register_late("newcomer", now=2.0, rng=random.Random(1), deposit=2200)
    assert snapshot(tournament) == before
