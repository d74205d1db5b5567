"""results.json against the log: places, prizes, bounties, the prize pool, entries and hands,
each as one pass over the log leaves them (`tally.Tally`: the places and cents as logged, the
pool, entries and hands the read model keeps)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from orchestrator.core.codec import Recorded
from orchestrator.core.events import EventRecord, PrizeAwarded
from orchestrator.views.audit.tally import Tally, decode_log, fold
from orchestrator.views.audit.violations import Violation, at_seq, is_a

__all__ = ["audit_results", "results_against_log"]


def audit_results(log: Sequence[EventRecord], results: dict[str, Any]) -> list[Violation]:
    """`results_against_log` on the log's records as read; a log that cannot be read gets its
    own violations back (nothing can be compared with it)."""
    decoded = decode_log(log)
    if decoded.unreadable:
        return list(decoded.unreadable)
    return results_against_log(decoded.records, fold(decoded.records), results)


def results_against_log(
    log: Sequence[Recorded], tally: Tally, results: dict[str, Any]
) -> list[Violation]:
    """results.json agrees with the log (`tally` is the log's, all of it)."""
    v: list[Violation] = []
    rows = results.get("places")
    if not isinstance(rows, list) or not all(
        isinstance(r, dict)
        and is_a(r.get("place"), int)
        and is_a(r.get("player"), str)
        and is_a(r.get("prize"), int)
        for r in rows
    ):
        return [
            Violation("contract", "results.json", "places is not a list of {place, player, prize}")
        ]
    places, prizes, bounties = tally.places, tally.prizes, tally.bounties
    for r in log:
        e = r.event
        if isinstance(e, PrizeAwarded) and places.get(e.player) != e.place:
            v.append(
                Violation("ELIM-1", at_seq(r.seq), f"prize for place {e.place}, not {e.player}'s")
            )
    for row in rows:  # KO-5: every bounty cent each player received
        if "bounties" in row and row["bounties"] != bounties[row["player"]]:
            v.append(
                Violation(
                    "KO-5",
                    f"results.json place {row['place']}",
                    f"bounties {row['bounties']}, the log pays {bounties[row['player']]}",
                )
            )
    for row in rows:  # SAT-3: the ticket each holder won
        if row.get("ticket", 0) != tally.tickets[row["player"]]:
            v.append(
                Violation(
                    "SAT-3",
                    f"results.json place {row['place']}",
                    f"ticket {row.get('ticket', 0)}, the log awards {tally.tickets[row['player']]}",
                )
            )
    by_log = sorted((place, player) for player, place in places.items())
    by_results = sorted((row["place"], row["player"]) for row in rows)
    if by_log != by_results:
        differ = sorted(set(by_log) ^ set(by_results))
        v.append(Violation("ELIM-1", "results.json", f"places differ from the log: {differ}"))
    for row in rows:
        if row["prize"] != prizes[row["player"]]:
            v.append(
                Violation(
                    "REG-1",
                    f"results.json place {row['place']}",
                    f"prize {row['prize']}, the log awards {row['player']} {prizes[row['player']]}",
                )
            )
    model = tally.model
    players = model.event_entries or model.entries  # FL-3: a Day 2's are all the flights'
    expected = {"prize_pool": model.prize_pool, "players": players, "hands": model.hands}
    for key, value in expected.items():
        if results.get(key) != value:
            v.append(
                Violation(
                    "contract", f"results.json {key}", f"{results.get(key)!r}, the log says {value}"
                )
            )
    return v
