"""The cluster's figures (issue 17): what spreading the room over processes costs, each as a ratio
against an anchor measured in the same run.

    .venv/bin/python -m tests.benchmarks.bench_cluster [--quick] [--rounds 3] [--seconds 8]
        [--tables 8] [--think 0,0.02] [--local 500] [--spectators 5000] [--play-think 0.2]
        [--only hands|spectators] [--no-pin] [--json PATH]

All on loopback: a `redis-server` of its own (free port, temporary directory, append-only,
`appendfsync always` as `deploy/redis.conf`; emptied before every run) and real `poker-server`
processes (the load tester's caps lifted, `SPAWN_ARGS`; 1,000,000 chips a player), new for every
run and killed at its end. Cluster members get `--redis URL --node NAME --public-url
ws://127.0.0.1:PORT/ws --set cluster_lobby_refresh_ms=50`. Servers and Redis are pinned to the
first CPU, this process (every client) to the second (`--no-pin`: none). CPU time: a process's
on-CPU time (user + system, every thread) from `/proc/<pid>/task/*/schedstat` in nanoseconds
(`/proc/<pid>/stat`'s utime + stime count 10 ms ticks, too coarse for a window), so other
processes' load does not count in it. `BENCH_PROFILE=DIR`: cProfile each server. `--quick`: a smoke
run (two kinds, seconds a case, 200 spectators; `test_bench_cluster.py`).

1. **Hands per server CPU-second.** One workload per `--think` value: `--tables` six-handed
   no-limit Hold'em tables (50/100, no pause), the bots of `server.loadtest.bots`, against a
   standalone process (embedded store; the anchor), one process on Redis without the directory (the
   store's share), a cluster of two (the directory places the tables; bot i connects to process i %
   2, follows `moved`), the same at the default 250 ms refresh, two processes sharing only the
   store ("2 apart": the split's cost). Hands: the servers' `poker_hands_total` (`/metrics`,
   operator port) over the window; idle: the processes' CPU a second before any table opens. Kinds
   alternate; a kind's figure is its median round. Target: the cluster within 10% of the anchor.
2. **Spectators across processes.** A cluster of three (A, B, C), one heads-up table on A, two bots
   on A playing. (a) `--local` spectators on A (the anchor); (p) one more on each of B and C (A now
   publishes each frame once); (b) `--spectators` in all, the rest on B and C (served from that one
   publish by `server.cluster.spectate`). Owner (A) CPU per table event (the `seq` advance), as
   measured and net of A's idle rate; (b)/(p) is what remote spectators cost the owner beyond its
   publish (by design nothing). Lag: a sampled spectator's receipt of seq N minus the players'
   first receipt of it, one clock. The spectators are `tests.benchmarks.rawws` clients that only
   `watch`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import glob
import json
import os
import random
import select
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from server.loadtest.bots import Bot, Stats, TableTrack
from server.loadtest.report import percentile
from server.loadtest.runner import SPAWN_ARGS, process_cpu_seconds
from tests.benchmarks.bench_capacity import commit, machine
from tests.benchmarks.rawws import RawClient, open_clients, raise_nofile
from tests.redis_helpers import RedisProcess, free_port

ROOT = Path(__file__).resolve().parents[2]
LISTENING, OPERATOR = "poker-server listening on ", "poker-server operator on "
CAPS = (*SPAWN_ARGS, "--set", "starting_balance=1000000", "--set", "max_connections=20000")
KINDS = {"standalone": (1, None, 0), "standalone on Redis": (1, "redis", 0),
         "2 apart on Redis": (2, "redis", 0),
         "cluster of 2": (2, "redis", 50), "cluster of 2, 250 ms": (2, "redis", 250)}
# kind -> (processes, store, directory refresh ms; 0: not a cluster)
HOLDEM: dict[str, Any] = {"type": "create_table", "variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6, "settings": {"pause": 0}}
BUY_IN = 4000
WATCH_BATCH = 500  # watch requests in flight at once (the table's inbox holds 1024)
SAMPLE = 5  # every SAMPLE-th spectator records (seq, receipt time) for the lag
SNAPSHOT = b'{"type":"snapshot"'
CASES = ("a", "p", "b")


@dataclass(frozen=True)
class Setup:
    rounds: int
    seconds: float
    warmup: float
    tables: int
    thinks: tuple[float, ...]
    local: int
    spectators: int
    play_think: float
    kinds: tuple[str, ...] = tuple(KINDS)
    only: str | None = None


# ------------------------------------------------------------------------------ processes
def _ns(path: str) -> int:
    try:
        return int(Path(path).read_text().split()[0])
    except (OSError, ValueError, IndexError):  # (a thread that just ended)
        return 0


def cpu_seconds(pid: int) -> float:
    """On-CPU seconds of every thread of process `pid` (the module docstring)."""
    paths = glob.glob(f"/proc/{pid}/task/*/schedstat")
    return sum(map(_ns, paths)) / 1e9 if paths else process_cpu_seconds(pid) or 0.0


@dataclass
class Node:
    """One `poker-server` subprocess."""

    name: str
    proc: subprocess.Popen[bytes]
    ws_url: str = ""
    operator_url: str = ""

    def cpu(self) -> float:
        return cpu_seconds(self.proc.pid)

    def metrics(self) -> dict[str, float]:
        with urllib.request.urlopen(self.operator_url + "metrics", timeout=5) as answer:
            lines = answer.read().decode().splitlines()
        return {name: float(value) for name, _, value in
                (line.rpartition(" ") for line in lines if line and line[0] != "#")}


def _first_lines(proc: subprocess.Popen[bytes], n: int, timeout: float) -> list[str]:
    """The first `n` lines of the child's stdout, within `timeout` seconds."""
    assert proc.stdout is not None
    fd, buf = proc.stdout.fileno(), b""
    deadline = time.monotonic() + timeout
    while buf.count(b"\n") < n:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            raise RuntimeError("a server did not start in time")
        if not (chunk := os.read(fd, 4096)):
            raise RuntimeError("a server exited before listening")
        buf += chunk
    return buf.decode().splitlines()[:n]


