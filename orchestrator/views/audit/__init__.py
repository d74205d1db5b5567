"""Audit a finished run offline from its files (DESIGN.md "Contracts"; `mtt replay DIR`).

Two layers, so tests can audit what they hold in memory and the CLI what is on disk:
- readers (`files.py`: `read_events`, `read_results`, `read_hand_files`) turn files into plain
  data and raise `UnreadableRun`, naming the file and line, when a file is missing or cannot be
  parsed;
- checks are pure functions of that data and return `Violation` records, never assert, so one
  audit reports everything wrong with a run at once. The log is read as typed events through
  the codec, a record it cannot read being a violation with its seq (`tally.py`), and folded
  once into the read model (`views.read_model`) beside the checks (`log.py`: places, chips,
  seats; `money.py`: entries, prizes, the ledger, bounties; `in_step.py`: START-1, FO-2). The
  hand histories are checked in `hands.py`, results.json in `results.py`.

`audit_run(folder)` puts them together for a run's folder and its side events (RB-6).
Rule labels are RULES.md IDs where one applies, otherwise the contract they come from.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from orchestrator.core.events import PlayerEliminated, SideEventStarted, TournamentFinished
from orchestrator.errors import UnreadableRun
from orchestrator.views.audit.files import PhhSection, read_events, read_hand_files, read_results
from orchestrator.views.audit.hands import (
    HandRecord,
    HandsAudit,
    audit_hands,
    audit_hands_against_log,
    audit_unique_decks,
    hands_against_log,
)
from orchestrator.views.audit.log import audit_events, audit_log
from orchestrator.views.audit.results import audit_results, results_against_log
from orchestrator.views.audit.tally import DecodedLog, decode_log
from orchestrator.views.audit.violations import Violation

__all__ = [
    "AuditReport",
    "HandRecord",
    "HandsAudit",
    "PhhSection",
    "UnreadableRun",
    "Violation",
    "audit_events",
    "audit_hands",
    "audit_hands_against_log",
    "audit_results",
    "audit_run",
    "audit_unique_decks",
    "read_events",
    "read_hand_files",
    "read_results",
]


@dataclass(slots=True)
class AuditReport:
    violations: list[Violation] = field(default_factory=list)
    runs: int = 0  # the main event and its side events
    hands: int = 0  # replayed to their finishing stacks
    decks: int = 0  # commitments verified
    players: int = 0  # places in the logs

    def verdict(self) -> str:
        counts = (
            f"{self.runs} event(s): {self.hands} hands replayed, {self.decks} decks verified, "
            f"{self.players} players placed"
        )
        if not self.violations:
            return f"OK: {counts}"
        return f"FAILED: {len(self.violations)} violation(s); {counts}"


def audit_run(folder: Path) -> AuditReport:
    """Audit `mtt run --out` output: the folder and every side event in `side-events/N/`.
    Raises UnreadableRun when a file the audit needs is missing or cannot be parsed."""
    if not folder.is_dir():
        raise UnreadableRun(f"{folder}: no such folder")
    report = AuditReport()
    all_hands: list[HandRecord] = []
    log = _audit_one(folder, "", report, all_hands)
    announced = [r.event.event for r in log.records if isinstance(r.event, SideEventStarted)]
    for event in announced:  # RB-6: each side event keeps the same contracts in its folder
        _audit_one(folder / "side-events" / str(event), f"side-events/{event}/", report, all_hands)
    on_disk = sorted(p.name for p in (folder / "side-events").glob("*") if p.is_dir())
    for name in sorted(set(on_disk) - {str(e) for e in announced}):
        report.violations.append(
            Violation("RB-6", f"side-events/{name}/", "no side_event_started in the log")
        )
    report.violations += audit_unique_decks(all_hands)
    return report


def _audit_one(
    folder: Path, prefix: str, report: AuditReport, all_hands: list[HandRecord]
) -> DecodedLog:
    log = decode_log(read_events(folder / "events.jsonl"))
    results = read_results(folder / "results.json")
    hands = audit_hands(read_hand_files(folder / "hands", relative_to=folder))
    audited = audit_log(log)
    found = audited.violations
    if audited.tally is not None:  # the cross-checks read the log the audit could read
        found += hands_against_log(log.records, hands.hands)
        found += results_against_log(log.records, audited.tally, results)
    found += hands.violations
    report.violations += [replace(x, where=prefix + x.where) for x in found]
    all_hands += [replace(h, where=prefix + h.where) for h in hands.hands]
    report.runs += 1
    report.hands += hands.replayed
    report.decks += hands.decks_verified
    report.players += sum(
        isinstance(r.event, PlayerEliminated | TournamentFinished) for r in log.records
    )
    return log
