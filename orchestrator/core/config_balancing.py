"""The balancing keys of a tournament's [tournament] table, each checked with the key named.
Pure. `policy` ("equilibrium": FO-2..FO-5, "threshold": CLOSE-1 and BAL-1, "tda": TDA-1..TDA-3),
`tda_breaks` (TDA-2's published procedure under "tda": "due", every table FO-3 no longer needs,
or "one" at a time) and `halt_short_tables` (HALT-1, equilibrium only); `core.config_toml`
shows them in its example."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.core.balancing import BALANCING_POLICIES, TDA_BREAKS
from orchestrator.core.config_checks import choice
from orchestrator.errors import ConfigError

__all__ = ["BALANCING_KEYS", "parse_balancing"]

BALANCING_KEYS = frozenset({"policy", "tda_breaks", "halt_short_tables"})


def parse_balancing(tournament: Mapping[str, Any], structure: str) -> dict[str, Any]:
    """The three keys as `TournamentConfig` fields."""
    policy = choice(tournament.get("policy", "equilibrium"), "policy", BALANCING_POLICIES)
    tda_breaks = choice(tournament.get("tda_breaks", "due"), "tda_breaks", TDA_BREAKS)
    if "tda_breaks" in tournament and policy != "tda":
        raise ConfigError('tda_breaks is the order tables break in under policy = "tda"')
    return {
        "policy": policy,
        "tda_breaks": tda_breaks,
        "halt_short_tables": _halt(tournament.get("halt_short_tables"), policy, structure),
    }


def _halt(value: object, policy: str, structure: str) -> bool | None:
    """HALT-1 on or off; None leaves the default (on for tables of 8+ seats)."""
    if value is None:
        return None
    if not isinstance(value, bool):
        raise ConfigError(f"halt_short_tables must be true or false, not {value!r}")
    if value and (policy != "equilibrium" or structure == "shootout"):
        raise ConfigError(
            'halt_short_tables needs policy = "equilibrium" and tables the floor balances '
            "(not a shoot-out)"
        )
    return value