def _command(name: str, data: Path, port: int, redis_url: str | None, refresh: int) -> list[str]:
    command = [str(Path(sys.executable).with_name("poker-server"))]
    profile = os.environ.get("BENCH_PROFILE")
    if profile:
        command = [sys.executable, "-m", "cProfile", "-o", f"{profile}/{data.name}.prof",
                   "-m", "server.main"]
    args = [*command, "--port", str(port), "--data-dir", str(data / "data"),
            "--shutdown-deadline", "0.5", *CAPS]
    if redis_url is not None:
        args += ["--redis", redis_url, "--node", name]
    if refresh:
        args += ["--public-url", f"ws://127.0.0.1:{port}/ws",
                 "--set", f"cluster_lobby_refresh_ms={refresh}"]
    return args


@contextmanager
def running(tmp: Path, names: str, cpu: int | None, redis_url: str | None,
            refresh: int) -> Iterator[list[Node]]:
    """Processes named by the letters of `names`, started at once (a cluster when `refresh`),
    each listening; stopped at the end (SIGTERM, then SIGKILL after 10 s)."""
    nodes: list[Node] = []
    pre = None if cpu is None else (lambda: os.sched_setaffinity(0, {cpu}))
    try:
        for name in names:
            data = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=tmp))
            with (data / "server.log").open("wb") as err:
                nodes.append(Node(name, subprocess.Popen(
                    _command(name, data, free_port(), redis_url, refresh), cwd=ROOT,
                    stdout=subprocess.PIPE, stderr=err, preexec_fn=pre)))
        for node in nodes:
            first, second = _first_lines(node.proc, 2, 30.0)
            assert first.startswith(LISTENING) and second.startswith(OPERATOR), (first, second)
            node.ws_url = "ws" + first[len(LISTENING) + 4:].strip().rstrip("/") + "/ws"
            node.operator_url = second[len(OPERATOR):].strip().rstrip("/") + "/"
        yield nodes
    finally:
        for node in nodes:
            if node.proc.poll() is None:
                node.proc.send_signal(signal.SIGTERM)
        for node in nodes:
            with contextlib.suppress(subprocess.TimeoutExpired):
                node.proc.wait(10)
            node.proc.kill()  # (no-op once it has exited)
            node.proc.wait(10)


