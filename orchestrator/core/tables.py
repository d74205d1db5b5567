"""One open table as the core deals to it and hears back from it (HE-1, HE-8, HE-9). Pure.

A table plays only the hand the core describes (`NextHand`: seats, stacks, button, blinds,
level); its report is checked against that hand before anything is applied.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from orchestrator.core.blinds import first_blinds, next_blinds
from orchestrator.core.config import BlindLevel
from orchestrator.errors import ReportError
from table_worker.protocol import Blinds, HandReport, NextHand, TableDirective

__all__ = ["TableState"]


@dataclass(slots=True)
class TableState:
    drawn_button: int  # HE-1, for the table's first hand
    blinds: Blinds | None = None
    played_blinds: Blinds | None = None  # of the last hand reported: a voided hand replays
    issued: NextHand | None = None
    last_hand: int = 0  # the last hand reported or voided
    last_directive: TableDirective | None = None
    idle_logged: tuple[int, tuple[int, ...]] | None = None  # last logged idle poll's decision

    @property
    def in_hand(self) -> bool:
        """A hand is dealt and neither reported nor voided yet."""
        return self.issued is not None and self.issued.hand > self.last_hand

    def deal(
        self,
        table: int,
        seats: Mapping[int, str],
        *,
        stacks: Mapping[str, int],
        level: int,
        blinds: BlindLevel,
        betting: str,
        sits_out: Callable[[str], bool],
    ) -> NextHand:
        """The table's next hand: the button drawn (HE-1) or moved on (HE-8, HE-9)."""
        occupied = sorted(seats)
        if self.blinds is None:
            button = self.drawn_button if self.drawn_button in seats else occupied[0]
            self.blinds = first_blinds(button, occupied)
        else:
            self.blinds = next_blinds(self.blinds, occupied)
        self.idle_logged = None
        self.issued = NextHand(
            table=table,
            hand=self.last_hand + 1,
            seats=tuple((seat, seats[seat], stacks[seats[seat]]) for seat in occupied),
            blinds=self.blinds,
            level=level,
            small_blind=blinds.small_blind,
            big_blind=blinds.big_blind,
            ante=blinds.ante,
            big_blind_ante=blinds.big_blind_ante,
            betting=betting,
            sitting_out=tuple(s for s in occupied if sits_out(seats[s])),
        )
        return self.issued

    def verify_report(self, report: HandReport, *, pots: bool = False) -> NextHand:
        """The hand the report is of; `ReportError` for a report untrue to it. Its pots, when
        it has any (or when `pots` requires them: a knockout decides its bounties from them,
        KO-3), must be the hand's: winners among the players eligible, their chips adding up
        to each pot, and every busted player eligible for one."""
        issued = self.issued
        if issued is not None and report.hand == issued.hand and not self.in_hand:
            # CRASH-1: `table_lost` voided it; a call Ray retried can still bring its report
            raise ReportError(
                f"table {report.table} hand {report.hand} was voided when the table was lost"
            )
        if issued is None or report.hand != issued.hand:
            expected = "no hand" if issued is None else f"hand {issued.hand}"
            raise ReportError(
                f"table {report.table} reported hand {report.hand} but was dealt {expected}"
            )
        played = tuple((p.seat, p.player, p.start) for p in report.players)
        if tuple(sorted(played)) != issued.seats:
            raise ReportError(
                f"table {report.table} hand {report.hand}: players, seats or starting stacks "
                "differ from the hand it was dealt"
            )
        chips_in = sum(p.start for p in report.players)
        chips_out = sum(p.end for p in report.players)
        if chips_in != chips_out:
            raise ReportError(
                f"table {report.table} hand {report.hand}: chips not conserved "
                f"({chips_in} in, {chips_out} out)"
            )
        if any(p.end < 0 for p in report.players):
            raise ReportError(f"table {report.table} hand {report.hand}: a negative stack")
        if pots or report.pots:
            _verify_pots(report)
        return issued


def _verify_pots(report: HandReport) -> None:
    where = f"table {report.table} hand {report.hand}"
    seats = {p.seat for p in report.players}
    for pot in report.pots:
        won = dict(pot.winners)
        if not set(won) <= set(pot.eligible) <= seats or sum(won.values()) != pot.amount:
            raise ReportError(f"{where}: a pot of {pot.amount} is not shared among its players")
    claims = {seat for pot in report.pots for seat in pot.eligible}
    for p in report.players:
        if p.end == 0 and p.seat not in claims:
            raise ReportError(f"KO-3: {where} busted {p.player}, but reports no pot he was in")
