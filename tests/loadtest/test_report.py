"""The figures of a load report: percentiles, summaries, histograms, and what the JSON, the
summary table and the HTML report show."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from server.loadtest.report import (
    LatencySummary,
    Report,
    Second,
    histogram,
    percentile,
    render_html,
    summarize,
    summary_table,
    write_html,
    write_json,
)


def test_percentile_interpolates_between_ranks() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 4.0
    assert percentile(values, 50) == 2.5
    assert percentile(values, 25) == pytest.approx(1.75)
    assert percentile([7.0], 99) == 7.0


def test_percentile_of_a_hundred_values() -> None:
    values = [float(i) for i in range(1, 101)]  # 1..100
    assert percentile(values, 99) == pytest.approx(99.01)
    assert percentile(values, 95) == pytest.approx(95.05)
    assert percentile(values, 50) == pytest.approx(50.5)


def test_percentile_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        percentile([], 50)
    with pytest.raises(ValueError):
        percentile([1.0], 101)
    with pytest.raises(ValueError):
        percentile([1.0], -1)


@given(st.lists(st.floats(min_value=0, max_value=1e6, allow_nan=False), min_size=2,
                max_size=200))
def test_percentile_matches_statistics_inclusive_quantiles(values: list[float]) -> None:
    ordered = sorted(values)
    cuts = statistics.quantiles(ordered, n=100, method="inclusive")  # p1..p99
    for q in (1, 25, 50, 95, 99):
        assert percentile(ordered, q) == pytest.approx(cuts[q - 1], rel=1e-9, abs=1e-9)


@given(st.lists(st.floats(min_value=0, max_value=10, allow_nan=False), min_size=1))
def test_percentiles_are_ordered_and_within_range(values: list[float]) -> None:
    s = summarize(values)
    assert s.count == len(values)
    assert s.min_ms <= s.p50_ms <= s.p95_ms <= s.p99_ms <= s.max_ms
    assert s.max_ms == pytest.approx(max(values) * 1000)


def test_summarize_converts_seconds_to_milliseconds() -> None:
    s = summarize([0.001, 0.002, 0.003])
    assert s.count == 3
    got = (s.mean_ms, s.p50_ms, s.p95_ms, s.p99_ms, s.max_ms, s.min_ms)
    assert got == pytest.approx((2.0, 2.0, 2.9, 2.98, 3.0, 1.0))
    assert summarize([]) == LatencySummary()


def test_linear_histogram_counts_every_sample_once() -> None:
    h = histogram([0.0, 0.5, 1.0, 9.99, 10.0, -1.0, 11.0], low=0.0, high=10.0, bins=10)
    assert h.edges[0] == 0.0 and h.edges[-1] == 10.0 and len(h.edges) == 11
    assert h.counts == (2, 1, 0, 0, 0, 0, 0, 0, 0, 2)  # the last bin is closed on the right
    assert (h.under, h.over) == (1, 1)


def test_log_histogram_bins_by_decade() -> None:
    h = histogram([0.5, 2.0, 20.0, 50.0, 99.0, 100.0], low=1.0, high=100.0, bins=2,
                  log_scale=True)
    assert h.edges == pytest.approx((1.0, 10.0, 100.0))
    assert h.counts == (1, 4)
    assert h.under == 1
    with pytest.raises(ValueError):
        histogram([1.0], low=0.0, high=1.0, bins=3, log_scale=True)


def _report(**over: object) -> Report:
    base: dict[str, object] = dict(
        settings={"tables": 2, "variant": "holdem"}, started_at="2026-01-01T00:00:00+00:00",
        duration_s=10.0, tables=2, bots=12, spectators=2, hands=50, actions=800,
        frames_in=820, frames_out=9000, disconnects=0, reconnects=0, errors={},
        latency=summarize([0.001, 0.002, 0.004]), spectator_lag=summarize([0.0005]),
        chips={"start": 120000, "end": 120000, "balanced": True},
        seconds=[Second(t=0, hands=5, actions=80, p99_ms=3.0),
                 Second(t=1, hands=6, actions=90, p99_ms=4.0)],
        latency_histogram=histogram([1.0, 2.0, 4.0], low=1.0, high=4.0, bins=4,
                                    log_scale=True),
        cpu={"server_utilization": 0.5, "client_utilization": 0.25})
    base.update(over)
    return Report(**base)  # type: ignore[arg-type]


def test_report_rates_and_verdict() -> None:
    report = _report()
    assert report.hands_per_s == 5.0
    assert report.actions_per_s == 80.0
    assert report.frames_out_per_s == 900.0
    assert report.ok
    assert not _report(errors={"bad_amount": 1}).ok
    assert not _report(chips={"start": 1, "end": 2, "balanced": False}).ok
    assert not _report(disconnects=1).ok
    assert _report(disconnects=3, reconnects=3).ok


def test_summary_table_shows_the_figures() -> None:
    text = summary_table(_report(errors={"not_your_turn": 2, "bad_amount": 1}))
    assert "50 (5.0/s)" in text
    assert "2.00 ms / 3.80 ms / 3.96 ms" in text  # p50 / p95 / p99 of 1, 2, 4 ms
    assert "4.00 ms (3)" in text  # max and the number of samples
    assert "bad_amount=1, not_your_turn=2" in text
    assert "120000 / 120000 (balanced)" in text
    assert "50% / 25%" in text
    assert text.splitlines()[-1].endswith("FAILED")


def test_json_report_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    write_json(_report(), path)
    data = json.loads(path.read_text())
    assert data["ok"] is True
    assert data["rates"]["hands_per_s"] == 5.0
    assert data["latency"]["p99_ms"] == pytest.approx(summarize([0.001, 0.002, 0.004]).p99_ms)
    assert data["seconds"][1] == {"t": 1, "hands": 6, "actions": 90, "frames_in": 0,
                                  "frames_out": 0, "errors": 0, "p99_ms": 4.0}
    assert data["latency_histogram"]["counts"] == [1, 0, 1, 1]


def test_html_report_is_self_contained_with_svg_plots(tmp_path: Path) -> None:
    path = tmp_path / "r.html"
    write_html(_report(), path)
    page = path.read_text()
    assert page.startswith("<!doctype html>")
    assert page.count("<svg") == 4  # latency histogram, hands/s, actions/s, p99 over time
    assert "latency histogram" in page and "Throughput over time" in page
    assert "<script" not in page and "src=" not in page and "href=" not in page
    assert "<polyline" in page and "<rect" in page


def test_html_report_escapes_text() -> None:
    page = render_html(_report(notes=["<b>x</b>"], latency_histogram=None, seconds=[]))
    assert "&lt;b&gt;x&lt;/b&gt;" in page and "<b>x</b>" not in page
    assert "no latency samples" in page