def _redis(redis: RedisProcess, command: bytes) -> str:
    """One command to the benchmark's Redis; its reply's text (a status or a bulk string)."""
    with socket.create_connection(("127.0.0.1", redis.port), timeout=5) as s:
        s.sendall(command + b"\r\n")
        data = s.recv(65536)  # a status line, or `$<size>` and that many bytes
        if data.startswith(b"$"):
            size = int(data[1:data.index(b"\r\n")]) + data.index(b"\r\n") + 4
            while len(data) < size and (chunk := s.recv(65536)):
                data += chunk
    return data.decode()


def publishes(redis: RedisProcess) -> int:
    stats = _redis(redis, b"INFO commandstats").splitlines()
    line = next((x for x in stats if x.startswith("cmdstat_publish:")), "calls=0,")
    return int(line.split("calls=")[1].split(",")[0])


def redis_cpu(redis: RedisProcess) -> float:
    return cpu_seconds(redis.proc.pid) if redis.proc is not None else 0.0


async def settle() -> None:
    """Let every member read the directory (no event tells a client it has caught up)."""
    await asyncio.sleep(0.3)


async def idle_rate(nodes: list[Node], seconds: float) -> float:
    """CPU seconds a second of `nodes` together, doing nothing asked of them."""
    c0, t0 = sum(n.cpu() for n in nodes), time.perf_counter()
    await asyncio.sleep(seconds)
    return (sum(n.cpu() for n in nodes) - c0) / (time.perf_counter() - t0)


# ------------------------------------------------------------------------------ figure 1
async def arrive(url: str, name: str, stats: Stats, track: TableTrack | None = None,
                 seat: int = 0, think: float = 0.0, seed: int = 0) -> Bot:
    """A bot connected and identified; seated at `track`'s table when given (`moved`)."""
    bot = Bot(url, name, track or TableTrack("", stats), seat=seat, buy_in=BUY_IN if track else 0,
              rng=random.Random(seed), think=think, encoding="json", stats=stats)
    await bot.open()
    await bot.hello()
    if track is not None:
        await bot.sit()
    return bot


async def _seat_bots(urls: list[str], setup: Setup, think: float,
                     stats: Stats, apart: bool = False) -> list[Bot]:
    """Tables created through the first URL (the directory places them), six bots each,
    bot i connecting to `urls[i % len(urls)]` and following `moved` to its table; `apart`
    (no directory): table t opens on `urls[t % n]`, its bots connect there."""
    admins = [await arrive(url, f"bench-admin-{i}", stats)
              for i, url in enumerate(urls if apart else urls[:1])]
    seats: list[tuple[TableTrack, int, str | None]] = []
    for t in range(setup.tables):
        made = await admins[t % len(admins)].follow({**HOLDEM, "name": f"bench {t}"})
        assert made["type"] == "ok", made
        home = urls[t % len(urls)] if apart else None
        seats += [(TableTrack(str(made["table"]), stats), s, home) for s in range(6)]
    bots = list(admins)
    for i in range(0, len(seats), 32):
        bots += await asyncio.gather(*(
            arrive(home or urls[j % len(urls)], f"b{j}", stats, track, s, think, seed=j + 1)
            for j, (track, s, home) in enumerate(seats[i:i + 32], start=i)))
    return bots


async def hands_run(nodes: list[Node], redis: RedisProcess, setup: Setup,
                    think: float, apart: bool = False) -> dict[str, Any]:
    """One measured window of the bots' play on `nodes`: hands, server and Redis CPU."""
    await settle()
    idle = await idle_rate(nodes, setup.warmup)
    stats = Stats()
    bots = await _seat_bots([n.ws_url for n in nodes], setup, think, stats, apart)
    try:
        await asyncio.sleep(setup.warmup)
        before = [(n.cpu(), n.metrics()["poker_hands_total"]) for n in nodes]
        r0, t0 = redis_cpu(redis), time.perf_counter()
        await asyncio.sleep(setup.seconds)
        after = [(n.cpu(), n.metrics()) for n in nodes]
        r1, t1 = redis_cpu(redis), time.perf_counter()
    finally:
        await asyncio.gather(*(b.close() for b in bots))
    hands = sum(m["poker_hands_total"] - h for (_, h), (_, m) in zip(before, after, strict=True))
    cpu = sum(c1 - c0 for (c0, _), (c1, _) in zip(before, after, strict=True))
    return {"hands": int(hands), "server_cpu_s": round(cpu, 3), "redis_cpu_s": round(r1 - r0, 3),
            "wall_s": round(t1 - t0, 3), "idle_ms_per_s": round(idle * 1000, 1),
            "tables_per_node": [int(m["poker_tables"]) for _, m in after],
            "hands_per_cpu_s": hands / cpu if cpu > 0 else 0.0,
            "hands_per_cpu_s_with_redis": hands / (cpu + r1 - r0) if cpu > 0 else 0.0,
            "moves": stats.moves, "errors": dict(stats.errors)}


