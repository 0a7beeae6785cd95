"""What a load run measured, and how it is shown: percentiles, the summary table, the JSON
report and a self-contained HTML report (inline SVG plots, no scripts, no external files).

Rule of this module: it is pure. It reads no clock and opens no socket; the runner hands it
samples and per-second counts, and it turns them into numbers and text. Every figure in the
reports is computed here, so the unit tests of this module pin what the reports mean.

Percentiles use linear interpolation between the two nearest ranks (the "linear" method of
NumPy and of Python's ``statistics.quantiles(method="inclusive")``): p50 of ``[1, 2, 3, 4]``
is 2.5, p100 is the maximum, p0 the minimum.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "Histogram",
    "LatencySummary",
    "Report",
    "Second",
    "histogram",
    "percentile",
    "render_html",
    "summarize",
    "summary_table",
    "write_html",
    "write_json",
]


def percentile(ordered: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0..100) of already **sorted** values, linearly interpolated.

    Raises ``ValueError`` on no values or ``q`` outside 0..100.
    """
    if not ordered:
        raise ValueError("percentile of no values")
    if not 0.0 <= q <= 100.0:
        raise ValueError(f"percentile must be within 0..100, got {q}")
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    fraction = position - low
    return ordered[low] + (ordered[high] - ordered[low]) * fraction


@dataclass(frozen=True, slots=True)
class LatencySummary:
    """Count, mean and percentiles of a set of samples, in milliseconds."""

    count: int = 0
    mean_ms: float = 0.0
    p50_ms: float = 0.0
    p95_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    min_ms: float = 0.0


def summarize(samples_s: Iterable[float]) -> LatencySummary:
    """Summarize samples given in **seconds** (the summary is in milliseconds)."""
    ordered = sorted(samples_s)
    if not ordered:
        return LatencySummary()
    ms = 1000.0
    return LatencySummary(
        count=len(ordered),
        mean_ms=sum(ordered) / len(ordered) * ms,
        p50_ms=percentile(ordered, 50) * ms,
        p95_ms=percentile(ordered, 95) * ms,
        p99_ms=percentile(ordered, 99) * ms,
        max_ms=ordered[-1] * ms,
        min_ms=ordered[0] * ms,
    )


@dataclass(frozen=True, slots=True)
class Histogram:
    """``counts[i]`` samples fell in ``[edges[i], edges[i + 1])`` (the last bin is closed);
    ``under``/``over`` count samples outside ``edges``."""

    edges: tuple[float, ...]
    counts: tuple[int, ...]
    under: int = 0
    over: int = 0


def histogram(samples: Iterable[float], *, low: float, high: float, bins: int,
              log_scale: bool = False) -> Histogram:
    """Bin ``samples`` into ``bins`` equal bins between ``low`` and ``high`` (equal in
    log space when ``log_scale``; then ``low`` must be positive)."""
    if bins <= 0 or not high > low or (log_scale and low <= 0):
        raise ValueError("need bins > 0, high > low (and low > 0 on a log scale)")
    if log_scale:
        a, b = math.log(low), math.log(high)
        edges = tuple(math.exp(a + (b - a) * i / bins) for i in range(bins + 1))
    else:
        edges = tuple(low + (high - low) * i / bins for i in range(bins + 1))
    counts = [0] * bins
    under = over = 0
    for value in samples:
        if value < low:
            under += 1
            continue
        if value > high:
            over += 1
            continue
        if log_scale:
            index = int((math.log(value) - a) / (b - a) * bins) if value > 0 else 0
        else:
            index = int((value - low) / (high - low) * bins)
        counts[min(max(index, 0), bins - 1)] += 1
    return Histogram(edges=edges, counts=tuple(counts), under=under, over=over)


@dataclass(slots=True)
class Second:
    """What happened in one second of the run (``t``: seconds since the start)."""

    t: int
    hands: int = 0
    actions: int = 0
    frames_in: int = 0
    frames_out: int = 0
    errors: int = 0
    p99_ms: float | None = None


