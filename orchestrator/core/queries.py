"""What the shells, the views and the tests read of a tournament in play: its field, money,
tables and clock, and results.json. Pure, read-only: `Tournament` (`core.tournament`) takes
its steps; this is the other half of its surface."""

from __future__ import annotations

from collections.abc import Mapping

from orchestrator.core.clock import LevelClock
from orchestrator.core.config import BlindLevel, TournamentConfig
from orchestrator.core.levels import blind_level
from orchestrator.core.play import Play
from orchestrator.core.structures import Seating, Structure
from orchestrator.core.tables import TableState
from orchestrator.errors import ReportError, TournamentStateError

__all__ = ["TournamentQueries"]


class TournamentQueries:
    """The queries of `Tournament`, over the fields it declares."""

    __slots__ = ()
    config: TournamentConfig
    tournament_id: str
    play: Play
    hands: int
    cancelled: str | None
    finished: bool
    structures: tuple[Structure, ...]
    seating: Seating

    @property
    def stacks(self) -> Mapping[str, int]:
        return self.play.stacks

    @property
    def places(self) -> Mapping[str, int]:
        return self.play.places

    @property
    def entries(self) -> int:
        return self.play.entries

    @property
    def tables(self) -> Mapping[int, TableState]:
        return self.play.tables

    @property
    def clock(self) -> LevelClock:
        return self.play.clock

    @property
    def paused_at(self) -> float | None:
        return self.play.clock.paused_at

    @property
    def side_events(self) -> int:
        return self.play.side_events

    @property
    def active_players(self) -> int:
        return self.play.active_players

    @property
    def level(self) -> BlindLevel:
        return blind_level(self.config, self.play.clock.level)

    @property
    def paid_places(self) -> int:
        return self.play.paid_places

    @property
    def prize_pool(self) -> int:
        return self.play.prize_pool

    def prizes(self) -> list[int]:
        """Prize by place (index 0 is first), from the configured or the default table."""
        return self.play.prizes()

    def results(self, *, seconds: float) -> dict[str, object]:
        """results.json (DESIGN.md)."""
        results = self.play.results(tournament=self.tournament_id, hands=self.hands)
        results["seconds"] = round(seconds, 3)
        return results | ({} if self.cancelled is None else {"cancelled": self.cancelled})

    # --- when a waiting table may deal (for the shells' long polls) ---------------------

    def wake_mark(self) -> tuple[object, ...]:
        """What the answer to every waiting table can turn on besides its own seats: play
        started or stopped (START-1), the clock paused or a new level, a hand-for-hand round
        ended, the tournament over (or a flight bagging: FL-1, every table closes). A shell
        holding tables' polls asks them again when it changes."""
        clock = self.play.clock
        held = any(structure.holds_tables() for structure in self.structures)
        over = self.finished or self.cancelled is not None or self.play.bagging
        return (self.play.pace.playing, clock.paused, clock.level, held, over)

    def release_at(self, table: int) -> int | None:
        """START-2: a table at its boundary that waits only because it is more than `lead`
        hands ahead deals once the slowest has played this many hands in the level; None when
        it waits for anything else."""
        pace = self.play.pace
        if pace.lead is None or not pace.playing or table not in pace.pacing:
            return None
        if any(structure.in_rounds() for structure in self.structures):
            return None
        ahead = pace.hands[table] - pace.lead
        return ahead if ahead > pace.slowest() else None

    def idle_wakes(self) -> tuple[int, ...] | None:
        """The tables waiting for anything but START-2's lead (short of players, halted) that
        a step may have let go without naming them; None: any of them, after a step that
        moves or eliminates players (`Seating.idle_wakes`)."""
        return self.seating.idle_wakes()

    def slowest(self) -> int:
        """START-2: the hands the slowest table has played in this level."""
        return self.play.pace.slowest()

    def _require_running(self, command: str) -> None:
        if self.finished:
            raise TournamentStateError(f"cannot {command}: the tournament is finished")
        if self.cancelled is not None:
            raise TournamentStateError(
                f"cannot {command}: the tournament was cancelled ({self.cancelled})"
            )

    def _require_table(self, table: int) -> TableState:
        try:
            return self.play.tables[table]
        except KeyError:
            raise ReportError(f"table {table} is not open in this tournament") from None