def _hands_row(kind: str, r: dict[str, Any], label: str = "") -> None:
    print(f"{kind:>20} {r['hands']:>6} {r['hands'] / r['wall_s']:>7.1f} {r['server_cpu_s']:>8.2f}"
          f" {r['redis_cpu_s']:>7.2f} {r['idle_ms_per_s']:>7.1f} {r['hands_per_cpu_s']:>10.1f} "
          f"{r['hands_per_cpu_s_with_redis']:>10.1f} {'/'.join(map(str, r['tables_per_node'])):>6}"
          f" {r['moves']:>5}" + (f"  {label}" if label else ""), flush=True)


async def workload(tmp: Path, redis: RedisProcess, setup: Setup, cpu: int | None,
                   think: float) -> dict[str, Any]:
    print(f"\n1. hands per server CPU-second: {setup.tables} tables x 6 bots, think "
          f"{think * 1000:g} ms, {setup.seconds:g} s windows, {setup.rounds} rounds")
    print(f"{'kind':>20} {'hands':>6} {'hands/s':>7} {'srv CPU s':>8} {'Redis s':>7} "
          f"{'idle ms/s':>7} {'hands/CPU-s':>10} {'+Redis CPU':>10} {'tables':>6} {'moves':>5}")
    runs: dict[str, list[dict[str, Any]]] = {k: [] for k in setup.kinds}
    for r in range(setup.rounds):
        for kind in setup.kinds if r % 2 == 0 else tuple(reversed(setup.kinds)):
            _redis(redis, b"FLUSHALL")
            count, store, refresh = KINDS[kind]
            url = redis.url if store else None
            with running(tmp, "ab"[:count] if count > 1 else "s", cpu, url, refresh) as nodes:
                runs[kind].append(await hands_run(nodes, redis, setup, think,
                                                  apart=count > 1 and not refresh))
            _hands_row(kind, runs[kind][-1], f"round {r + 1}")
    medians = {k: sorted(v, key=lambda x: x["hands_per_cpu_s"])[(len(v) - 1) // 2]
               for k, v in runs.items()}
    anchor = medians["standalone"]["hands_per_cpu_s"]
    ratios = {k: m["hands_per_cpu_s"] / anchor for k, m in medians.items()}
    print("medians (ratio: hands/CPU-s over the standalone process's):")
    for kind in setup.kinds:
        _hands_row(kind, medians[kind], f"x{ratios[kind]:.3f}")
    cluster = ratios["cluster of 2"]
    print(f"anchor: standalone {anchor:.1f} hands/CPU-s; cluster of 2 / standalone = "
          f"{cluster:.3f} (target >= 0.90: {'met' if cluster >= 0.9 else 'NOT met'})", flush=True)
    return {"think_s": think, "runs": runs, "medians": medians,
            "anchor_hands_per_cpu_s": anchor, "ratios": ratios}


# ------------------------------------------------------------------------------ figure 2
class FirstSeen(TableTrack):
    """The seated players' track: the first receipt time of every seq, kept for the run."""

    def __init__(self, table_id: str, stats: Stats) -> None:
        super().__init__(table_id, stats)
        self.first: dict[int, float] = {}

    def player_saw(self, seq: int, now: float) -> None:
        self.first.setdefault(seq, now)


@dataclass
class Crowd:
    """The spectators of one process: raw clients that `watch` the table."""

    name: str
    port: int
    table: str
    clients: list[RawClient] = field(default_factory=list)
    snapshots: int = 0
    target: int = 0
    recording: bool = False
    samples: list[tuple[int, float]] = field(default_factory=list)
    ready: asyncio.Future[None] | None = None

    def listener(self, i: int) -> Callable[[bytes], None]:
        sampled = i % SAMPLE == 0

        def on_message(payload: bytes) -> None:
            if payload.startswith(SNAPSHOT):
                self.snapshots += 1
                if self.snapshots == self.target and self.ready and not self.ready.done():
                    self.ready.set_result(None)
            elif sampled and self.recording:
                seq = orjson.loads(payload).get("seq")
                if isinstance(seq, int):
                    self.samples.append((seq, time.perf_counter()))
        return on_message

    async def fill(self, n: int) -> None:
        """Open `n` more connections; each watches the table (and got its snapshot)."""
        base = len(self.clients)
        new = await open_clients("127.0.0.1", self.port, n,
                                 lambda i: self.listener(base + i), timeout=120)
        self.clients += new
        watch = orjson.dumps({"type": "watch", "rid": 1, "table": self.table})
        for start in range(0, n, WATCH_BATCH):
            batch = new[start:start + WATCH_BATCH]
            self.target = self.snapshots + len(batch)
            self.ready = asyncio.get_running_loop().create_future()
            for client in batch:
                client.send_text(watch)
            try:
                await asyncio.wait_for(self.ready, 60)
            except TimeoutError:
                raise SystemExit(f"{self.name}: {self.snapshots}/{self.target} spectators "
                                 "got their snapshot") from None

    async def empty(self) -> None:
        for client in self.clients:
            client.close()
        await asyncio.gather(*(c.closed for c in self.clients))
        self.clients = []


async def _listed_everywhere(nodes: list[Node], table: str, stats: Stats) -> None:
    """Wait (bounded) until every process's copy lists the table: a `watch` there is then
    served there, not `moved`."""
    for node in nodes:
        probe = await arrive(node.ws_url, f"probe-{node.name}", stats)
        for _ in range(30):
            page = await probe.request({"type": "tables"})
            if any(t.get("table") == table for t in page.get("tables", ())):
                break
            await settle()
        else:
            raise SystemExit(f"{node.name} never listed {table}")
        await probe.close()


async def _players(owner: Node, setup: Setup, stats: Stats) -> tuple[list[Bot], FirstSeen]:
    """The table on the owner (every process is empty: it opens where it is asked) and its
    two players, bots connected there."""
    host = await arrive(owner.ws_url, "bench-host", stats)
    made = await host.request({**HOLDEM, "name": "watched"})
    assert made["type"] == "ok", made
    await host.close()
    track = FirstSeen(str(made["table"]), stats)
    return [await arrive(owner.ws_url, f"p{s}", stats, track, s, setup.play_think, s)
            for s in range(2)], track


async def spectate_window(nodes: list[Node], redis: RedisProcess, track: FirstSeen,
                          crowds: list[Crowd], seconds: float, idle: float) -> dict[str, Any]:
    """One window: every process's CPU per table event, the owner's net of its idle rate,
    Redis's publishes, this process's CPU use and the lag samples."""
    for crowd in crowds:
        crowd.samples, crowd.recording = [], True
    seq0, pub0, mine0 = max(track.first, default=0), publishes(redis), time.process_time()
    cpu0, r0, t0 = [n.cpu() for n in nodes], redis_cpu(redis), time.perf_counter()
    await asyncio.sleep(seconds)
    cpu1, r1, wall = [n.cpu() for n in nodes], redis_cpu(redis), time.perf_counter() - t0
    events = max(max(track.first, default=0) - seq0, 1)
    busy, pubs = (time.process_time() - mine0) / wall, publishes(redis) - pub0
    for crowd in crowds:
        crowd.recording = False
    await asyncio.sleep(0.2)  # (a spectator may have had seq N before the players)
    lags = {c.name: [t - track.first[s] for s, t in c.samples if s in track.first]
            for c in crowds}
    us = [(c1 - c0) / events * 1e6 for c0, c1 in zip(cpu0, cpu1, strict=True)]
    return {"events": events, "cpu_us_per_event": [round(x, 1) for x in us],
            "owner_net_us_per_event": round(us[0] - idle * wall / events * 1e6, 1),
            "redis_us_per_event": round((r1 - r0) / events * 1e6, 1),
            "publishes_per_event": round(pubs / events, 3), "client_busy": round(busy, 3),
            "spectators": {c.name: len(c.clients) for c in crowds}, "lags": lags}


def _lag(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {"n": len(ordered), **{f"p{q}_ms": round(percentile(ordered, q) * 1000, 2)
                                  if ordered else 0.0 for q in (50, 99)}}


def _spectate_row(case: str, w: dict[str, Any], label: str) -> None:
    lags = " ".join(f"{name} {_lag(v)['p50_ms']:.1f}/{_lag(v)['p99_ms']:.1f}"
                    for name, v in w["lags"].items() if v)
    counts = "/".join(str(n) for n in w["spectators"].values())
    print(f"({case}) {counts:>14} {w['events']:>6} {w['cpu_us_per_event'][0]:>8.0f} "
          f"{w['owner_net_us_per_event']:>8.0f} {w['cpu_us_per_event'][1]:>8.0f} "
          f"{w['cpu_us_per_event'][2]:>8.0f} {w['redis_us_per_event']:>8.0f} "
          f"{w['publishes_per_event']:>5.2f} {w['client_busy']:>5.0%}  {lags}  {label}",
          flush=True)


async def _spectate_rounds(nodes: list[Node], redis: RedisProcess, setup: Setup,
                           track: FirstSeen, idle: float) -> dict[str, list[Any]]:
    crowds = [Crowd(n.name.upper(), int(n.ws_url.rsplit(":", 1)[1][:-3]), track.table_id)
              for n in nodes]
    local, on_b, on_c = crowds
    remote = setup.spectators - setup.local
    await local.fill(setup.local)
    more = {"a": (0, 0), "p": (1, 1), "b": (remote // 2 - 1, remote - remote // 2 - 1)}
    windows: dict[str, list[Any]] = {case: [] for case in CASES}
    for r in range(setup.rounds):
        for case in CASES:
            await on_b.fill(more[case][0])
            await on_c.fill(more[case][1])
            await asyncio.sleep(setup.warmup)
            windows[case].append(await spectate_window(nodes, redis, track, crowds,
                                                       setup.seconds, idle))
            _spectate_row(case, windows[case][-1], f"round {r + 1}")
        await on_b.empty()
        await on_c.empty()
    await local.empty()
    return windows


async def figure_spectators(tmp: Path, redis: RedisProcess, setup: Setup,
                            cpu: int | None) -> dict[str, Any]:
    remote = setup.spectators - setup.local
    print(f"\n2. spectators: one heads-up table on A (think {setup.play_think * 1000:g} ms); (a) "
          f"{setup.local:,} on A; (p) +1 on B, +1 on C; (b) {setup.spectators:,}, {remote // 2:,}"
          f" on B, {remote - remote // 2:,} on C; {setup.seconds:g} s windows")
    _redis(redis, b"FLUSHALL")
    with running(tmp, "abc", cpu, redis.url, 50) as nodes:
        await settle()
        idle = (await idle_rate(nodes[:1], 2 * setup.warmup))
        print(f"A idle (no table yet): {idle * 1000:.1f} ms of CPU a second")
        print(f"case {'spect. A/B/C':>14} {'events':>6} {'A µs/ev':>8} {'A net':>8} "
              f"{'B µs/ev':>8} {'C µs/ev':>8} {'Redis':>8} {'pub/e':>5} {'this':>5}  "
              "lag ms p50/p99 by process")
        stats = Stats()
        bots, track = await _players(nodes[0], setup, stats)
        try:
            await _listed_everywhere(nodes, track.table_id, stats)
            windows = await _spectate_rounds(nodes, redis, setup, track, idle)
        finally:
            await asyncio.gather(*(b.close() for b in bots))
    return _spectate_summary(windows, stats, idle)


def _spectate_summary(windows: dict[str, list[Any]], stats: Stats,
                      idle: float) -> dict[str, Any]:
    owner = {case: statistics.median(w["cpu_us_per_event"][0] for w in ws)
             for case, ws in windows.items()}
    net = {case: statistics.median(w["owner_net_us_per_event"] for w in ws)
           for case, ws in windows.items()}
    lags = {case: {name: _lag([x for w in ws for x in w["lags"][name]])
                   for name in ws[0]["lags"] if any(w["lags"][name] for w in ws)}
            for case, ws in windows.items()}
    ratios = {f"{x}/{y}": {"measured": owner[x] / owner[y], "net": net[x] / net[y]}
              for x, y in (("p", "a"), ("b", "a"), ("b", "p"))}
    print("owner (A) CPU per table event, median of rounds (measured; net of idle): "
          + ", ".join(f"({c}) {owner[c]:.0f}; {net[c]:.0f} µs" for c in CASES))
    print("anchor (a): " + ", ".join(f"{k} = {v['measured']:.3f}; {v['net']:.3f}"
                                     for k, v in ratios.items()))
    for case in CASES:
        print(f"spectator lag ({case}), all rounds: " + "; ".join(
            f"on {name} p50 {v['p50_ms']:.1f} ms p99 {v['p99_ms']:.1f} ms ({v['n']} samples)"
            for name, v in lags[case].items()))
    print(f"players' errors: {dict(stats.errors)}" if stats.errors else "no error answer")
    for ws in windows.values():
        for w in ws:
            w["lags"] = {name: _lag(v) for name, v in w["lags"].items()}
    return {"owner_cpu_us_per_event": owner, "owner_net_us_per_event": net,
            "owner_idle_ms_per_s": round(idle * 1000, 1), "ratios": ratios, "lag": lags,
            "events": {c: sum(w["events"] for w in ws) for c, ws in windows.items()},
            "windows": windows, "player_errors": dict(stats.errors)}


# ------------------------------------------------------------------------------ main
def _setup(args: argparse.Namespace) -> Setup:
    if args.quick:
        return Setup(rounds=1, seconds=1.5, warmup=0.3, tables=2, thinks=(0.02,), local=50,
                     spectators=200, play_think=0.05, kinds=("standalone", "cluster of 2"),
                     only=args.only)
    return Setup(rounds=args.rounds, seconds=args.seconds, warmup=1.0, tables=args.tables,
                 thinks=tuple(float(x) for x in args.think.split(",")), local=args.local,
                 spectators=args.spectators, play_think=args.play_think, only=args.only)


async def bench(setup: Setup, pin: bool) -> dict[str, Any]:
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = cpus[0] if pin and len(cpus) > 1 else None
    if server_cpu is not None:
        os.sched_setaffinity(0, set(cpus[1:]))
    print(f"machine: {machine()}; commit {commit()}; load average before the run: "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; " + (
              f"servers and Redis on CPU {server_cpu}, clients on CPU {cpus[1]}"
              if server_cpu is not None else "no pinning"), flush=True)
    result: dict[str, Any] = {"machine": machine(), "commit": commit()}  # (the run's)
    with tempfile.TemporaryDirectory(prefix="bench_cluster_") as name:
        redis = RedisProcess((tmp := Path(name)) / "redis")
        redis.start()
        try:
            assert redis.proc is not None
            if server_cpu is not None:
                os.sched_setaffinity(redis.proc.pid, {server_cpu})
            if setup.only in (None, "hands"):
                result["hands"] = [await workload(tmp, redis, setup, server_cpu, think)
                                   for think in setup.thinks]
            if setup.only in (None, "spectators"):
                result["spectators"] = await figure_spectators(tmp, redis, setup, server_cpu)
        finally:
            redis.kill()
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run (a few seconds)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=8.0, help="seconds per window")
    parser.add_argument("--tables", type=int, default=8, help="figure 1: tables of six bots")
    parser.add_argument("--think", default="0,0.02", help="figure 1: think seconds, a list")
    parser.add_argument("--local", type=int, default=500, help="figure 2: spectators on A")
    parser.add_argument("--spectators", type=int, default=5000, help="figure 2 (b): in all")
    parser.add_argument("--play-think", type=float, default=0.2, help="figure 2: think s")
    parser.add_argument("--only", choices=("hands", "spectators"), default=None)
    parser.add_argument("--no-pin", action="store_true", help="no CPU pinning")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    args = parser.parse_args(argv)
    if args.local < 0 or args.spectators < args.local + 2:
        parser.error("need 0 <= --local and --spectators >= --local + 2")
    raise_nofile()
    started = time.perf_counter()
    result = {**asyncio.run(bench(_setup(args), pin=not args.no_pin)), "quick": args.quick}
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json is not None:
        args.json.write_text(json.dumps(result, indent=2) + "\n")


if __name__ == "__main__":
    main()
