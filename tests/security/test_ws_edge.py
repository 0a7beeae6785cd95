"""The WebSocket edge (issue 23): a client that sends pings and never reads, and fragmented
messages, against a real `poker-server` without test mode.

Each attack runs in its own process (`tests.security.wsattack`, at `nice 19`: on a small
shared machine the attacker's own CPU would otherwise be measured, not the server's
fairness), from other loopback addresses than the innocent player, who measures its `ping`
round trip idle and then during the attack, in the same test: its median under attack must
stay within `FACTOR` times its idle median (with a floor, `MEDIAN_FLOOR`, for the noise of a
shared machine), and its p95 within `FACTOR` times its idle p95 or `P95_FLOOR`, a stall a
player would notice. The server's memory (VmRSS of its process, sampled during the attack) must stay
within `RSS_BOUND` of its figure before (`CHURN_RSS_BOUND` for the attacks that reconnect
hundreds of times a second); the sockets are cut and counted in /metrics; no chip is created
or destroyed (the ledger sums to 0 at the end). Each test prints its figures.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

from protocol import SUBPROTOCOL_JSON
from tests.cluster.test_nginx import NAMES, nginx_binary, nginx_conf, wait_port
from tests.net.conftest import Client
from tests.redis_helpers import free_port
from tests.security.conftest import (
    ROOT,
    TIMEOUT,
    HostileServer,
    ServerFactory,
    client,
    ledger_sum,
)
from tests.security.test_connections import metrics

ATTACKERS = "127.0.0.2,127.0.0.3,127.0.0.4,127.0.0.5"
FACTOR = 5.0
MEDIAN_FLOOR = 0.025
"""Seconds: the bound on the median under attack is max(FACTOR x idle median, MEDIAN_FLOOR).
(On the 2-core development machine, shared with other test runs, the idle p95 alone varied
from 1 to 8 ms between runs.)"""
P95_FLOOR = 0.1
"""Seconds: the bound on the p95 under attack is max(FACTOR x idle p95, P95_FLOOR). (A bound
of 25 ms on the p95 failed one full run in about ten: three samples in 60 between 25 and
40 ms, the machine's other load, while the median stayed near 17 ms.)"""
RSS_BOUND = 24 * 1024
"""KiB the server's VmRSS may grow during a pings attack (before the write budget, four
pinging sockets grew it by about 70 MiB in 3 s, 240 MiB in 9 s)."""
CHURN_RSS_BOUND = 64 * 1024
"""KiB it may grow while attackers are closed and reconnect some 300 times a second (about
16 KiB a connection opened, levelling off near +60 MiB: see docs/security.md)."""
PACE = 0.05
"""Seconds between two probe pings (pacing the samples over the attack, not a wait; under
the default `request_rate` of 20 a second)."""
MAX_EXTRA = 20.0
"""Seconds an attack that must end some sockets may go on past its own length (the pings
through nginx with the write budget cut 4 sockets in 3.5 s quiet, 3 under a full run)."""
LIFTED = ("--set", "frame_rate=1000000000", "--set", "frame_burst=1000000000")
"""The frame rate limit out of the way: only the write budget stands."""


def rss_kib(pid: int) -> int:
    """VmRSS of process `pid`, in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[math.ceil(0.95 * len(ordered)) - 1]


def median(times: list[float]) -> float:
    return statistics.median(times)


async def ping_times(probe: Client, count: int) -> list[float]:
    """`count` round trips of `probe`'s `ping`, PACE apart."""
    times = []
    for _ in range(count):
        start = time.perf_counter()
        answer = await asyncio.wait_for(probe.request("ping"), TIMEOUT)
        times.append(time.perf_counter() - start)
        assert answer["type"] == "pong", answer
        await asyncio.sleep(PACE)
    return times


class Measured:
    """One attack's figures: the attacker's summary, the probe's round trips idle and under
    attack, the server's VmRSS before and at its peak."""

    def __init__(self) -> None:
        self.summary: dict[str, Any] = {}
        self.idle: list[float] = []
        self.attacked: list[float] = []
        self.rss_before = self.rss_peak = 0

    @property
    def growth(self) -> int:
        return self.rss_peak - self.rss_before

    def report(self, name: str) -> str:
        return (f"{name}: VmRSS {self.rss_before / 1024:.1f} MiB -> peak "
                f"{self.rss_peak / 1024:.1f} MiB (+{self.growth / 1024:.1f}); innocent ping "
                f"median/p95 idle {median(self.idle) * 1000:.2f}/{p95(self.idle) * 1000:.2f} "
                f"ms, under attack {median(self.attacked) * 1000:.2f}/"
                f"{p95(self.attacked) * 1000:.2f} ms "
                f"({len(self.attacked)} samples); "
                f"attacker {self.summary}")

    def assert_served(self) -> None:
        """The innocent player's median and p95 under attack within the bounds of its idle
        figures (every one of its pings was answered: `ping_times` waits for each)."""
        typical = max(FACTOR * median(self.idle), MEDIAN_FLOOR)
        assert median(self.attacked) <= typical, (median(self.attacked), typical, self.attacked)
        tail = max(FACTOR * p95(self.idle), P95_FLOOR)
        assert p95(self.attacked) <= tail, (p95(self.attacked), tail, self.attacked)


async def attacked(srv: HostileServer, probe: Client, mode: str, *args: str,
                   seconds: float = 3.5, port: int | None = None,
                   until_ended: int = 0) -> Measured:
    """Measure `probe` idle, then run `wsattack MODE` against `srv` (or `port`, a proxy) for
    `seconds` (and on until the server ended `until_ended` sockets, for at most
    `MAX_EXTRA` more seconds: a loaded machine cuts them later) while measuring `probe` and
    the server's VmRSS, until the attacker reports."""
    out = Measured()
    out.idle = await ping_times(probe, 40)
    pid = srv.proc.pid
    out.rss_before = out.rss_peak = rss_kib(pid)
    proc = await asyncio.create_subprocess_exec(
        "nice", "-n", "19", sys.executable, "-m", "tests.security.wsattack", mode, "--port",
        str(port or srv.port), "--sources", ATTACKERS, "--seconds", str(seconds),
        "--until-ended", str(until_ended), "--max-seconds", str(seconds + MAX_EXTRA), *args,
        cwd=ROOT, stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    try:
        assert await asyncio.wait_for(proc.stdout.readline(), TIMEOUT) == b"go\n"
        stop = asyncio.Event()

        async def sample_rss() -> None:
            while not stop.is_set():
                out.rss_peak = max(out.rss_peak, rss_kib(pid))
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), 0.02)

        sampler = asyncio.ensure_future(sample_rss())
        report = asyncio.ensure_future(proc.stdout.readline())
        while not report.done():  # (while the attack runs)
            out.attacked += await ping_times(probe, 1)
        line = await asyncio.wait_for(report, TIMEOUT)
        stop.set()
        await sampler
        out.summary = json.loads(line)
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        await proc.wait()
    return out


