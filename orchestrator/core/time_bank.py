"""TB-1: a player's time bank, pure (no clock: the seconds a player took come in as numbers).

When an action's time limit (OUT-1) runs out, the bank runs next; only when the bank is empty
is the player put Out. The bank refills by `refill` seconds every `every` levels: at the start
of levels 1 + every, 1 + 2 * every, ... A player seen first at a later level, or who skipped
levels (moved between tables, a long hand), gets every refill he passed, once.

**Decision:** the bank never holds more than it started with (`seconds`). The table waits for a
remote player's answer at most the time limit plus the largest bank plus a margin
(`table_worker.remote`), so the bank needs a bound the table knows in advance.

The bank lives with the player, not with a table: the front door's player hub keeps one per
player of a tournament, across every table he plays at.

>>> rules = TimeBankRules(seconds=30.0, refill=10.0, every=2)
>>> bank = TimeBank.full(rules).after(elapsed=35.0, limit=15.0)  # 20 s over the limit
>>> bank.seconds
10.0
>>> bank.at_level(3, rules).seconds  # level 3 starts: one refill
20.0
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from orchestrator.errors import ConfigError

__all__ = ["TimeBank", "TimeBankRules"]


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeBankRules:
    """A tournament's time bank (TB-1): `seconds` at the start (and at most), `refill` seconds
    added every `every` levels. `seconds = 0` is no bank: the time limit alone (OUT-1)."""

    seconds: float = 0.0
    refill: float = 0.0
    every: int = 1

    def __post_init__(self) -> None:
        if not 0 <= self.seconds <= MAX_BANK_SECONDS:
            raise ConfigError(
                f"time_bank_seconds must be in 0..{MAX_BANK_SECONDS:g}, not {self.seconds!r}"
            )
        if not 0 <= self.refill <= self.seconds:
            raise ConfigError(
                f"time_bank_refill must be in 0..time_bank_seconds ({self.seconds:g}), "
                f"not {self.refill!r}"
            )
        if not 1 <= self.every <= MAX_EVERY_LEVELS:
            raise ConfigError(
                f"time_bank_every must be a whole number of levels in 1..{MAX_EVERY_LEVELS}, "
                f"not {self.every!r}"
            )

    def refills_by(self, level: int) -> int:
        """How many refills have come by the start of `level` (levels count from 1).

        >>> [TimeBankRules(seconds=9, refill=3, every=2).refills_by(n) for n in (1, 2, 3, 5)]
        [0, 0, 1, 2]
        """
        return (max(level, 1) - 1) // self.every


MAX_BANK_SECONDS = 3600.0  # an hour: beyond it a table would wait for ever on one player
MAX_EVERY_LEVELS = 1000


@dataclass(frozen=True, slots=True)
class TimeBank:
    """What is left of one player's bank, and the level it was last brought up to."""

    seconds: float
    level: int = 1

    @staticmethod
    def full(rules: TimeBankRules) -> TimeBank:
        return TimeBank(rules.seconds, 1)

    @property
    def empty(self) -> bool:
        return self.seconds <= 0

    def at_level(self, level: int, rules: TimeBankRules) -> TimeBank:
        """The bank at the start of `level`: a refill for each boundary passed since the
        level it was last at, never above `rules.seconds`. An earlier level changes nothing
        (a replayed or late report)."""
        if level <= self.level:
            return self
        refills = rules.refills_by(level) - rules.refills_by(self.level)
        seconds = min(rules.seconds, self.seconds + refills * rules.refill)
        return TimeBank(seconds, level)

    def allowance(self, limit: float) -> float:
        """The longest a player may take on one action: the time limit, then the bank."""
        return limit + self.seconds

    def after(self, *, elapsed: float, limit: float) -> TimeBank:
        """The bank after an action that took `elapsed` seconds against the time limit
        `limit`: what went beyond the limit came out of the bank, down to empty."""
        if elapsed < 0 or limit < 0:
            raise ValueError(f"elapsed {elapsed!r} and limit {limit!r} must not be negative")
        spent = max(0.0, elapsed - limit)
        return replace(self, seconds=max(0.0, self.seconds - spent))

    def emptied(self) -> TimeBank:
        """The bank once the whole allowance ran out (the player is put Out, TB-1)."""
        return replace(self, seconds=0.0)
