"""Swiss standings: points (SW-3), byes losing ties (SW-2), ordered tie-breakers, dense ranks.

Percentages are exact fractions, each floored at 0.33 (the common card-game convention the
issue asks for): match-win % = points from matches played / (3 x matches played), byes left
out of both (SW-2: a bye is not a match played); game-win % = (3 x games won + games drawn) /
(3 x games played). Opponents' percentages are the mean over reported opponents.

Order: points, then fewer byes (SW-2), then the configured tie-breakers, then the lot drawn at
entry. Ranks are dense over everything but the lot: players equal on all of that share a rank.
Disqualified players (SAN-1) are listed last, without a rank; their matches still count for
their opponents' tie-breakers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from orchestrator.competition.swiss.model import WIN_POINTS, SwissState, Tiebreaker
from orchestrator.competition.swiss.records import PlayerRecord, fold_records

__all__ = ["PERCENT_FLOOR", "Standing", "Status", "dense_ranks", "standings", "tiebreak_value"]

PERCENT_FLOOR = Fraction(33, 100)


class Status(StrEnum):
    ACTIVE = "active"
    DROPPED = "dropped"
    DISQUALIFIED = "disqualified"


@dataclass(frozen=True, slots=True, kw_only=True)
class Standing:
    rank: int | None
    player: str
    points: int
    wins: int
    draws: int
    losses: int
    byes: int
    matches: int
    tiebreaks: tuple[tuple[Tiebreaker, Fraction], ...]
    status: Status


def _match_win(record: PlayerRecord) -> Fraction:
    if not record.matches:
        return PERCENT_FLOOR
    return max(PERCENT_FLOOR, Fraction(record.match_points, WIN_POINTS * record.matches))


def _game_win(record: PlayerRecord) -> Fraction:
    if not record.games:
        return PERCENT_FLOOR
    earned = WIN_POINTS * record.game_wins + record.game_draws
    return max(PERCENT_FLOOR, Fraction(earned, WIN_POINTS * record.games))


def _mean(values: Sequence[Fraction]) -> Fraction:
    return sum(values, Fraction(0)) / len(values) if values else Fraction(0)


def tiebreak_value(
    breaker: Tiebreaker, record: PlayerRecord, records: Mapping[str, PlayerRecord]
) -> Fraction:
    opponents = [records[o] for o in record.opponents]
    if breaker is Tiebreaker.OMW:
        return _mean([_match_win(o) for o in opponents])
    if breaker is Tiebreaker.GW:
        return _game_win(record)
    if breaker is Tiebreaker.OGW:
        return _mean([_game_win(o) for o in opponents])
    return Fraction(sum(o.points for o in opponents))


def dense_ranks(keys: Sequence[object]) -> list[int]:
    """Dense ranks of keys already in order: equal neighbours share a rank, the next rank
    follows on (LG-3's display rule too).

    >>> dense_ranks([71, 65, 54, 54, 42, 42])
    [1, 2, 3, 3, 4, 4]
    """
    ranks: list[int] = []
    for k, key in enumerate(keys):
        if k == 0:
            ranks.append(1)
        else:
            ranks.append(ranks[-1] + (key != keys[k - 1]))
    return ranks


def standings(state: SwissState) -> tuple[Standing, ...]:
    names = [p.name for p in state.players]
    records = fold_records(names, state.rounds)
    lots = {p.name: p.lot for p in state.players}
    disqualified = state.disqualified()
    breakers = state.config.tiebreakers

    def status(name: str) -> Status:
        if name in disqualified:
            return Status.DISQUALIFIED
        player = state.player(name)
        return Status.DROPPED if player and player.dropped_after is not None else Status.ACTIVE

    values = {
        name: tuple((b, tiebreak_value(b, records[name], records)) for b in breakers)
        for name in names
    }

    def key(name: str) -> tuple[object, ...]:
        r = records[name]
        # Negated so that an ascending sort puts the better value first.
        return (name in disqualified, -r.points, r.byes, *(-v for _, v in values[name]))

    ordered = sorted(names, key=lambda n: (key(n), lots[n]))
    ranked = [n for n in ordered if n not in disqualified]
    ranks = dict(zip(ranked, dense_ranks([key(n) for n in ranked]), strict=True))
    return tuple(
        Standing(
            rank=ranks.get(name),
            player=name,
            points=records[name].points,
            wins=records[name].wins,
            draws=records[name].draws,
            losses=records[name].losses,
            byes=records[name].byes,
            matches=records[name].matches,
            tiebreaks=values[name],
            status=status(name),
        )
        for name in ordered
    )
