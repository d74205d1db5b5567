"""`mtt run` of a satellite and its target (SAT-1..SAT-3): the satellite is played to its
seats, then the target with every ticket holder registered by his ticket, beside the target's
own `players` (bots). Each is its own Ray run, in its own folder: the satellite's in `out`,
the target's in `out/target/`, so `mtt replay` and `mtt report` read each one as any run."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from orchestrator.core.config import TournamentConfig
from orchestrator.core.config_satellite import check_target
from orchestrator.core.config_toml import load_config
from orchestrator.errors import ConfigError
from orchestrator.shell.driver import RunOptions, RunSummary, run_tournament

__all__ = ["SatelliteRun", "load_target", "run_satellite", "tickets_won"]


def load_target(
    satellite: TournamentConfig, path: Path, *, given: Path | None = None
) -> TournamentConfig | None:
    """The target `given` (`mtt run --target`), else the one `satellite.target` names,
    relative to the satellite's file at `path` (None when neither names one); a target that
    does not exist or does not charge the seat value is refused naming the key."""
    rules = satellite.satellite
    if given is not None and rules is None:
        raise ConfigError(f"--target: {path} is not a satellite (it has no [satellite] section)")
    if rules is None or not (given or rules.target):
        return None
    where = given or path.parent / rules.target
    if not where.is_file():
        key = "--target" if given else f"satellite.target {rules.target!r}"
        raise ConfigError(f"{key}: no such file ({where})")
    target = load_config(where)
    check_target(satellite, target)
    return target


def tickets_won(results: dict[str, Any]) -> dict[str, int]:
    """SAT-3: each ticket holder and his ticket's value, from a satellite's results.json."""
    return {r["player"]: r["ticket"] for r in results["places"] if r.get("ticket")}


@dataclass(frozen=True, slots=True)
class SatelliteRun:
    satellite: RunSummary
    target: RunSummary | None  # None: the satellite was cancelled, no tickets to spend
    target_out: Path


def run_satellite(
    satellite: TournamentConfig,
    target: TournamentConfig,
    options: RunOptions,
    *,
    progress: Callable[[dict[str, Any]], None] | None = None,
    announce: Callable[[str], None] = print,
) -> SatelliteRun:
    """Play `satellite` to its seats, then `target` with its ticket holders (SAT-3)."""
    played = run_tournament(satellite, options, progress=progress)
    target_out = options.out / "target"
    if "cancelled" in played.results:
        return SatelliteRun(played, None, target_out)
    tickets = tickets_won(played.results)
    announce(
        f"\n{len(tickets)} seats to {target.name} won in {satellite.name}; "
        f"{target.name}: {len(tickets)} ticket holders and {target.players} players, "
        f"writing to {target_out}/"
    )
    target_options = replace(options, out=target_out, force=True)
    finished = run_tournament(target, target_options, progress=progress, tickets=tickets)
    return SatelliteRun(played, finished, target_out)