async def innocent(srv: HostileServer) -> Client:
    """The innocent player: a guest with chips (a ledger account), on 127.0.0.1."""
    probe = await client(srv)
    await probe.hello("Innocent")
    return probe


@pytest.mark.parametrize("extra", [(), LIFTED, (*LIFTED, "--set", "fast_send=false")],
                         ids=["frame-limit", "write-budget", "write-budget-plain"])
async def test_pings_that_are_never_read_are_cut_and_memory_stays_bounded(
        hostile_server: ServerFactory, extra: tuple[str, ...]) -> None:
    """Four sockets write pings as fast as they can and never read: with the defaults, the
    frame rate limit closes them (1008, `poker_flood_disconnects_total`) and the innocent
    player stays served; with the frame limit lifted, the write budget (the pongs piling up
    in the transport over `max_write_buffer`) aborts them
    (`poker_write_budget_disconnects_total{reason="buffer"}`), on both send paths. The attack
    goes on (every cut socket opens again): the server's memory stays bounded. (With the
    frame limit lifted nothing bounds how fast the server parses pings, by construction: the
    round trip is printed, not asserted.)"""
    srv = hostile_server(*extra)
    probe = await innocent(srv)
    out = await attacked(srv, probe, "pings", "--sockets", "4", until_ended=4)
    print(out.report(f"pings, never read ({' '.join(extra) or 'defaults'})"))
    summary = out.summary
    assert summary["refused"] == 0 and summary["connections"] >= 4
    assert summary["ended"] >= summary["connections"] - 4  # (the last ones may stay open)
    assert summary["ended"] >= 4
    seen = await metrics(srv)
    if extra:
        assert seen['poker_write_budget_disconnects_total{reason="buffer"}'] >= 4
    else:
        assert seen["poker_flood_disconnects_total"] >= 4
        out.assert_served()
    assert out.growth < RSS_BOUND, out.report("pings")
    assert (await probe.request("ping"))["type"] == "pong"
    await probe.ws.close()
    assert ledger_sum(srv) == 0


async def test_writes_that_stall_are_cut_at_the_stall_timeout(
        hostile_server: ServerFactory) -> None:
    """A budget too large to be reached (1 GiB) and `write_stall_timeout=0.5`: a pinging socket
    that never reads is aborted once the server's writes to it have been paused 0.5 s
    (`reason="stall"`)."""
    srv = hostile_server(*LIFTED, "--set", "max_write_buffer=1073741824", "--set",
                         "write_stall_timeout=0.5")
    probe = await innocent(srv)
    out = await attacked(srv, probe, "pings", "--sockets", "2", seconds=2.0, until_ended=2)
    print(out.report("pings, never read, stall timeout 0.5 s"))
    assert out.summary["ended"] >= 2
    seen = await metrics(srv)
    assert seen['poker_write_budget_disconnects_total{reason="stall"}'] >= 2
    assert seen['poker_write_budget_disconnects_total{reason="buffer"}'] == 0
    assert out.growth < RSS_BOUND
    await probe.ws.close()
    assert ledger_sum(srv) == 0


