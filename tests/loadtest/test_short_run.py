"""Short load runs against a spawned server (the issue's "20 tables" example, kept to about
twelve seconds): they must end with zero errors and every chip accounted for.

The chips are checked as ``server.loadtest.runner`` documents: each bot's balance off the
tables is read back through the protocol after it has left, the sum must equal the sum of
the starting balances, and the server's own ``final_balances`` log line must agree.
"""

from __future__ import annotations

import io

import pytest

from server.loadtest import RunConfig, run_load

pytestmark = pytest.mark.slow


async def test_twenty_tables_of_six_bots_at_zero_think_time() -> None:
    progress = io.StringIO()
    report = await run_load(RunConfig(spawn=True, tables=20, bots=6, duration=12.0,
                                      think=0.0, seed=7), err=progress)
    assert report.errors == {}
    assert report.disconnects == 0
    assert report.chips["balanced"] is True
    assert report.chips["start"] == report.chips["end"] == report.chips["server_total"]
    assert report.chips["accounts"] == 20 * 6 + 1  # the bots and the admin
    assert report.hands > 20  # about 40-50 a second here; a loaded CI machine gets less
    assert report.latency.count == report.actions > report.hands
    assert 0 < report.latency.p50_ms <= report.latency.p99_ms <= report.latency.max_ms
    assert report.frames_out > report.frames_in > report.actions
    assert report.ok
    lines = progress.getvalue().splitlines()
    assert len(lines) >= 10 and "hands" in lines[-1] and "p99" in lines[-1]


async def test_churn_and_spectators() -> None:
    report = await run_load(RunConfig(spawn=True, tables=3, bots=6, spectators=2,
                                      duration=5.0, churn=4.0, seed=11, progress=False))
    assert report.errors == {}
    assert report.reconnects == report.disconnects >= 10  # 4 a second for 5 s
    assert report.chips["balanced"] is True
    assert report.spectators == 6
    assert report.spectator_lag.count > 100  # events each spectator got, paired
    assert report.hands > 3
    assert report.ok
