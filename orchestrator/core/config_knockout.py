"""The [knockout] section of a tournament's TOML (KO-1..KO-5; its keys are documented in
`core.config_toml`). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from orchestrator.core.config import BOUNTY_KINDS, BountyRules
from orchestrator.core.config_checks import choice, unknown, whole
from orchestrator.errors import ConfigError

__all__ = ["parse_knockout"]


def parse_knockout(raw: object, tournament: Mapping[str, Any], players: int) -> BountyRules | None:
    """KO-1..KO-5: the [knockout] section; the bounty is part of the buy-in."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        raise ConfigError("[knockout] must be a table")
    unknown("knockout", raw, {"kind", "bounty", "cash_percent", "mystery", "mystery_from"})
    kind = choice(raw.get("kind", "knockout"), "knockout.kind", BOUNTY_KINDS)
    bounty = whole(raw.get("bounty"), "knockout.bounty", low=1)
    buy_in = tournament.get("buy_in", 0)
    if bounty > buy_in:
        raise ConfigError(
            f"knockout.bounty {bounty} is larger than the entry's buy_in {buy_in}: the bounty "
            "is part of the buy-in (KO-1)"
        )
    for key, wanted in (("cash_percent", "progressive"), ("mystery", "mystery")):
        if key in raw and kind != wanted:
            raise ConfigError(f'knockout.{key} belongs to kind = "{wanted}", not {kind!r}')
    if "mystery_from" in raw and kind != "mystery":
        raise ConfigError(f'knockout.mystery_from belongs to kind = "mystery", not {kind!r}')
    cash_percent = whole(raw.get("cash_percent", 50), "knockout.cash_percent", high=100)
    mystery: tuple[int, ...] = ()
    mystery_from: int | None = None
    if kind == "mystery":
        listed = raw.get("mystery")
        if not isinstance(listed, list) or not listed:
            raise ConfigError('kind = "mystery" needs knockout.mystery, its list of amounts')
        mystery = tuple(whole(a, "knockout.mystery entry", low=1) for a in listed)
        if tournament.get("late_registration_levels", 0):
            raise ConfigError(
                "knockout.mystery is funded by a known field: no late_registration_levels"
            )
        stage = raw.get("mystery_from", "money")
        if stage != "money":
            mystery_from = whole(stage, 'knockout.mystery_from ("money" or players left)', low=2)
    rules = BountyRules(
        kind=kind,  # type: ignore[arg-type]
        bounty=bounty,
        cash_percent=cash_percent,
        mystery=mystery,
        mystery_from=mystery_from,
    )
    rules.check_funding(players)
    return rules
