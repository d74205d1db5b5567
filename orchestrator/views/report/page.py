"""The report as one self-contained HTML page: inline CSS, charts as data URIs, no scripts."""

from __future__ import annotations

import base64
import statistics
from collections.abc import Callable, Iterable, Sequence
from html import escape
from typing import Any

from orchestrator.views.amounts import money
from orchestrator.views.report.charts import Chart
from orchestrator.views.report.figures import PlayerFairness, RunFigures

__all__ = ["money", "render_event_page", "render_page"]

_CSS = """
body { font: 15px/1.45 system-ui, sans-serif; color: #1f2933; margin: 0; background: #f3f4f6; }
main { max-width: 1180px; margin: 0 auto; padding: 24px; }
h1 { font-size: 28px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 32px 0 8px; }
.sub { color: #52606d; margin: 0 0 16px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; }
.card { background: #fff; border-radius: 8px; padding: 12px 14px; box-shadow: 0 1px 2px #0002; }
.card b { display: block; font-size: 22px; }
.card span { color: #52606d; font-size: 13px; }
figure { background: #fff; border-radius: 8px; margin: 16px 0; padding: 8px;
         box-shadow: 0 1px 2px #0002; }
figure img { width: 100%; height: auto; display: block; }
figcaption { color: #52606d; font-size: 13px; padding: 4px 8px; }
table { border-collapse: collapse; background: #fff; margin: 8px 0; min-width: 50%; }
th, td { padding: 4px 12px; border-bottom: 1px solid #e5e7eb; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f9fafb; }
.grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(340px, 1fr)); gap: 16px; }
.warn { color: #b91c1c; font-weight: bold; }
details { margin: 8px 0; }
"""


