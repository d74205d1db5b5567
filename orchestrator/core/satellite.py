"""Satellites: the prize pool paid as seats in a target tournament (SAT-1..SAT-3). Pure.

- SAT-1 `Seats.of`: N = floor(pool / V) seats (tickets of value V, the target's entry); the
  rest of the pool, less than one seat, is paid in cash to place N+1 (the seat bubble).
- SAT-2: play stops when N players remain (`Tournament` asks `seats_filled` after every hand);
  hand-for-hand applies on the seat bubble (`hand_for_hand` players left, default N + one
  table: `Seats.hand_for_hand`), and everyone busted in a round is placed by ELIM-1 as if at
  one table (`core.hand_for_hand`), so when a round takes the field below N, the best placed
  of its busted take the seats left. A tie ELIM-1 cannot break across the seat line (equal
  stacks at different tables) keeps the order the hands were recorded in: a ticket cannot be
  split as PAY-1 splits cash.
- SAT-3: each of places 1..N gets the same ticket, posted from the pool to the player's ticket
  account in the ledger (`Ledger.award_ticket`); the target's ledger takes it as his entry
  (`Ledger.open_ticket`, `Registration.register(..., ticket=True)`) and a cancellation in
  registration (CRASH-1) refunds it at face value.

The players still in when play stops hold places 1..k by their chips (equal stacks by name):
every one of them is a winner, the first named `tournament_finished`'s `winner`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from orchestrator.core.config import SatelliteRules, TournamentConfig
from orchestrator.errors import ConfigError

__all__ = ["Seats", "seats_filled"]


@dataclass(frozen=True, slots=True)
class Seats:
    """SAT-1: `count` seats of `value` cents, and the `remainder` paid to place count + 1."""

    count: int
    value: int
    remainder: int
    target: str = ""

    @classmethod
    def of(cls, config: TournamentConfig, *, pool: int, field: int) -> Seats | None:
        """The seats `pool` pays for a field of `field` players (None: not a satellite); a pool
        short of one seat, as many seats as players, or a hand-for-hand threshold inside the
        seats is refused, naming the key."""
        if config.satellite is None:
            return None
        return cls.paid(
            config.satellite, pool=pool, field=field, hand_for_hand=config.hand_for_hand
        )

    @classmethod
    def paid(cls, rules: SatelliteRules, *, pool: int, field: int, hand_for_hand: int) -> Seats:
        """SAT-1 for `rules`.

        >>> Seats.paid(SatelliteRules(seat_value=11_000), pool=300 * 1_500, field=300,
        ...            hand_for_hand=0)
        Seats(count=40, value=11000, remainder=10000, target='')
        """
        value = rules.seat_value
        count, remainder = divmod(pool, value)
        if count < 1:
            raise ConfigError(
                f"SAT-1: the prize pool {pool} is smaller than one seat "
                f"(satellite.seat_value {value})"
            )
        if count >= field:
            raise ConfigError(
                f"SAT-1: the prize pool {pool} pays {count} seats of satellite.seat_value "
                f"{value} for {field} players: a satellite needs fewer seats than players"
            )
        if hand_for_hand and hand_for_hand <= count:
            raise ConfigError(
                f"SAT-2: hand_for_hand {hand_for_hand} starts inside the {count} seats; "
                f"set it above {count} (or leave it out: {count} + one table)"
            )
        return cls(count, value, remainder, rules.target)

    def hand_for_hand(self, configured: int, max_per_table: int) -> int:
        """SAT-2: players left when hand-for-hand starts (default: the seats and one table)."""
        return configured or self.count + max_per_table

    def summary(self) -> dict[str, object]:
        """results.json's `satellite` block."""
        return {
            "seats": self.count,
            "seat_value": self.value,
            "remainder": self.remainder,
            "target": self.target,
        }

    def prizes(self) -> list[int]:
        """Each place's value (index 0 is first): N seats, then the cash remainder."""
        return [self.value] * self.count + ([self.remainder] if self.remainder else [])


class _Rounds(Protocol):  # what a structure says of hand-for-hand (`core.structures`)
    def in_rounds(self) -> bool: ...
    def holds_table(self, table: int) -> bool: ...


def seats_filled(
    seats: Seats | None,
    players_left: int,
    tables: Mapping[int, Mapping[int, str]],
    table: int,
    structures: Sequence[_Rounds],
) -> bool:
    """SAT-2: does play stop at `table`'s boundary? With N players left or fewer, and, in
    hand-for-hand, once `table` is the last of its round (every other playing table waits for
    it): the round's busted are then placed together. Out of hand-for-hand the hands in
    progress elsewhere are voided (their players all hold seats already).
    """
    if seats is None or players_left > seats.count:
        return False
    if not any(s.in_rounds() for s in structures):
        return True
    playing = [t for t, seated in tables.items() if t != table and len(seated) >= 2]
    return all(any(s.holds_table(t) for s in structures) for t in playing)
