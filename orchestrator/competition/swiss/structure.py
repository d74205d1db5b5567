"""SW-1: how many Swiss rounds and how large a top cut, by field size, as data.

>>> structure_for(8), structure_for(12), structure_for(16), structure_for(30), structure_for(31)
(Structure(rounds=3, cut=4), Structure(rounds=4, cut=4), Structure(rounds=4, cut=8), \
Structure(rounds=5, cut=8), Structure(rounds=6, cut=8))
>>> structure_for(25, fewer_rounds_top16=True)
Structure(rounds=4, cut=16)
"""

from __future__ import annotations

from dataclasses import dataclass

from orchestrator.competition.swiss.errors import InvalidInput

__all__ = ["FEWER_ROUNDS_MIN_PLAYERS", "SW1_TABLE", "FieldBand", "Structure", "structure_for"]


@dataclass(frozen=True, slots=True)
class Structure:
    rounds: int
    cut: int


@dataclass(frozen=True, slots=True)
class FieldBand:
    """Players from `low` to `high` (None: no upper bound) play `rounds` and cut to `cut`."""

    low: int
    high: int | None
    rounds: int
    cut: int


# SW-1, as the source's table reads.
SW1_TABLE: tuple[FieldBand, ...] = (
    FieldBand(1, 8, 3, 4),
    FieldBand(9, 12, 4, 4),
    FieldBand(13, 16, 4, 8),
    FieldBand(17, 30, 5, 8),
    FieldBand(31, None, 6, 8),
)

# SW-1: from 24 players the organiser may play one round fewer with a top 16
# (the source's example: 25 players, 4 rounds + top 16; 31+: 5 rounds + top 16).
FEWER_ROUNDS_MIN_PLAYERS = 24


def structure_for(players: int, *, fewer_rounds_top16: bool = False) -> Structure:
    """Rounds and cut for a field of `players` (SW-1). The organiser's option applies only
    from 24 players; below that it is an error, not silently ignored."""
    if players < 2:
        raise InvalidInput(f"a Swiss event needs at least 2 players, not {players}", rule="SW-1")
    band = next(b for b in SW1_TABLE if b.low <= players and (b.high is None or players <= b.high))
    if not fewer_rounds_top16:
        return Structure(band.rounds, band.cut)
    if players < FEWER_ROUNDS_MIN_PLAYERS:
        raise InvalidInput(
            f"one round fewer with a top 16 needs {FEWER_ROUNDS_MIN_PLAYERS}+ players, "
            f"not {players}",
            rule="SW-1",
        )
    return Structure(band.rounds - 1, 16)
