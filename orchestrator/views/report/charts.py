"""The report's charts as PNG bytes, drawn with matplotlib's object API (no pyplot: no global
figure state, no display backend), one function per chart."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator

from orchestrator.views.report.figures import RunFigures

__all__ = ["CHARTS", "Chart", "render"]

Draw = Callable[[Figure, RunFigures], None]


@dataclass(frozen=True, slots=True)
class Chart:
    file: str
    title: str
    draw: Draw
    width: float = 9.0  # inches at 110 dpi


_INK = "#1f2933"
_ACCENT = ("#2563eb", "#dc2626", "#059669", "#d97706", "#7c3aed", "#db2777", "#0891b2")


def render(chart: Chart, figures: RunFigures) -> bytes:
    """One chart as PNG bytes."""
    figure = Figure(figsize=(chart.width, 4.2), dpi=110, layout="constrained")
    FigureCanvasAgg(figure)
    chart.draw(figure, figures)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _elapsed(seconds: list[float]) -> tuple[list[float], str]:
    longest = max(seconds, default=0.0)
    if longest < 120:
        return seconds, "seconds since the start"
    if longest < 7200:
        return [s / 60 for s in seconds], "minutes since the start"
    return [s / 3600 for s in seconds], "hours since the start"


def _style(axes: Axes, title: str, xlabel: str, ylabel: str) -> None:
    axes.set_title(title, loc="left", color=_INK, fontsize=12, fontweight="bold")
    axes.set_xlabel(xlabel, color=_INK)
    axes.set_ylabel(ylabel, color=_INK)
    axes.grid(True, color="#e5e7eb", linewidth=0.8)
    axes.set_axisbelow(True)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)


def _counts(axes: Axes) -> None:
    """Whole numbers with thousands separators on the y axis."""
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))


def _empty(axes: Axes, what: str) -> None:
    axes.text(0.5, 0.5, what, ha="center", va="center", transform=axes.transAxes, color="#6b7280")
    axes.set_xticks([])
    axes.set_yticks([])


def players_left(figure: Figure, figures: RunFigures) -> None:
    axes = figure.subplots()
    x, unit = _elapsed([p.seconds for p in figures.timeline])
    _style(axes, "Players remaining", unit, "players")
    if not figures.timeline:
        _empty(axes, "no hands were played")
        return
    axes.step(x, [p.players_left for p in figures.timeline], where="post", color=_ACCENT[0])
    axes.set_ylim(bottom=0)
    _counts(axes)


def stacks_in_big_blinds(figure: Figure, figures: RunFigures) -> None:
    axes = figure.subplots()
    x, unit = _elapsed([p.seconds for p in figures.timeline])
    _style(axes, "Average and largest stack, in big blinds", unit, "big blinds (log scale)")
    if not figures.timeline:
        _empty(axes, "no hands were played")
        return
    axes.plot(x, [p.largest_bb for p in figures.timeline], color=_ACCENT[1], label="largest")
    axes.plot(x, [p.average_bb for p in figures.timeline], color=_ACCENT[0], label="average")
    axes.set_yscale("log")
    axes.yaxis.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:,.0f}"))
    axes.yaxis.set_minor_formatter(FuncFormatter(lambda value, _: ""))
    axes.legend(frameon=False)


def hands_per_table(figure: Figure, figures: RunFigures) -> None:
    axes = figure.subplots()
    _style(axes, "Hands dealt per table", "table", "hands")
    tables = sorted(figures.hands_per_table)
    if not tables:
        _empty(axes, "no hands were played")
        return
    counts = [figures.hands_per_table[t] for t in tables]
    axes.bar([str(t) for t in tables], counts, color=_ACCENT[2])
    _counts(axes)
    if len(tables) > 30:  # keep the labels readable: every k-th table
        step = -(-len(tables) // 30)
        axes.set_xticks(range(0, len(tables), step), [str(t) for t in tables[::step]])


def final_table(figure: Figure, figures: RunFigures) -> None:
    axes = figure.subplots()
    final = figures.final_table
    title = "Final table chip counts" + (f" (table {final.table})" if final else "")
    _style(axes, title, "hand at the final table", "chips")
    if final is None or not final.hands:
        _empty(axes, "no final table hands")
        return
    x = list(range(1, len(final.hands) + 1))
    for k, name in enumerate(final.players):
        series = [stacks.get(name) for stacks in final.stacks]
        # A player's line ends at the hand that busted them.
        shown = [(h, s) for h, s in zip(x, series, strict=True) if s is not None]
        axes.plot(
            [h for h, _ in shown],
            [s for _, s in shown],
            color=_ACCENT[k % len(_ACCENT)],
            linestyle="-" if k < len(_ACCENT) else "--",
            label=name,
        )
    axes.set_ylim(bottom=0)
    _counts(axes)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.legend(frameon=False, fontsize=8, ncols=2, loc="upper left")


def prizes(figure: Figure, figures: RunFigures) -> None:
    axes = figure.subplots()
    _style(axes, "Prizes by place", "place", "prize")
    paid = [p for p in figures.places if p["prize"] > 0]
    if not paid:
        _empty(axes, "no prizes awarded")
        return
    axes.bar([str(p["place"]) for p in paid], [p["prize"] / 100 for p in paid], color=_ACCENT[3])
    _counts(axes)


def fairness(figure: Figure, figures: RunFigures) -> None:
    moves_axes, blinds_axes, short_axes = figure.subplots(1, 3)
    players = list(figures.players.values())
    _style(moves_axes, "Moves per player", "moves", "players")
    moves = Counter(p.moves for p in players)
    most = max(moves, default=0)
    moves_axes.bar(range(most + 1), [moves[k] for k in range(most + 1)], color=_ACCENT[4])
    moves_axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    _style(blinds_axes, "Big blinds per orbit", "big blinds / orbits (1 = fair)", "players")
    ratios = [r for p in players if p.orbits >= 2 and (r := p.big_blinds_per_orbit) is not None]
    if ratios:
        blinds_axes.hist(ratios, bins=20, color=_ACCENT[0])
        blinds_axes.axvline(1.0, color=_INK, linewidth=1, linestyle=":")
    else:
        _empty(blinds_axes, "no player sat two orbits")
    _style(short_axes, "Hands dealt short-handed", "hands", "players")
    short = [p.short_handed for p in players]
    short_axes.hist(short, bins=20, color=_ACCENT[5])
    for axes in (moves_axes, blinds_axes, short_axes):
        _counts(axes)


CHARTS: tuple[Chart, ...] = (
    Chart("players-left.png", "Players remaining over time", players_left),
    Chart("stacks-bb.png", "Average and largest stack against the big blind", stacks_in_big_blinds),
    Chart("hands-per-table.png", "Hands per table", hands_per_table),
    Chart("final-table.png", "The final table's chip counts over its hands", final_table),
    Chart("prizes.png", "Places and prizes", prizes),
    Chart("fairness.png", "Fairness audit", fairness, width=13.0),
)
