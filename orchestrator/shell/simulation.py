"""The bots' side of a simulated tournament: the money they bring and when the late ones
register. Pure; `mtt run` (the driver) and the orchestrator actor use it.

The core knows none of this (STYLE.md "The simulation is not the domain"): it opens an account
with the deposit it is given for every player (`Tournament.start(..., deposits=...)`) and
takes each late registration as an ordinary command (`Tournament.register_late`), logged and
replayed by a restarted orchestrator like any other step.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from orchestrator.core.config import TournamentConfig

__all__ = ["LateBots", "entry_deposits", "late_bot_names"]


def entry_deposits(config: TournamentConfig, players: Sequence[str]) -> dict[str, int]:
    """Every bot brings exactly the money for the entries it may take: the first and each
    re-entry (REG-1), in cents.

    >>> from orchestrator.core.config_toml import parse_config
    >>> cfg = parse_config({"tournament": {"buy_in": 100, "fee": 10, "reentries": 1,
    ...     "late_registration_levels": 1}, "levels": {"blinds": [[1, 2]]}})
    >>> entry_deposits(cfg, ["a", "b"])
    {'a': 220, 'b': 220}
    """
    if config.day2 is not None:  # FL-3: they paid in their flights
        return dict.fromkeys(players, 0)
    return dict.fromkeys(players, (config.buy_in + config.fee) * (1 + config.reentries))


def late_bot_names(config: TournamentConfig) -> list[str]:
    """The `late_entries` bots that register late: late00001, late00002, ..."""
    return [f"late{k:05d}" for k in range(1, config.late_entries + 1)]


@dataclass(slots=True)
class LateBots:
    """When each late bot registers: after a number of hands drawn at random in the first
    half of level 1 (so well inside late registration, which lasts at least that level, even
    for a driver that sees the hand count only between its polls)."""

    arrivals: list[tuple[int, str]] = field(default_factory=list)  # (after hands, bot), soonest

    @classmethod
    def draw(cls, config: TournamentConfig, rng: random.Random) -> LateBots:
        tables = -(-config.players // config.max_per_table)
        horizon = max(1, config.level_length * tables // 2)
        return cls(sorted((rng.randrange(horizon), bot) for bot in late_bot_names(config)))

    @property
    def waiting(self) -> bool:
        return bool(self.arrivals)

    def due(self, hands: int) -> list[str]:
        """The bots whose time has come once `hands` hands are played (each named once)."""
        due = [bot for after, bot in self.arrivals if after <= hands]
        self.arrivals = self.arrivals[len(due) :]
        return due
