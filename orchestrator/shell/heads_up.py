"""Heads-up poker matches on Ray: one table actor per match, all of a round's matches at once.

The actor is a thin shell around `poker.play_match`, given the same seeded RNG the in-process
path uses, so a round played on Ray gives exactly the results it gives in one process.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import ray

from orchestrator.competition.swiss import poker
from orchestrator.competition.swiss.model import Pairing, PokerConfig

__all__ = ["play_round_on_ray"]


class HeadsUpTable:
    """One Swiss match's table: best of three heads-up games (SW-4)."""

    def play(
        self,
        pairing: Pairing,
        policies: tuple[str, str],
        config: PokerConfig,
        rng: random.Random,
    ) -> poker.PokerMatch:
        return poker.play_match(pairing, policies, config, rng)


# Typed as Any: Ray's decorator hides the class behind its own proxy type.
HeadsUpTableActor: Any = ray.remote(num_cpus=0)(HeadsUpTable)


def play_round_on_ray(
    matches: Sequence[tuple[Pairing, tuple[str, str], PokerConfig, random.Random]],
) -> list[poker.PokerMatch]:
    """Play every match of a round at once, one table actor each (Ray must be running)."""
    tables = [HeadsUpTableActor.remote() for _ in matches]
    played: list[poker.PokerMatch] = ray.get(
        [table.play.remote(*match) for table, match in zip(tables, matches, strict=True)]
    )
    for table in tables:
        ray.kill(table)
    return played