async def test_long_fragmented_messages_are_refused_and_others_stay_served(
        hostile_server: ServerFactory) -> None:
    """48 sockets from four addresses send 1,000-frame messages at 18 a second (the attack of
    issue 23): each is closed with 1009 at its 17th frame (`max_fragments` 16), and opens
    again (a closed socket holds its place for up to `slow_close_timeout`, so some of the
    reconnections meet the per-address cap); the innocent player's round trip stays within
    its bound."""
    srv = hostile_server()
    probe = await innocent(srv)
    out = await attacked(srv, probe, "fragments", "--sockets", "48", "--pieces", "1000",
                         "--rate", "18")
    print(out.report("48 sockets, 1000-frame messages at 18/s"))
    summary = out.summary
    assert summary["ended"] >= 48
    assert set(summary["codes"]) == {"1009"}, summary
    out.assert_served()
    assert out.growth < CHURN_RSS_BOUND
    await probe.ws.close()
    assert ledger_sum(srv) == 0


async def test_a_flood_of_small_fragments_is_closed_by_the_frame_limit(
        hostile_server: ServerFactory) -> None:
    """16 sockets send 16-frame messages (within `max_fragments`) as fast as they can, and
    open again when closed: every frame counts against the frame rate limit, so each is
    closed with 1008 (flooding) after `frame_burst` frames and `flood_limit` more; the
    innocent player's round trip stays within its bound. (With 48 such sockets reconnecting
    the p95 grew to tens of ms: each connection costs its handshake and ~170 frames before
    it is cut; that is the per-address caps' to bound, see docs/security.md.)"""
    srv = hostile_server()
    probe = await innocent(srv)
    out = await attacked(srv, probe, "frames", "--sockets", "16", "--pieces", "16")
    print(out.report("16 sockets, 16-frame messages as fast as they go"))
    summary = out.summary
    assert summary["ended"] >= 16
    assert set(summary["codes"]) == {"1008"}, summary
    seen = await metrics(srv)
    assert seen["poker_flood_disconnects_total"] >= summary["ended"]
    out.assert_served()
    assert out.growth < CHURN_RSS_BOUND
    await probe.ws.close()
    assert ledger_sum(srv) == 0


@pytest.fixture
def nginx_in_front(tmp_path: Path) -> Iterator[Callable[[HostileServer], int]]:
    """`front(server)`: Debian's nginx with deploy/nginx.conf (every upstream on `server`'s
    port), started on a free port, which it returns; stopped when the test ends. Skipped when
    nginx is not installed (`python3 dev.py test` installs it)."""
    binary = nginx_binary()
    if binary is None:
        pytest.skip("nginx is not installed (python3 dev.py test installs it)")
    procs: list[subprocess.Popen[bytes]] = []

    def front(srv: HostileServer) -> int:
        listen = free_port()
        conf = nginx_conf(tmp_path, listen, dict.fromkeys(NAMES, srv.port))
        proc = subprocess.Popen([binary, "-p", str(tmp_path), "-c", str(conf), "-e", "stderr",
                                 "-g", "daemon off;"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        procs.append(proc)
        wait_port(listen, proc)
        return listen

    yield front
    for proc in procs:
        proc.terminate()  # SIGTERM: the master stops its workers
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.mark.slow
@pytest.mark.parametrize("extra", [(), LIFTED], ids=["frame-limit", "write-budget"])
async def test_pings_never_read_behind_nginx(hostile_server: ServerFactory,
                                             nginx_in_front: Callable[[HostileServer], int],
                                             extra: tuple[str, ...]) -> None:
    """The same through deploy/nginx.conf: nginx relays the frames untouched and, once the
    client stops reading, stops reading the server, so the pongs pile up on the server as
    before: the frame limit closes the sockets (nginx then closes the client's), or with it
    lifted the write budget aborts them; the server's memory stays bounded and the innocent
    player, through nginx as well, stays served (asserted with the defaults, as above)."""
    srv = hostile_server(*extra)
    listen = nginx_in_front(srv)
    ws = await asyncio.wait_for(connect(f"ws://127.0.0.1:{listen}/ws",
                                        subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
                                        ping_interval=None), TIMEOUT)
    probe = Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)
    await probe.hello("Innocent")
    out = await attacked(srv, probe, "pings", "--sockets", "4", port=listen, until_ended=4)
    print(out.report(f"pings, never read, through nginx ({' '.join(extra) or 'defaults'})"))
    assert out.summary["ended"] >= 4
    seen = await metrics(srv)
    if extra:
        assert seen['poker_write_budget_disconnects_total{reason="buffer"}'] >= 4
    else:
        assert seen["poker_flood_disconnects_total"] >= 4
        out.assert_served()
    assert out.growth < RSS_BOUND
    await probe.ws.close()
    assert ledger_sum(srv) == 0
