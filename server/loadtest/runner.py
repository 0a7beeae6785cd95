"""One load run: (optionally) start a server, create the tables, seat the bots, add the
spectators, play for a duration or a number of hands, end cleanly, check the chips, report.

Rule of this module: like the rest of ``server.loadtest`` it talks to the server only over
the wire (the spawned server is a subprocess, started by its console command), so what it
measures is what a client sees.

How a run ends, and what "every chip accounted for" means here:

1. The measured window closes (``Stats.stop``): the figures cover only the time between all
   bots being seated and this moment.
2. Every bot sends ``leave`` and keeps playing its running hand until its own ``left`` event
   arrives (a player leaves at the end of the hand). Spectators close.
3. Each bot's balance off the tables is read back through the protocol: a fresh connection,
   ``hello`` with the bot's token, and the ``balance`` of its ``welcome``. The check is
   ``sum(final balances) == sum(starting balances)`` (from each bot's first ``welcome``), over
   every bot and the admin connection that created the tables. With every bot gone, no chip
   can be left on a table, so an imbalance is a chip created or destroyed.
4. With ``--spawn``, the server is stopped with SIGTERM and its ``event=final_balances
   total=N`` log line must equal the same sum (every account on that server is ours).
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from protocol import STRUCTURES, VARIANTS

from .bots import REQUEST_TIMEOUT, Bot, Spectator, Stats, TableTrack, fetch_balance
from .report import Report, histogram, percentile, summarize

__all__ = ["RunConfig", "ServerProcess", "default_stakes", "run_load", "start_server"]

#: Arguments every spawned server gets first (``--server-arg`` may override them): bots at
#: zero think time send far more than a human's 20 requests a second, so the per-connection
#: request limit is lifted for the run; and every bot connects from this one address, so the
#: per-address connection cap is lifted too (the total cap still applies).
#: One admin account opens every table of the run from that address: the table caps (a real
#: room's defaults: 8 per account, 32 per address, 2000 in all) are lifted as well; against
#: ``--url`` the server's own apply (give it ``--set max_tables_per_account=N`` and
#: ``--set max_tables_per_ip=N`` for a run of N tables).
SPAWN_ARGS = ("--request-rate", "1000000", "--request-burst", "1000000",
              "--set", "max_connections_per_ip=1000000",
              "--set", "max_tables_per_account=100000", "--set", "max_tables_per_ip=100000",
              "--set", "max_tables=100000", "--set", "guests_per_ip_per_minute=1000000")

_URL_LINE = re.compile(r"listening on (http://\S+?)/?\s*$")
_FINAL_TOTAL = re.compile(r"event=final_balances total=(-?\d+)")


def default_stakes(variant: str, structure: str | None) -> dict[str, Any]:
    """The stakes a table of ``variant``/``structure`` gets unless ``--stakes`` says more."""
    if variant == "caribbean":
        return {"min": 100, "max": 1000}  # the jackpot wager is the house's (CSP-13)
    if variant.startswith("stud"):
        stakes: dict[str, Any] = {"ante": 10, "bring_in": 25, "small_bet": 50, "big_bet": 100}
        if structure == "spread_limit":
            stakes = {"ante": 10, "bring_in": 25, "min_bet": 50, "max_bet": 250}
        return stakes
    stakes = {"blinds": [50, 100]}
    if structure == "fixed_limit":
        stakes.update(small_bet=100, big_bet=200)
    elif structure == "spread_limit":
        stakes.update(min_bet=100, max_bet=500)
    return stakes


def _unit(variant: str, stakes: dict[str, Any]) -> int:
    """The table's "big bet" (buy-ins are counted in these)."""
    if variant == "caribbean":
        return int(stakes.get("ante_min", stakes.get("min", 100)))
    if variant.startswith("stud"):
        return int(stakes.get("small_bet") or stakes.get("min_bet") or stakes["bring_in"])
    return int(stakes["blinds"][-1])


