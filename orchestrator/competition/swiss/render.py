"""Pairings, standings, the bracket and sanctions as text tables, CSV and JSON.

Each view is first built as rows of strings (`*_rows`), then rendered in the asked format, so
the three formats always carry the same columns. JSON keeps numbers as numbers; percentages
are written with four decimals (the exact fractions stay in the core).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from enum import StrEnum
from fractions import Fraction
from typing import Any

from orchestrator.competition.swiss.model import Round, SwissState, Tiebreaker
from orchestrator.competition.swiss.records import fold_records
from orchestrator.competition.swiss.standings import Standing
from orchestrator.competition.swiss.topcut import cut_places

__all__ = [
    "Format",
    "Table",
    "bracket_table",
    "pairings_table",
    "render",
    "sanctions_table",
    "standings_table",
    "text_table",
]

Cell = str | int | None


class Format(StrEnum):
    TEXT = "text"
    CSV = "csv"
    JSON = "json"


class Table:
    """A titled table: column names and rows, plus notes (logs) shown under the text form."""

    def __init__(
        self,
        title: str,
        columns: Sequence[str],
        rows: Sequence[Sequence[Cell]],
        notes: Sequence[str] = (),
        extra: dict[str, Any] | None = None,
    ) -> None:
        self.title = title
        self.columns = tuple(columns)
        self.rows = [tuple(r) for r in rows]
        self.notes = tuple(notes)
        self.extra = extra or {}


def text_table(columns: Sequence[str], rows: Sequence[Sequence[Cell]]) -> str:
    cells = [[str(c) for c in columns]] + [["" if v is None else str(v) for v in r] for r in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(columns))]
    lines = [
        "  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render(table: Table, fmt: Format) -> str:
    if fmt is Format.CSV:
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(table.columns)
        writer.writerows(["" if v is None else v for v in r] for r in table.rows)
        return out.getvalue()
    if fmt is Format.JSON:
        body: dict[str, Any] = {
            "title": table.title,
            "rows": [dict(zip(table.columns, r, strict=True)) for r in table.rows],
            "notes": list(table.notes),
            **table.extra,
        }
        return json.dumps(body, indent=2, ensure_ascii=False) + "\n"
    parts = [table.title, text_table(table.columns, table.rows)]
    if table.notes:
        parts.append("\n".join(f"* {n}" for n in table.notes))
    return "\n\n".join(parts) + "\n"


def _decimal(value: Fraction) -> str:
    return f"{float(value):.4f}"


def pairings_table(state: SwissState, round_: Round) -> Table:
    rows: list[list[Cell]] = []
    # Points as they stood when the round was paired, not after its results.
    earlier = state.rounds[: round_.number - 1]
    points = {
        n: r.points for n, r in fold_records([p.name for p in state.players], earlier).items()
    }
    for p in round_.pairings:
        result = "BYE" if p.b is None else (p.result.score if p.result else "")
        rows.append(
            [
                p.table,
                p.label or round_.stage.value,
                p.a,
                points.get(p.a),
                p.b or "BYE",
                points.get(p.b) if p.b else None,
                result,
                p.chooser,
                "yes" if round_.deck_check == p.table else "",
            ]
        )
    columns = ["table", "stage", "player_a", "pts_a", "player_b", "pts_b", "result", "chooses"]
    return Table(
        f"{state.config.name}: round {round_.number} ({round_.stage.value})",
        [*columns, "deck_check"],
        rows,
        round_.log,
        {"round": round_.number, "stage": round_.stage.value, "deck_check": round_.deck_check},
    )


def standings_table(state: SwissState, rows_in: Sequence[Standing]) -> Table:
    breakers = state.config.tiebreakers
    rows: list[list[Cell]] = []
    for s in rows_in:
        values = dict(s.tiebreaks)
        rows.append(
            [
                s.rank,
                s.player,
                s.points,
                f"{s.wins}-{s.losses}-{s.draws}",
                s.byes,
                *(
                    str(int(values[b])) if b is Tiebreaker.BUCHHOLZ else _decimal(values[b])
                    for b in breakers
                ),
                s.status.value,
            ]
        )
    columns = ["rank", "player", "points", "w-l-d", "byes", *(b.value for b in breakers), "status"]
    played = len([r for r in state.swiss_rounds if r.is_complete])
    planned = state.structure.rounds if state.structure else "?"
    return Table(
        f"{state.config.name}: standings after {played} of {planned} Swiss rounds", columns, rows
    )


def bracket_table(state: SwissState) -> Table:
    seed_of = {name: k for k, name in enumerate(state.cut_seeds, start=1)}
    rows: list[list[Cell]] = []
    for round_ in state.cut_rounds:
        for p in round_.pairings:
            rows.append(
                [
                    round_.number,
                    p.label,
                    p.table,
                    seed_of.get(p.a),
                    p.a,
                    seed_of.get(p.b) if p.b else None,
                    p.b,
                    p.result.score if p.result else "",
                    p.winner() if p.result else "",
                    p.chooser,
                ]
            )
    places = cut_places(state.cut_rounds, state.cut_seeds)
    notes = [*state.cut_log, *(f"place {place}: {name}" for place, name in places)]
    return Table(
        f"{state.config.name}: top {len(state.cut_seeds)} ({state.config.cut_rule.value} rule)",
        [
            "round",
            "match",
            "table",
            "seed_a",
            "player_a",
            "seed_b",
            "player_b",
            "result",
            "winner",
            "chooses",
        ],
        rows,
        notes,
        {"places": [{"place": pl, "player": name} for pl, name in places]},
    )


def sanctions_table(state: SwissState) -> Table:
    rows: list[list[Cell]] = [
        [s.at, s.round, s.player, s.kind.value, s.judge, s.reason] for s in state.sanctions
    ]
    return Table(
        f"{state.config.name}: sanctions",
        ["at", "round", "player", "kind", "judge", "reason"],
        rows,
    )
