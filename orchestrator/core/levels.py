"""Blind levels over time or over hands (RB-5), and breaks; pure."""

from __future__ import annotations

from dataclasses import replace

from orchestrator.core.config import BlindLevel, TournamentConfig

__all__ = ["blind_level", "level_due", "level_fields"]


def blind_level(config: TournamentConfig, level: int) -> BlindLevel:
    """Level `level` (1-based). Past the end of the schedule blinds keep doubling ("and so
    on", RB-5), so a simulated tournament always finishes.

    >>> from orchestrator.core.config_toml import parse_config
    >>> cfg = parse_config({"tournament": {}, "levels": {"blinds": [[10, 20], [20, 40, 5]]}})
    >>> blind_level(cfg, 2)
    BlindLevel(small_blind=20, big_blind=40, ante=5, big_blind_ante=False)
    >>> blind_level(cfg, 4)
    BlindLevel(small_blind=80, big_blind=160, ante=20, big_blind_ante=False)
    """
    schedule = config.levels
    if level <= len(schedule):
        return schedule[level - 1]
    last = schedule[-1]
    factor = 2 ** (level - len(schedule))
    return replace(
        last,
        small_blind=last.small_blind * factor,
        big_blind=last.big_blind * factor,
        ante=last.ante * factor,
    )


def level_due(
    config: TournamentConfig,
    *,
    level_started_at: float,
    hands_this_level: int,
    tables_at_level_start: int,
    now: float,
) -> bool:
    """Whether the current level is over: after `length` minutes of play, or, counted in hands,
    after `length` hands per table of `tables_at_level_start` (the clock counts the slowest
    table's hands, at one table: START-2). Breaks and pauses are not play: the caller moves
    `level_started_at` past them."""
    if config.level_unit == "minutes":
        return now - level_started_at >= 60 * config.level_length
    return hands_this_level >= config.level_length * max(1, tables_at_level_start)


def level_fields(level: BlindLevel) -> dict[str, int]:
    """`level_started`'s blind fields."""
    return {"small_blind": level.small_blind, "big_blind": level.big_blind, "ante": level.ante}