@dataclass
class Report:
    """Everything one load run measured (the JSON report is ``asdict`` of this).

    ``frames_in``/``frames_out`` are from the server's side: frames the bots sent are frames
    in, frames the bots received are frames out.
    """

    settings: dict[str, Any]
    started_at: str
    duration_s: float
    tables: int
    bots: int
    spectators: int
    hands: int
    actions: int
    frames_in: int
    frames_out: int
    disconnects: int
    reconnects: int
    errors: dict[str, int]
    latency: LatencySummary
    spectator_lag: LatencySummary
    chips: dict[str, Any]
    seconds: list[Second] = field(default_factory=list)
    latency_histogram: Histogram | None = None
    notes: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)
    """``client_utilization`` / ``server_utilization``: CPU seconds per wall second over the
    measured window (1.0 = one core busy); the server's only when the runner started it."""

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def actions_per_s(self) -> float:
        return self.actions / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def frames_in_per_s(self) -> float:
        return self.frames_in / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def frames_out_per_s(self) -> float:
        return self.frames_out / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def error_count(self) -> int:
        return sum(self.errors.values())

    @property
    def ok(self) -> bool:
        """No error answer, no unexpected disconnect, every chip accounted for."""
        return (self.error_count == 0 and bool(self.chips.get("balanced"))
                and self.disconnects == self.reconnects)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["rates"] = {
            "hands_per_s": round(self.hands_per_s, 3),
            "actions_per_s": round(self.actions_per_s, 3),
            "frames_in_per_s": round(self.frames_in_per_s, 3),
            "frames_out_per_s": round(self.frames_out_per_s, 3),
        }
        out["ok"] = self.ok
        return out


def write_json(report: Report, path: Path) -> None:
    """The report as indented JSON at ``path``."""
    path.write_text(json.dumps(report.to_dict(), indent=2, sort_keys=True) + "\n")


# ------------------------------------------------------------------------------ text
def _ms(value: float) -> str:
    return f"{value:.2f} ms"


def _pct(value: float | None) -> str:
    return "?" if value is None else f"{value * 100:.0f}%"


def summary_table(report: Report) -> str:
    """The summary printed on stdout at the end of a run: one ``name  value`` row each."""
    lat, lag = report.latency, report.spectator_lag
    errors = ", ".join(f"{code}={n}" for code, n in sorted(report.errors.items())) or "none"
    chips = report.chips
    rows = [
        ("tables / bots / spectators",
         f"{report.tables} / {report.bots} / {report.spectators}"),
        ("duration", f"{report.duration_s:.1f} s"),
        ("hands", f"{report.hands} ({report.hands_per_s:.1f}/s)"),
        ("actions", f"{report.actions} ({report.actions_per_s:.1f}/s)"),
        ("frames in (to server)", f"{report.frames_in} ({report.frames_in_per_s:.0f}/s)"),
        ("frames out (from server)", f"{report.frames_out} ({report.frames_out_per_s:.0f}/s)"),
        ("act->acted latency p50/p95/p99",
         f"{_ms(lat.p50_ms)} / {_ms(lat.p95_ms)} / {_ms(lat.p99_ms)}"),
        ("act->acted latency max (n)", f"{_ms(lat.max_ms)} ({lat.count})"),
        ("spectator lag p50/p99/max (n)",
         f"{_ms(lag.p50_ms)} / {_ms(lag.p99_ms)} / {_ms(lag.max_ms)} ({lag.count})"),
        ("CPU busy server / client",
         f"{_pct(report.cpu.get('server_utilization'))} / "
         f"{_pct(report.cpu.get('client_utilization'))}"),
        ("errors", errors),
        ("disconnects / reconnects", f"{report.disconnects} / {report.reconnects}"),
        ("chips start / end",
         f"{chips.get('start', '?')} / {chips.get('end', '?')} "
         f"({'balanced' if chips.get('balanced') else 'NOT BALANCED'})"),
        ("result", "OK" if report.ok else "FAILED"),
    ]
    width = max(len(name) for name, _ in rows)
    return "\n".join(f"{name.ljust(width)}  {value}" for name, value in rows)


# ------------------------------------------------------------------------------ HTML
_W, _H, _PAD = 640, 240, 40