@dataclass(frozen=True, kw_only=True)
class RunConfig:
    """Everything a run needs (the command-line options of ``poker-loadtest``)."""

    url: str | None = None
    spawn: bool = False
    server_cpu: int | None = None
    client_cpu: int | None = None
    server_args: tuple[str, ...] = ()
    profile: Path | None = None
    data_root: Path | None = None
    tables: int = 10
    bots: int = 6
    spectators: int = 0
    variant: str = "holdem"
    structure: str | None = "no_limit"
    stakes: dict[str, Any] | None = None
    pause: float = 0.0
    duration: float | None = 20.0
    hands: int | None = None
    think: float = 0.0
    seed: int = 1
    churn: float = 0.0
    encoding: str = "json"
    buy_in_units: int = 40
    connect_batch: int = 64
    progress: bool = True

    def __post_init__(self) -> None:
        if (self.url is None) == (not self.spawn):
            raise ValueError("give exactly one of --url and --spawn")
        if self.variant not in VARIANTS:
            raise ValueError(f"unknown variant {self.variant!r}")
        if self.variant != "caribbean" and self.structure not in STRUCTURES:
            raise ValueError(f"unknown structure {self.structure!r}")
        if self.tables < 1 or self.bots < 1 or self.spectators < 0:
            raise ValueError("need tables >= 1, bots >= 1, spectators >= 0")
        if self.duration is None and self.hands is None:
            raise ValueError("give --duration or --hands")
        if self.think < 0 or self.churn < 0 or self.pause < 0:
            raise ValueError("think, churn and pause must not be negative")
        if self.encoding not in ("json", "msgpack"):
            raise ValueError("encoding is json or msgpack")

    @property
    def table_stakes(self) -> dict[str, Any]:
        return self.stakes if self.stakes is not None else default_stakes(self.variant,
                                                                          self.structure)


# ------------------------------------------------------------------------------ server
@dataclass
class ServerProcess:
    """A ``poker-server --port 0 --test-mode`` subprocess and its ``ws://…/ws`` URL."""

    process: asyncio.subprocess.Process
    url: str
    log_path: Path
    workdir: Path
    log_file: IO[bytes]

    async def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM, wait, and return the ``final_balances`` total it logged (None if none)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.process.wait(), timeout)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        self.log_file.close()
        totals: list[str] = []
        with contextlib.suppress(OSError):
            totals = _FINAL_TOTAL.findall(self.log_path.read_text(errors="replace"))
        shutil.rmtree(self.workdir / "data", ignore_errors=True)
        return int(totals[-1]) if totals else None

    def cpu_seconds(self) -> float | None:
        """User + system CPU seconds the server process has used so far (Linux /proc)."""
        return process_cpu_seconds(self.process.pid)


