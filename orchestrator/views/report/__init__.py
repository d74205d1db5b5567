"""`mtt report DIR`: a run's files turned into one self-contained HTML page and PNG charts.

`build_report(run, out)` reads `events.jsonl`, `hands/*.phhs` and `results.json` (DESIGN.md
contracts) with `orchestrator.views.audit`'s readers, computes the figures (`figures`, pure), draws
the charts (`charts`) and writes `out/report.html` with every chart inlined, beside the PNGs.
"""

from __future__ import annotations

from pathlib import Path

from orchestrator.errors import UnreadableRun
from orchestrator.views.audit import read_events, read_hand_files, read_results
from orchestrator.views.report.charts import CHARTS, render
from orchestrator.views.report.figures import RunFigures, run_figures
from orchestrator.views.report.page import render_event_page, render_page

__all__ = ["RunFigures", "UnreadableRun", "build_event_report", "build_report", "read_figures"]


def read_figures(run: Path) -> RunFigures:
    """The figures of the run in folder `run`; UnreadableRun names a missing or bad file."""
    if not run.is_dir():
        raise UnreadableRun(f"{run}: no such folder")
    events = read_events(run / "events.jsonl")
    results = read_results(run / "results.json")
    return run_figures(events, read_hand_files(run / "hands", relative_to=run), results)


def build_report(run: Path, out: Path) -> Path:
    """Write `out/report.html` and one PNG per chart; returns the HTML file's path."""
    figures = read_figures(run)
    out.mkdir(parents=True, exist_ok=True)
    charts = []
    for chart in CHARTS:
        png = render(chart, figures)
        (out / chart.file).write_bytes(png)
        charts.append((chart, png))
    page = out / "report.html"
    page.write_text(render_page(figures, charts), encoding="utf-8")
    return page


def build_event_report(event: Path, out: Path) -> Path:
    """A multi-day event's folder (FL-1..FL-3): each day's report in `out/<day>/`, and the
    event's page `out/report.html` linking them; returns the event page's path."""
    results = read_results(event / "results.json")
    days: list[tuple[str, str]] = []
    for flight in results.get("flights", []):
        where = f"flights/{flight['flight']}"
        build_report(event / where, out / where)
        days.append((f"flight {flight['flight']}", f"{where}/report.html"))
    build_report(event / "day2", out / "day2")
    days.append(("day 2", "day2/report.html"))
    out.mkdir(parents=True, exist_ok=True)
    page = out / "report.html"
    try:
        page.write_text(render_event_page(results, days), encoding="utf-8")
    except (KeyError, TypeError) as exc:
        raise UnreadableRun(
            f"{event}/results.json lacks what the event report reads: {exc!r}"
        ) from exc
    return page