def _svg_bars(hist: Histogram, title: str) -> str:
    """A bar chart of a histogram, x labelled with bin edges (ms)."""
    peak = max(hist.counts) if hist.counts and max(hist.counts) > 0 else 1
    n = len(hist.counts)
    inner_w, inner_h = _W - 2 * _PAD, _H - 2 * _PAD
    bar_w = inner_w / n
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
             f'role="img" aria-label="{html.escape(title)}">',
             f'<text x="{_W / 2}" y="16" text-anchor="middle" font-size="13">'
             f'{html.escape(title)}</text>',
             f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" '
             'stroke="#333"/>']
    for i, count in enumerate(hist.counts):
        h = inner_h * count / peak
        x = _PAD + i * bar_w
        parts.append(f'<rect x="{x:.1f}" y="{_H - _PAD - h:.1f}" width="{max(bar_w - 1, 1):.1f}" '
                     f'height="{h:.1f}" fill="#3b7dd8"><title>'
                     f'{hist.edges[i]:.3g}-{hist.edges[i + 1]:.3g} ms: {count}</title></rect>')
    for i in range(0, n + 1, max(1, n // 6)):
        x = _PAD + i * bar_w
        parts.append(f'<text x="{x:.1f}" y="{_H - _PAD + 14}" text-anchor="middle" '
                     f'font-size="10">{hist.edges[i]:.3g}</text>')
    parts.append(f'<text x="{_PAD}" y="{_PAD - 6}" font-size="10">{peak}</text>')
    parts.append(f'<text x="{_W / 2}" y="{_H - 6}" text-anchor="middle" font-size="11">'
                 'milliseconds (log scale)</text></svg>')
    return "".join(parts)


def _svg_lines(xs: Sequence[float], series: Mapping[str, Sequence[float]], title: str,
               unit: str) -> str:
    """Lines over time (x: seconds), one colour per series, with a legend."""
    colours = ("#3b7dd8", "#d8663b", "#2a9d4b", "#8a3bd8")
    peak = max((max(v) for v in series.values() if v), default=0.0) or 1.0
    x_max = max(xs) if xs else 1.0
    x_max = x_max or 1.0
    inner_w, inner_h = _W - 2 * _PAD, _H - 2 * _PAD
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" height="{_H}" '
             f'role="img" aria-label="{html.escape(title)}">',
             f'<text x="{_W / 2}" y="16" text-anchor="middle" font-size="13">'
             f'{html.escape(title)}</text>',
             f'<line x1="{_PAD}" y1="{_H - _PAD}" x2="{_W - _PAD}" y2="{_H - _PAD}" '
             'stroke="#333"/>',
             f'<line x1="{_PAD}" y1="{_PAD}" x2="{_PAD}" y2="{_H - _PAD}" stroke="#333"/>',
             f'<text x="{_PAD - 4}" y="{_PAD + 4}" text-anchor="end" font-size="10">'
             f'{peak:.0f}</text>',
             f'<text x="{_W - _PAD}" y="{_H - _PAD + 14}" text-anchor="end" font-size="10">'
             f'{x_max:.0f} s</text>']
    for k, (name, values) in enumerate(series.items()):
        colour = colours[k % len(colours)]
        points = " ".join(
            f"{_PAD + inner_w * x / x_max:.1f},{_H - _PAD - inner_h * y / peak:.1f}"
            for x, y in zip(xs, values, strict=True))
        if points:
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" '
                         f'points="{points}"/>')
        parts.append(f'<text x="{_PAD + 8 + 150 * k}" y="{_H - 6}" font-size="11" '
                     f'fill="{colour}">{html.escape(name)} ({unit})</text>')
    parts.append("</svg>")
    return "".join(parts)


def render_html(report: Report) -> str:
    """A self-contained HTML page: the summary table and four inline SVG plots (latency
    histogram; hands, actions and errors per second; p99 per second)."""
    seconds = report.seconds
    xs = [float(s.t) for s in seconds]
    throughput = _svg_lines(xs, {"hands/s": [float(s.hands) for s in seconds]},
                            "Throughput over time: hands", "per second")
    actions = _svg_lines(xs, {"actions/s": [float(s.actions) for s in seconds],
                              "errors/s": [float(s.errors) for s in seconds]},
                         "Throughput over time: actions", "per second")
    p99 = _svg_lines(xs, {"p99": [s.p99_ms or 0.0 for s in seconds]},
                     "act->acted p99 latency per second", "ms")
    hist = (_svg_bars(report.latency_histogram, "act->acted latency histogram")
            if report.latency_histogram is not None else "<p>no latency samples</p>")
    settings = html.escape(json.dumps(report.settings, sort_keys=True, indent=1))
    notes = "".join(f"<li>{html.escape(n)}</li>" for n in report.notes)
    return (
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>poker-loadtest report"
        "</title><style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;"
        "padding:1em}svg{display:block;margin:1em 0;border:1px solid #ddd}</style></head>"
        f"<body><h1>poker-loadtest report</h1><p>started {html.escape(report.started_at)}</p>"
        f"<pre>{html.escape(summary_table(report))}</pre>{hist}{throughput}{actions}{p99}"
        f"<h2>Settings</h2><pre>{settings}</pre><ul>{notes}</ul></body></html>\n"
    )


def write_html(report: Report, path: Path) -> None:
    """The HTML report at ``path``."""
    path.write_text(render_html(report))
