"""A load test's report as one self-contained HTML page: its figures, the round-trip histogram,
actions per second over the measured window and errors by status, the plots drawn with
matplotlib's object API (no pyplot, no display) and embedded as base64 PNGs. No network."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Callable
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from loadtest.histogram import LatencyHistogram, bucket_lower

__all__ = ["render_html"]

_INK, _ACCENT, _WARN = "#1f2933", "#2563eb", "#dc2626"


def _png(draw: Callable[[Figure], None]) -> str:
    figure = Figure(figsize=(9.0, 3.8), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    draw(figure)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _round_trips(histogram: LatencyHistogram, p99_ms: float) -> Callable[[Figure], None]:
    def draw(figure: Figure) -> None:
        axes = figure.add_subplot()
        indices = sorted(histogram.counts)
        lows = [1000 * bucket_lower(i) for i in indices]
        widths = [1000 * (bucket_lower(i + 1) - bucket_lower(i)) for i in indices]
        axes.bar(lows, [histogram.counts[i] for i in indices], width=widths, align="edge",
                 color=_ACCENT)  # fmt: skip
        axes.axvline(p99_ms, color=_WARN, linestyle="--", label=f"p99 {p99_ms:.2f} ms")
        axes.axvline(50.0, color=_INK, linestyle=":", label="goal 50 ms")
        axes.set_xscale("log")
        axes.set_title("Action round trip", loc="left", color=_INK, fontweight="bold")
        axes.set_xlabel("ms (log scale; fixed log buckets, merged exactly across generators)")
        axes.set_ylabel("actions")
        axes.legend(loc="upper right")

    return draw


def _over_time(per_second: list[int], storms: list[list[float]]) -> Callable[[Figure], None]:
    def draw(figure: Figure) -> None:
        axes = figure.add_subplot()
        axes.plot(range(len(per_second)), per_second, color=_ACCENT)
        for n, (at, share) in enumerate(storms):
            label = "reconnect storm" if n == 0 else None
            axes.axvline(at, color=_WARN, linestyle="--", label=label)
            axes.annotate(f"{share:.0%}", (at, 0), color=_WARN, xytext=(3, 3),
                          textcoords="offset points")  # fmt: skip
        if storms:
            axes.legend(loc="upper right")
        axes.set_ylim(bottom=0)
        axes.set_title("Actions accepted per second", loc="left", color=_INK, fontweight="bold")
        axes.set_xlabel("seconds into the measured window")
        axes.set_ylabel("actions/s")

    return draw


def _row(name: str, value: object) -> str:
    return f"<tr><th>{html.escape(name)}</th><td>{html.escape(str(value))}</td></tr>"


def render_html(report: dict[str, Any], *, command: str = "") -> str:
    """The report page; `command` (the command line that ran it) is shown at the top."""
    histogram = LatencyHistogram.from_json(report["histogram"])
    profile = report["profile"]
    figures = [
        ("bots", f"{report['bots']} in {report['processes']} generator process(es)"),
        ("registered / connected", f"{report['registered']} / {report['welcomed']}"),
        ("measured", f"{report['seconds']} s"),
        ("actions", f"{report['actions']} ({report['actions_per_s']}/s)"),
        ("hands", f"{report['hands']} ({report['hands_per_s']}/s)"),
        ("round trip p50 / p95 / p99 / max (ms)",
         f"{report['p50_ms']} / {report['p95_ms']} / {report['p99_ms']} / {report['max_ms']}"),
        ("timeouts", report["timeouts"]),
        ("errors", report["errors"]),
        ("reconnects (storm drops, resumed)",
         f"{report['reconnects']} ({report['storm_drops']}, {report['resumes']})"),
        ("answers into the time bank (TB-1)", report["bank_decisions"]),
        ("tournament", report["tournament"]),
        ("think medians (s), sigma",
         f"{profile['think_medians'] or 'none'}, {profile['think_sigma']}"),
        ("time-bank tail: share, at most of the bank",
         f"{profile['bank_share']}, {profile['bank_use']}"),
        ("ramp, registration", f"{profile['ramp_seconds']} s, {profile['registration']}"
         + (f" within {profile['storm_seconds']} s" if profile["registration"] == "storm" else "")),
        ("reconnect storms (at s, share)", profile["reconnect_storms"] or "none"),
    ]  # fmt: skip
    errors = (
        "".join(_row(what, count) for what, count in sorted(report["problems"].items()))
        or "<tr><td colspan=2>none</td></tr>"
    )
    generators = "".join(
        "<tr>" + "".join(f"<td>{g[k]}</td>" for k in g) + "</tr>" for g in report["generators"]
    )
    header = "".join(f"<th>{k}</th>" for k in report["generators"][0]) if generators else ""
    images = [
        _png(_round_trips(histogram, report["p99_ms"])),
        _png(_over_time(report["actions_per_second"], profile["reconnect_storms"])),
    ]
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mtt loadtest</title>
<style>body{{font-family:sans-serif;color:{_INK};max-width:960px;margin:2em auto}}
table{{border-collapse:collapse;margin:1em 0}}th,td{{border:1px solid #d1d5db;padding:4px 10px;
text-align:left}}code{{background:#f3f4f6;padding:2px 4px}}</style></head><body>
<h1>mtt loadtest</h1>
<p><code>{html.escape(command)}</code></p>
<p>The action round trip: from a bot sending its action (after its think time) to its
receiving the server's ActionAccepted.</p>
<table>{"".join(_row(name, value) for name, value in figures)}</table>
{"".join(f'<img alt="chart" src="data:image/png;base64,{png}">' for png in images)}
<h2>Errors by status</h2><table>{errors}</table>
<h2>Generators</h2><table><tr>{header}</tr>{generators}</table>
</body></html>
"""
