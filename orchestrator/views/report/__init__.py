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
from orchestrator.views.report.page import render_page

__all__ = ["RunFigures", "UnreadableRun", "build_report", "read_figures"]


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
