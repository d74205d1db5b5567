"""Swiss rounds, top cut and sanctions (SW-*, SAN-*): a pure core, no I/O, no clock, no
global RNG. Operations live in `event`, pairing in `pairing`, standings in `standings`, the
bracket in `topcut`, heads-up poker matches in `poker`, file forms in `codec`, views in
`render`; the names below are the surface the CLI and other shells use."""

from orchestrator.competition.swiss.errors import (
    CompetitionError,
    ImpossibleResult,
    InvalidInput,
    InvalidState,
    UnknownPlayer,
)
from orchestrator.competition.swiss.event import (
    advance_cut,
    drop,
    enter_late,
    event_rng,
    new_event,
    pair_next_round,
    report_results,
    start_cut,
)
from orchestrator.competition.swiss.model import (
    CutRule,
    EventConfig,
    MatchResult,
    Pairing,
    Player,
    PokerConfig,
    Round,
    Sanction,
    SanctionKind,
    Stage,
    SwissState,
    Tiebreaker,
)
from orchestrator.competition.swiss.pairing import PairingPlan, pair_round
from orchestrator.competition.swiss.sanctions import disqualify, warn
from orchestrator.competition.swiss.standings import Standing, Status, dense_ranks, standings
from orchestrator.competition.swiss.structure import SW1_TABLE, Structure, structure_for
from orchestrator.competition.swiss.topcut import bracket_order, cut_places

__all__ = [
    "SW1_TABLE",
    "CompetitionError",
    "CutRule",
    "EventConfig",
    "ImpossibleResult",
    "InvalidInput",
    "InvalidState",
    "MatchResult",
    "Pairing",
    "PairingPlan",
    "Player",
    "PokerConfig",
    "Round",
    "Sanction",
    "SanctionKind",
    "Stage",
    "Standing",
    "Status",
    "Structure",
    "SwissState",
    "Tiebreaker",
    "UnknownPlayer",
    "advance_cut",
    "bracket_order",
    "cut_places",
    "dense_ranks",
    "disqualify",
    "drop",
    "enter_late",
    "event_rng",
    "new_event",
    "pair_next_round",
    "pair_round",
    "report_results",
    "standings",
    "start_cut",
    "structure_for",
    "warn",
]