def process_cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` from ``/proc/<pid>/stat`` (None if gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _server_command(extra: tuple[str, ...], profile: Path | None) -> list[str]:
    base = ["--port", "0", "--test-mode", *extra]
    if profile is not None:  # cProfile writes its file when the server exits (SIGTERM)
        return [sys.executable, "-m", "cProfile", "-o", str(profile), "-m", "server.main",
                *base]
    script = Path(sys.executable).with_name("poker-server")
    if script.exists():
        return [str(script), *base]
    return [sys.executable, "-m", "server.main", *base]


async def start_server(*, cpu: int | None = None, extra: tuple[str, ...] = (),
                       profile: Path | None = None, data_root: Path | None = None,
                       timeout: float = 30.0) -> ServerProcess:
    """Start the server, pinned to ``cpu`` when given, and read its listening URL. Its
    data directory (the embedded ledger) is a fresh temporary one under ``data_root``
    (default: the system's temporary directory), removed when it stops."""
    workdir = Path(tempfile.mkdtemp(prefix="poker-loadtest-", dir=data_root))
    log_path = workdir / "server.log"
    log_file = log_path.open("wb")
    command = _server_command(("--data-dir", str(workdir / "data"), *SPAWN_ARGS, *extra),
                              profile)
    preexec: Callable[[], None] | None = None
    if cpu is not None:
        def preexec() -> None:
            os.sched_setaffinity(0, {cpu})
    process = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=log_file, preexec_fn=preexec)
    assert process.stdout is not None
    try:
        while True:
            line = await asyncio.wait_for(process.stdout.readline(), timeout)
            if not line:
                raise RuntimeError(f"server exited before listening; see {log_path}")
            match = _URL_LINE.search(line.decode(errors="replace"))
            if match:
                break
    except BaseException:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        await process.wait()
        log_file.close()
        raise
    http = match.group(1)
    url = "ws" + http[len("http"):] + "/ws"
    return ServerProcess(process=process, url=url, log_path=log_path, workdir=workdir,
                         log_file=log_file)


# ------------------------------------------------------------------------------ the run
@dataclass
class _Run:
    config: RunConfig
    url: str
    stats: Stats
    err: IO[str]
    tracks: list[TableTrack] = field(default_factory=list)
    bots: list[Bot] = field(default_factory=list)
    spectators: list[Spectator] = field(default_factory=list)
    admin: Bot | None = None
    server: ServerProcess | None = None
    notes: list[str] = field(default_factory=list)
    cpu: dict[str, float] = field(default_factory=dict)

    def cpu_now(self) -> tuple[float, float | None]:
        server = self.server.cpu_seconds() if self.server is not None else None
        return time.process_time(), server


async def _gather_batched(coros: list[Any], batch: int) -> None:
    for i in range(0, len(coros), batch):
        await asyncio.gather(*coros[i:i + batch])


async def _setup(run: _Run) -> None:
    cfg = run.config
    stakes = cfg.table_stakes
    admin = Bot(run.url, "loadtest-admin", TableTrack("", run.stats), seat=0, buy_in=0,
                rng=random.Random(0), think=0.0, encoding=cfg.encoding, stats=run.stats)
    await admin.open()
    await admin.hello()
    run.admin = admin
    create: dict[str, Any] = {"type": "create_table", "variant": cfg.variant,
                              "stakes": stakes, "seats": max(2, cfg.bots),
                              "settings": {"pause": cfg.pause}}
    if cfg.variant != "caribbean":
        create["structure"] = cfg.structure
    for i in range(cfg.tables):
        answer = await admin.follow({**create, "name": f"load {i}"})  # (a cluster places it)
        if answer["type"] != "ok":
            raise RuntimeError(f"create_table refused: {answer}")
        run.tracks.append(TableTrack(str(answer["table"]), run.stats))
    buy_in = cfg.buy_in_units * _unit(cfg.variant, stakes)
    master = random.Random(cfg.seed)
    for t, track in enumerate(run.tracks):
        for s in range(cfg.bots):
            run.bots.append(Bot(run.url, f"bot{t}_{s}", track, seat=s, buy_in=buy_in,
                                rng=random.Random(master.getrandbits(64)), think=cfg.think,
                                encoding=cfg.encoding, stats=run.stats))
        for _ in range(cfg.spectators):
            run.spectators.append(Spectator(run.url, track, encoding=cfg.encoding,
                                            stats=run.stats))

    async def join(bot: Bot) -> None:
        await bot.open()
        await bot.hello()

    await _gather_batched([join(b) for b in run.bots], cfg.connect_batch)

    async def watch(spectator: Spectator) -> None:
        await spectator.open()
        await spectator.watch()

    await _gather_batched([watch(s) for s in run.spectators], cfg.connect_batch)
    await _gather_batched([b.sit() for b in run.bots], cfg.connect_batch)


def _progress(run: _Run, last: dict[str, float]) -> str:
    stats = run.stats
    now = stats.clock()
    elapsed = now - stats.start
    window = max(now - last["t"], 1e-9)
    actions = (len(stats.latencies) - last["n"]) / window
    recent = sorted(stats.latencies[int(last["n"]):])
    last["t"], last["n"] = now, float(len(stats.latencies))
    if recent:
        lat = (f"p50 {percentile(recent, 50) * 1000:.1f} p95 {percentile(recent, 95) * 1000:.1f}"
               f" p99 {percentile(recent, 99) * 1000:.1f} ms")
    else:
        lat = "p50 - p95 - p99 - ms"
    errors = sum(stats.errors.values())
    return (f"[{elapsed:6.1f}s] hands {stats.hands} ({stats.hands / max(elapsed, 1e-9):.1f}/s) "
            f"actions/s {actions:.0f} {lat} errors {errors} disc {stats.disconnects}")


async def _play(run: _Run) -> None:
    cfg = run.config
    stats = run.stats
    stats.begin()
    client0, server0 = run.cpu_now()
    churn_rng = random.Random(cfg.seed ^ 0x5EED)
    churning: set[asyncio.Task[None]] = set()
    next_churn = stats.start + (1.0 / cfg.churn if cfg.churn > 0 else float("inf"))
    last = {"t": stats.start, "n": 0.0}
    next_progress = stats.start + 1.0
    tty = run.err.isatty()
    while True:
        now = stats.clock()
        if cfg.duration is not None and now - stats.start >= cfg.duration:
            break
        if cfg.hands is not None and stats.hands >= cfg.hands:
            break
        while now >= next_churn:
            bot = churn_rng.choice(run.bots)
            task = asyncio.get_running_loop().create_task(bot.churn())
            churning.add(task)
            task.add_done_callback(churning.discard)
            next_churn += 1.0 / cfg.churn
        if cfg.progress and now >= next_progress:
            line = _progress(run, last)
            run.err.write(("\r" + line) if tty else (line + "\n"))
            run.err.flush()
            next_progress += 1.0
        await asyncio.sleep(0.05)
    stats.stop()
    client1, server1 = run.cpu_now()
    wall = stats.elapsed()
    run.cpu["client_utilization"] = round((client1 - client0) / wall, 3)
    if server0 is not None and server1 is not None:
        run.cpu["server_utilization"] = round((server1 - server0) / wall, 3)
    if cfg.progress:
        run.err.write(("\r" + _progress(run, last) + "\n") if tty else "")
        run.err.flush()
    if churning:
        done, pending = await asyncio.wait(churning, timeout=REQUEST_TIMEOUT)
        for task in done:
            if task.exception() is not None:
                run.notes.append(f"churn failed: {task.exception()!r}")
                stats.errors["churn_failed"] += 1
        for task in pending:
            task.cancel()
            stats.errors["churn_timeout"] += 1


async def _finish(run: _Run, server: ServerProcess | None) -> dict[str, Any]:
    """Bots leave, spectators close, balances are read back (see the module docstring)."""
    cfg = run.config
    results = await asyncio.gather(*(b.leave(REQUEST_TIMEOUT * 2) for b in run.bots))
    stuck = results.count(False)
    if stuck:
        run.notes.append(f"{stuck} bots saw no `left` event within the timeout")
        run.stats.errors["leave_timeout"] += stuck
    await asyncio.gather(*(s.close() for s in run.spectators), *(b.close() for b in run.bots))
    people = [b for b in run.bots if b.token is not None]
    if run.admin is not None:
        await run.admin.close()
        people.append(run.admin)
    start = sum(p.start_balance or 0 for p in people)
    finals: list[int] = []
    for i in range(0, len(people), cfg.connect_batch):
        finals.extend(await asyncio.gather(*(
            fetch_balance(run.url, p.token or "", encoding=cfg.encoding, stats=run.stats)
            for p in people[i:i + cfg.connect_batch])))
    end = sum(finals)
    chips: dict[str, Any] = {"start": start, "end": end, "accounts": len(people),
                             "rebuys": sum(b.rebuys for b in run.bots),
                             "method": "sum of welcome balances before sitting and after "
                                       "every bot left (fresh hello with each token)"}
    balanced = start == end and stuck == 0
    if server is not None:
        total = await server.stop()
        chips["server_total"] = total
        balanced = balanced and total == start
        if total is None:
            run.notes.append("the server logged no final_balances line")
    chips["balanced"] = balanced
    return chips


def _report(run: _Run, chips: dict[str, Any]) -> Report:
    stats, cfg = run.stats, run.config
    seconds = [stats.seconds[t] for t in sorted(stats.seconds)]
    for sec in seconds:
        samples = sorted(stats.second_latencies.get(sec.t, ()))
        sec.p99_ms = percentile(samples, 99) * 1000 if samples else None
    lat_ms = [x * 1000 for x in stats.latencies]
    hist = None
    if lat_ms:
        low = max(min(lat_ms), 0.01)
        high = max(max(lat_ms), low * 1.01)
        hist = histogram(lat_ms, low=low, high=high, bins=40, log_scale=True)
    settings = asdict(cfg)
    settings["stakes"] = cfg.table_stakes
    settings["profile"] = str(cfg.profile) if cfg.profile else None
    settings["data_root"] = str(cfg.data_root) if cfg.data_root else None
    settings["url"] = run.url
    return Report(
        settings=settings,
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        duration_s=stats.elapsed(), tables=cfg.tables, bots=len(run.bots),
        spectators=len(run.spectators), hands=stats.hands, actions=stats.actions,
        frames_in=stats.frames_in, frames_out=stats.frames_out,
        disconnects=stats.disconnects, reconnects=stats.reconnects,
        errors=dict(stats.errors), latency=summarize(stats.latencies),
        spectator_lag=summarize(stats.lags), chips=chips, seconds=seconds,
        latency_histogram=hist, notes=run.notes, cpu=run.cpu)


def _pin_self(cfg: RunConfig) -> None:
    if cfg.client_cpu is not None:
        os.sched_setaffinity(0, {cfg.client_cpu})
    elif cfg.server_cpu is not None:
        others = os.sched_getaffinity(0) - {cfg.server_cpu}
        if others:
            os.sched_setaffinity(0, others)


async def run_load(config: RunConfig, *, err: IO[str] | None = None) -> Report:
    """Run one load test as ``config`` says and return its report (see the module doc)."""
    server: ServerProcess | None = None
    if config.spawn:
        server = await start_server(cpu=config.server_cpu, extra=config.server_args,
                                    profile=config.profile, data_root=config.data_root)
    _pin_self(config)
    url = server.url if server is not None else config.url
    assert url is not None
    run = _Run(config=config, url=url, stats=Stats(), err=err if err is not None else sys.stderr,
               server=server)
    try:
        await _setup(run)
        await _play(run)
        chips = await _finish(run, server)
        server = None
    finally:
        if server is not None:
            await server.stop()
    return _report(run, chips)