def _duration(seconds: float) -> str:
    minutes, secs = divmod(round(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h {minutes:02d}m" if hours else f"{minutes}m {secs:02d}s"


def _table(head: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    header = "".join(f"<th>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(cell))}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table><tr>{header}</tr>{body}</table>"


def _fairness_row(p: PlayerFairness) -> tuple[object, ...]:
    ratio = "" if p.big_blinds_per_orbit is None else f"{p.big_blinds_per_orbit:.2f}"
    return (
        p.player,
        p.hands,
        p.moves,
        p.moves_balance,
        p.moves_close,
        p.big_blinds,
        f"{p.orbits:.1f}",
        ratio,
        p.short_handed,
    )


_FAIRNESS_HEAD = (
    "player",
    "hands",
    "moves",
    "balance",
    "close",
    "big blinds",
    "orbits",
    "BB / orbit",
    "short-handed",
)


def _top(
    players: Sequence[PlayerFairness], key: Callable[[PlayerFairness], float], n: int = 10
) -> list[tuple[object, ...]]:
    return [_fairness_row(p) for p in sorted(players, key=key, reverse=True)[:n] if key(p) > 0]


def _fairness(figures: RunFigures) -> str:
    players = sorted(figures.players.values(), key=lambda p: p.player)
    steady = [p for p in players if p.orbits >= 2]
    ratios = [p.big_blinds_per_orbit or 0.0 for p in steady]
    moves = [p.moves for p in players]
    parts = [
        "<h2>Fairness audit</h2>",
        '<p class="sub">Moves per player (balancing and table closings), big blinds posted '
        "per orbit (an orbit at a table of <i>n</i> players is <i>n</i> hands, so 1.00 is a "
        "fair share; players who sat at least two orbits), and hands dealt short-handed "
        f"(fewer than {figures.short_handed_limit} players, BAL-1's short table, while two or "
        "more tables were open).</p>",
        '<div class="cards">',
        _card(f"{statistics.fmean(moves):.2f}" if moves else "-", "moves per player, mean"),
        _card(str(max(moves, default=0)), "most moves of one player"),
        _card(f"{min(ratios):.2f} - {max(ratios):.2f}" if ratios else "-", "BB / orbit range"),
        _card(f"{statistics.median(ratios):.2f}" if ratios else "-", "BB / orbit median"),
        _card(
            str(sum(p.short_handed for p in players)),
            "player-hands dealt short-handed",
        ),
        "</div>",
        '<div class="grid"><div><h3>Most moved</h3>',
        _table(_FAIRNESS_HEAD[:5], [r[:5] for r in _top(players, lambda p: p.moves)]),
        "</div><div><h3>Big blinds per orbit furthest from 1</h3>",
        _table(
            ("player", "big blinds", "orbits", "BB / orbit"),
            [(r[0], r[5], r[6], r[7]) for r in _top(steady, _unfairness)],
        ),
        "</div><div><h3>Most hands short-handed</h3>",
        _table(
            ("player", "hands", "short-handed"),
            [(r[0], r[1], r[8]) for r in _top(players, lambda p: p.short_handed)],
        ),
        "</div></div>",
        f"<details><summary>Every player ({len(players)})</summary>",
        _table(_FAIRNESS_HEAD, [_fairness_row(p) for p in players]),
        "</details>",
    ]
    return "".join(parts)


def _unfairness(p: PlayerFairness) -> float:
    return abs((p.big_blinds_per_orbit or 1.0) - 1.0)


def _card(value: str, label: str) -> str:
    return f'<div class="card"><b>{escape(value)}</b><span>{escape(label)}</span></div>'


def _places(figures: RunFigures) -> str:
    """Places and prizes; in a knockout also the bounties each player received (KO-5), and
    a player paid a bounty but no prize is among those paid."""
    knockout = any("bounties" in p for p in figures.places)
    satellite = any("ticket" in p for p in figures.places)  # SAT-3: seats won, at face value
    head = (
        "place",
        "player",
        "prize",
        *(("bounties",) if knockout else ()),
        *(("ticket",) if satellite else ()),
    )
    rows = [
        (
            p["place"],
            p["player"],
            money(p["prize"]),
            *((money(p["bounties"]),) if knockout else ()),
            *((money(p["ticket"]) if "ticket" in p else "",) if satellite else ()),
        )
        for p in figures.places
    ]
    paid = [
        row
        for row, p in zip(rows, figures.places, strict=True)
        if p["prize"] > 0 or p.get("bounties", 0) > 0 or p.get("ticket", 0) > 0
    ]
    return (
        f"<h2>Places and {'prizes and bounties' if knockout else 'prizes'}</h2>"
        + _table(head, paid)
        + f"<details><summary>Every place ({len(rows)})</summary>"
        + _table(head, rows)
        + "</details>"
    )


def render_page(figures: RunFigures, charts: Sequence[tuple[Chart, bytes]]) -> str:
    """The whole report; `charts` pairs each chart with its PNG bytes, inlined in order."""
    outcome = (
        f'<span class="warn">cancelled: {escape(figures.cancelled)}</span>'
        if figures.cancelled is not None
        else f"a Day 1 flight: <b>{figures.bagged}</b> bagged for Day 2"  # FL-1
        if figures.bagged is not None
        else f"won by <b>{escape(figures.winner or '-')}</b>"
    )
    seats = sum(1 for p in figures.places if "ticket" in p)
    if seats and figures.cancelled is None:  # SAT-2: N winners, each holding a seat
        outcome = f"<b>{seats}</b> seats won, each a ticket to the target"
    cards = "".join(
        (
            _card(f"{figures.entries:,}", "entries"),
            _card(money(figures.prize_pool), "prize pool"),
            _card(f"{figures.hands:,}", "hands"),
            _card(str(len(figures.hands_per_table)), "tables used"),
            _card(str(len(figures.levels)), "levels played"),
            _card(_duration(figures.seconds), "duration"),
        )
    )
    images = "".join(
        f'<figure><img alt="{escape(chart.title)}" src="data:image/png;base64,'
        f'{base64.b64encode(png).decode("ascii")}"><figcaption>{escape(chart.title)} '
        f"({escape(chart.file)})</figcaption></figure>"
        for chart, png in charts
    )
    levels = _table(
        ("level", "small blind", "big blind", "ante"),
        [(level, f"{sb:,}", f"{bb:,}", f"{ante:,}") for level, sb, bb, ante in figures.levels],
    )
    title = escape(figures.tournament)
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}: run report</title><style>{_CSS}</style></head><body><main>"
        f"<h1>{title}</h1><p class='sub'>{escape(figures.structure)}, "
        f"{figures.max_per_table} per table; {outcome}</p>"
        f'<div class="cards">{cards}</div>'
        f"{images}{_places(figures)}<h2>Levels</h2>{levels}{_fairness(figures)}"
        "</main></body></html>\n"
    )


def render_event_page(results: dict[str, Any], days: Sequence[tuple[str, str]]) -> str:
    """A multi-day event's page (FL-1..FL-3) from its results.json: the flights and their
    bags, the places over every entry with each one's flight, the void bags (FL-2), and a link
    to each day's own report (`days`: name and relative link)."""
    places = results["places"]
    cards = "".join(
        (
            _card(f"{results['players']:,}", "entries"),
            _card(f"{len(places):,}", "players"),
            _card(money(results["prize_pool"]), "prize pool"),
            _card(str(len(results["flights"])), "Day 1 flights"),
            _card(f"{results['day2']['players']:,}", "on Day 2"),
            _card(f"{results['hands']:,}", "hands"),
        )
    )
    flights = _table(
        ("flight", "entries", "bagged", "level", "pool"),
        [
            (f["flight"], f["entries"], f["bagged"], f["level"], money(f["pool"]))
            for f in results["flights"]
        ],
    )
    head = ("place", "player", "flight", "prize")
    rows = [(p["place"], p["player"], p["flight"], money(p["prize"])) for p in places]
    paid = [row for row, p in zip(rows, places, strict=True) if p["prize"] > 0]
    void = _table(
        ("flight", "player", "chips"),
        [(b["flight"], b["player"], f"{b['chips']:,}") for b in results["void"]],
    )
    links = "".join(f'<li><a href="{escape(link)}">{escape(day)}</a></li>' for day, link in days)
    winner = escape(places[0]["player"]) if places else "-"
    title = escape(results["tournament"])
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{title}: event report</title><style>{_CSS}</style></head><body><main>"
        f"<h1>{title}</h1><p class='sub'>a multi-day event; won by <b>{winner}</b></p>"
        f'<div class="cards">{cards}</div>'
        f"<h2>Day 1 flights (FL-1)</h2>{flights}"
        f"<h2>Places and prizes over every entry (FL-3)</h2>{_table(head, paid)}"
        f"<details><summary>Every place ({len(rows)})</summary>{_table(head, rows)}</details>"
        f"<h2>Bags not taken forward (FL-2)</h2>{void}"
        f"<h2>Each day's report</h2><ul>{links}</ul>"
        "</main></body></html>\n"
    )
