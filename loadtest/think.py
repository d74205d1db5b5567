"""How long a bot thinks before it answers a prompt: a lognormal per action type (fold, check,
call, bet, raise) with its median, and a time-bank tail (TB-1): a small share of decisions run
past the prompt's time limit into part of the player's bank. Pure: the RNG comes in.

The regular draws are capped below the time limit (`LIMIT_SHARE` of it), so only the tail
reaches the bank and a bot never times out by accident; the tail uses at most `bank_use` of the
bank the prompt reports, so it answers before the bank runs out too.

>>> import random
>>> think = ThinkTimes.online()
>>> rng = random.Random(7)
>>> [round(think.sample("call", limit_seconds=10.0, bank_seconds=0.0, rng=rng), 2) for _ in "ab"]
[1.62, 2.36]
>>> ThinkTimes.flat_out().sample("raise", limit_seconds=10.0, bank_seconds=30.0, rng=rng)
0.0
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

from loadtest.errors import ProfileError
from table_worker.engine import DecisionKind

__all__ = ["ACTION_TYPES", "LIMIT_SHARE", "ThinkTimes", "action_type"]

ACTION_TYPES = ("fold", "check", "call", "bet", "raise")
LIMIT_SHARE = 0.8  # a regular decision takes at most this share of the prompt's time limit

# Seconds; roughly what an online room sees: folds are quick, aggression takes longer.
_ONLINE_MEDIANS = {"fold": 1.0, "check": 1.2, "call": 2.0, "bet": 2.8, "raise": 3.2}


def action_type(kind: DecisionKind, call_amount: int) -> str:
    """The action type a decision is timed as: a check or a call, a bet or a raise, by whether
    there was anything to call."""
    if kind is DecisionKind.FOLD:
        return "fold"
    if kind is DecisionKind.CHECK_CALL:
        return "call" if call_amount > 0 else "check"
    return "raise" if call_amount > 0 else "bet"


@dataclass(frozen=True, slots=True, kw_only=True)
class ThinkTimes:
    """Per action type, the median think time (seconds; 0 answers at once) and one lognormal
    shape `sigma`; `bank_share` of decisions instead think past the limit into `bank_use` (at
    most) of the time bank."""

    medians: Mapping[str, float] = field(default_factory=dict)
    sigma: float = 0.6
    bank_share: float = 0.0
    bank_use: float = 0.5

    def __post_init__(self) -> None:
        unknown = set(self.medians) - set(ACTION_TYPES)
        if unknown:
            raise ProfileError(
                f"think.median: unknown action type {sorted(unknown)}; one of {ACTION_TYPES}"
            )
        for name, median in self.medians.items():
            if not (math.isfinite(median) and median >= 0):
                raise ProfileError(f"think.median.{name} is seconds, at least 0, not {median}")
        if not (math.isfinite(self.sigma) and self.sigma >= 0):
            raise ProfileError(f"think.sigma is at least 0, not {self.sigma}")
        if not 0.0 <= self.bank_share <= 1.0:
            raise ProfileError(f"think.bank_share is a share, 0 to 1, not {self.bank_share}")
        if not 0.0 < self.bank_use <= 1.0:
            raise ProfileError(f"think.bank_use is a share, above 0 up to 1, not {self.bank_use}")
        object.__setattr__(self, "medians", dict(self.medians))  # a copy; pickles (processes)

    @classmethod
    def flat_out(cls) -> ThinkTimes:
        """No thinking at all: every answer goes out as soon as the bot has decided."""
        return cls()

    @classmethod
    def online(cls) -> ThinkTimes:
        """An online pace: the medians above, and 2% of decisions into the time bank."""
        return cls(medians=_ONLINE_MEDIANS, bank_share=0.02)

    def sample(
        self, action: str, *, limit_seconds: float, bank_seconds: float, rng: random.Random
    ) -> float:
        """Seconds to think before answering a prompt with `limit_seconds` to act and
        `bank_seconds` in the bank."""
        median = self.medians.get(action, 0.0)
        if median == 0.0 and self.bank_share == 0.0:
            return 0.0
        if bank_seconds > 0 and rng.random() < self.bank_share:
            return limit_seconds + rng.uniform(0.05, self.bank_use) * bank_seconds
        if median == 0.0:
            return 0.0
        drawn = rng.lognormvariate(math.log(median), self.sigma)
        return min(drawn, LIMIT_SHARE * limit_seconds)
