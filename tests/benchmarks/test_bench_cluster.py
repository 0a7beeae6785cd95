"""The cluster benchmark still runs (`--quick`, a subprocess: it pins its CPUs and raises its
file limit): both figures are there and positive. No speed is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.redis

ROOT = Path(__file__).resolve().parents[2]


def test_the_cluster_benchmark_prints_both_figures(tmp_path: Path) -> None:
    out = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, "-m", "tests.benchmarks.bench_cluster", "--quick",
                          "--json", str(out)], cwd=ROOT, capture_output=True, text=True,
                         timeout=38)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "cluster of 2 / standalone = " in run.stdout and "anchor (a): " in run.stdout
    result = json.loads(out.read_text())
    assert result["quick"] is True
    (hands,) = result["hands"]
    for kind in ("standalone", "cluster of 2"):
        median = hands["medians"][kind]
        assert median["hands"] > 0 and median["server_cpu_s"] > 0, median
        assert median["hands_per_cpu_s"] > 0 and hands["ratios"][kind] > 0
        assert not median["errors"], median
    assert sum(hands["medians"]["cluster of 2"]["tables_per_node"]) == 2  # (over two processes)
    spectators = result["spectators"]
    for case in ("a", "p", "b"):
        assert spectators["owner_cpu_us_per_event"][case] > 0
        assert spectators["events"][case] > 0
    assert all(v["measured"] > 0 for v in spectators["ratios"].values())
    (b,) = spectators["windows"]["b"]
    assert b["spectators"] == {"A": 50, "B": 75, "C": 75}
    assert b["publishes_per_event"] > 0  # remote spectators are served from A's publishes
    for name in ("A", "B", "C"):
        lag = spectators["lag"]["b"][name]
        assert lag["n"] > 0 and lag["p99_ms"] >= lag["p50_ms"], lag
    assert not spectators["player_errors"]
