"""One tournament run of the load tester: (optionally) start a server, connect the entrants,
create a tournament, register them all, let it play to the end, check the results, report.

Rule of this module: like the rest of ``server.loadtest`` it talks to the server only over
the wire (a spawned server is a subprocess), so what it measures is what a client sees.

The run, step by step:

1. A :class:`~server.loadtest.tourney.TournamentHost` and ``entrants`` bots connect and say
   ``hello`` as guests (in batches of ``connect_batch``).
2. The host creates the tournament: a sit-and-go of ``capacity`` = entrants (it starts at
   the last registration, TOUR-03), or a scheduled one (``starts_at`` ``lead`` seconds ahead,
   ``min_field`` = ``capacity`` = entrants; by default long enough to register them all,
   :meth:`TournamentConfig.default_lead`), and follows it. The measured window opens.
3. Every bot registers; each is seated by the director, plays, is moved, and gets its
   ``tournament_result``. The run waits for all of them (at most ``timeout`` seconds).
4. The window closes; the results are checked as an outside client can: each bot got
   exactly one ``tournament_result``; the places are 1..entrants (tied players share the
   best of their places, TOUR-11); the prizes sum to the pool (TOUR-12); and, read back
   through the protocol (a fresh ``hello`` with each token), the balances of every
   bot and the host add up to what they started with less the fees (the buy-ins went to
   the pool and came back as prizes).

The server makes every entrant a follower of the tournament (a whole ``tournament`` message
to each at every change of it); ``unfollow`` has each bot send ``unfollow_tournament`` right
after registering, as players whose tournament page is closed.

Wall time per level: from the host's view of the ``tournament`` messages (the first one
showing a level, or a break, begins it; the tournament's end closes the last one; the first
level begins at the first ``tournament_seat`` a bot received, if that came first); the
hands and actions of a level are those counted between those moments.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import IO, Any

from protocol import STRUCTURES

from .bots import fetch_balance
from .report import LatencySummary, percentile, summarize
from .runner import ServerProcess, start_server
from .tourney import LevelMark, TournamentBot, TournamentHost, Tracks
from .tracking import Stats

__all__ = ["GAMES", "TournamentConfig", "TournamentReport", "check_places",
           "run_tournament", "tournament_summary"]

#: The games a tournament deals (docs/protocol.md: not Caribbean Stud).
GAMES = ("holdem", "manila", "manila3", "draw", "stud5", "stud7")
PRESETS = ("regular", "turbo", "hyper")

Msg = dict[str, Any]


@dataclass(frozen=True, kw_only=True)
class TournamentConfig:
    """Everything a tournament run needs (``poker-loadtest --tournament N`` options)."""

    url: str | None = None
    urls: tuple[str, ...] = ()  # a cluster: the bots' processes (round robin), the host's home
    spawn: bool = False
    server_cpu: int | None = None
    client_cpu: int | None = None
    server_args: tuple[str, ...] = ()
    data_root: Path | None = None
    entrants: int = 9
    kind: str = "auto"  # sng when the field fits a sit-and-go's ten tables, else scheduled
    lead: float | None = None  # scheduled: seconds to the start (None: :meth:`default_lead`)
    variant: str = "holdem"
    structure: str = "no_limit"
    seats: int = 9
    preset: str = "hyper"
    level_minutes: float | None = None  # levels of this length instead of the preset's
    starting_stack: int | None = None
    buy_in: int = 100
    fee: int = 0
    pause: float = 0.0
    think: float = 0.0
    shove: float = 0.25
    unfollow: bool = False  # entrants unfollow the tournament after registering
    seed: int = 1
    encoding: str = "json"
    timeout: float = 900.0
    connect_batch: int = 64
    progress: bool = True

    def __post_init__(self) -> None:
        if (self.url is None) == (not self.spawn):
            raise ValueError("give exactly one of --url and --spawn")
        if self.variant not in GAMES:
            raise ValueError(f"a tournament deals one of {GAMES}, not {self.variant!r}")
        if self.structure not in STRUCTURES:
            raise ValueError(f"unknown structure {self.structure!r}")
        if self.kind not in ("auto", "sng", "scheduled"):
            raise ValueError("kind is auto, sng or scheduled")
        if self.preset not in PRESETS:
            raise ValueError(f"preset is one of {PRESETS}")
        if not 2 <= self.entrants <= 10000 or not 2 <= self.seats <= 10:
            raise ValueError("need 2..10000 entrants and 2..10 seats")
        if min(self.think, self.pause, self.lead or 0, self.buy_in, self.fee) < 0:
            raise ValueError("think, pause, lead, buy-in and fee must not be negative")
        if not 0.0 <= self.shove <= 1.0:
            raise ValueError("shove is a probability (0..1)")
        if self.level_minutes is not None and not 0 < self.level_minutes <= 60:
            raise ValueError("level minutes: (0, 60]")

    @property
    def tournament_kind(self) -> str:
        """``kind``, with ``auto`` read as a sit-and-go when the field fits its ten tables."""
        if self.kind != "auto":
            return self.kind
        return "sng" if self.entrants <= 10 * self.seats else "scheduled"

    def default_lead(self) -> float:
        """Seconds to register every entrant before a scheduled start (74 for 1000): each
        registration is saved by the server (TOUR-15, an fsync in its data directory), and
        on the shared 2-core machine (December 2026) 1000 took from 1.1 s (/dev/shm) to 43 s
        (ext4 under other engineers' load); this allows more than the worst seen."""
        return 5.0 + self.entrants / 40 + (self.entrants / 150) ** 2

    def create_fields(self, now: float) -> Msg:
        """The ``create_tournament`` fields (``now``: Unix seconds, for ``starts_at``)."""
        settings: Msg = {"seats": self.seats}
        if self.level_minutes is None:
            settings["preset"] = self.preset
        if self.starting_stack is not None:
            settings["starting_stack"] = self.starting_stack
        fields: Msg = {"name": f"load {self.entrants}", "game": self.variant,
                       "structure": self.structure, "kind": self.tournament_kind,
                       "buy_in": self.buy_in, "fee": self.fee, "capacity": self.entrants,
                       "settings": settings}
        if self.level_minutes is not None:  # blinds from 1/100 of the stack, x1.5 a level
            unit = (self.starting_stack or 10_000) // 100
            fields["levels"] = [{"blinds": [max(1, int(unit * 1.5 ** i) // 2),
                                            max(2, int(unit * 1.5 ** i))],
                                 "minutes": self.level_minutes} for i in range(20)]
        if self.tournament_kind == "scheduled":
            lead = self.lead if self.lead is not None else self.default_lead()
            fields.update(starts_at=int(now + lead) + 1, min_field=self.entrants)
        return fields


@dataclass
class TournamentReport:
    """What a tournament run measured and found (times in seconds, latency in ms)."""

    settings: dict[str, Any]
    started_at: str
    tournament: str | None
    entrants: int
    finished: bool
    wall_s: float  # from the first level's start to the tournament's end
    registration_s: float  # from the first registration to the start
    register_s: float  # from the first registration to the last one's answer
    levels: list[dict[str, Any]]
    hands: int
    actions: int
    latency: LatencySummary
    errors: dict[str, int]
    disconnects: int
    reconnects: int
    results: list[dict[str, Any]]  # per bot: name, place, prize, results (messages)
    pool: int | None
    problems: list[str]  # what the checks of the module docstring found (none: all well)
    chips: dict[str, Any]
    cpu: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.finished and not self.problems and not self.errors
                and bool(self.chips.get("balanced")))

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["ok"] = self.ok
        return out


def check_places(results: list[dict[str, Any]], pool: int | None,
                 entrants: int) -> list[str]:
    """The checks of step 4 on the bots' results; returns what is wrong (none: all well).

    Places: sorted, each tie group of k players at place p covers p..p+k-1 (TOUR-11), so
    together they cover 1..entrants once. Prizes: every one known, summing to ``pool``."""
    problems: list[str] = []
    for r in results:
        if r["results"] != 1:
            problems.append(f"{r['name']} got {r['results']} tournament_result messages")
    places = sorted(r["place"] for r in results if isinstance(r["place"], int))
    if len(places) != entrants:
        problems.append(f"{len(places)} places for {entrants} entrants")
    counts = Counter(places)
    expected = 1
    for place in sorted(counts):
        if place != expected:
            problems.append(f"place {place} where {expected} was next")
            break
        expected = place + counts[place]
    prizes = [r["prize"] for r in results]
    if any(not isinstance(p, int) for p in prizes):
        problems.append("a result without its prize")
    elif pool is not None and sum(prizes) != pool:
        problems.append(f"prizes sum to {sum(prizes)}, the pool is {pool}")
    return problems


@dataclass
class _Run:
    config: TournamentConfig
    url: str
    stats: Stats
    err: IO[str]
    host: TournamentHost
    bots: list[TournamentBot] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    registered_at: float = 0.0
    register_s: float = 0.0


async def _batched(coros: list[Any], batch: int) -> list[Any]:
    out: list[Any] = []
    for i in range(0, len(coros), batch):
        out.extend(await asyncio.gather(*coros[i:i + batch]))
    return out


async def _setup(run: _Run) -> None:
    cfg = run.config
    tracks = Tracks(run.stats)
    master = random.Random(cfg.seed)
    homes = cfg.urls or (run.url,)  # (in a cluster, `moved` takes them to the tournament)
    run.bots = [TournamentBot(homes[i % len(homes)], f"tbot{i}", tracks,
                              rng=random.Random(master.getrandbits(64)), think=cfg.think,
                              encoding=cfg.encoding, stats=run.stats, shove=cfg.shove)
                for i in range(cfg.entrants)]
    await run.host.open()
    await run.host.hello()
    run.host.home = homes[0]  # (its process lost: it comes back through another)

    async def join(bot: TournamentBot) -> None:
        await bot.open()
        await bot.hello()

    await _batched([join(b) for b in run.bots], cfg.connect_batch)
    tid = await run.host.create(cfg.create_fields(time.time()))
    await run.host.watch()
    run.stats.begin()
    run.registered_at = run.stats.clock()
    answers = await _batched([b.register(tid, unfollow=cfg.unfollow) for b in run.bots],
                             cfg.connect_batch)
    run.register_s = run.stats.clock() - run.registered_at
    refused = [a for a in answers if a["type"] != "ok"]
    if refused:
        raise RuntimeError(f"{len(refused)} registrations refused, e.g. {refused[0]}")


def _progress(run: _Run) -> str:
    stats = run.stats
    state = run.host.state or {}
    level = (state.get("level") or {}).get("number", 0)
    done = sum(1 for b in run.bots if b.done.is_set())
    recent = sorted(stats.latencies[-2000:])
    p99 = f"{percentile(recent, 99) * 1000:.1f}" if recent else "-"
    return (f"[{stats.clock() - stats.start:6.1f}s] level {level} players left "
            f"{state.get('players_left', '-')} results {done}/{len(run.bots)} hands "
            f"{stats.hands} actions {stats.actions} p99 {p99} ms errors "
            f"{sum(stats.errors.values())}")


async def _play(run: _Run) -> bool:
    """Wait for every bot's result (progress once a second); False on the timeout."""
    cfg, stats = run.config, run.stats
    everyone = asyncio.gather(*(b.done.wait() for b in run.bots))
    deadline = stats.clock() + cfg.timeout
    tty = run.err.isatty()
    finished = False
    while stats.clock() < deadline:
        try:
            await asyncio.wait_for(asyncio.shield(everyone), 1.0)
            finished = True
            break
        except TimeoutError:
            if cfg.progress:
                line = _progress(run)
                run.err.write(("\r" + line) if tty else (line + "\n"))
                run.err.flush()
    if not finished:
        everyone.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await everyone
        run.notes.append(f"not every bot had its result after {cfg.timeout} s")
    else:  # the host's last `tournament` message (state finished) is on its way
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(run.host.ended.wait(), 10.0)
    stats.stop()
    if cfg.progress:
        run.err.write(("\r" + _progress(run) + "\n") if tty else (_progress(run) + "\n"))
        run.err.flush()
    return finished


def _levels(run: _Run, end: float) -> list[dict[str, Any]]:
    marks = list(run.host.levels)
    seated = [b.first_seat_at for b in run.bots if b.first_seat_at is not None]
    if marks and seated and not marks[0].on_break:  # the start: the first seat pushed, no
        first = marks[0]  # hand before it (the host's level message may come after some)
        marks[0] = LevelMark(first.level, False, min(first.t, min(seated)), 0, 0)
    out: list[dict[str, Any]] = []
    for i, mark in enumerate(marks):
        nxt = marks[i + 1] if i + 1 < len(marks) else None
        until = nxt.t if nxt is not None else end
        hands = (nxt.hands if nxt is not None else run.stats.hands) - mark.hands
        actions = (nxt.actions if nxt is not None else run.stats.actions) - mark.actions
        out.append({"level": mark.level, "on_break": mark.on_break,
                    "seconds": round(until - mark.t, 3), "hands": hands, "actions": actions})
    return out


async def _balances(run: _Run, server: ServerProcess | None) -> dict[str, Any]:
    cfg = run.config
    people: list[Any] = [b for b in run.bots if b.token is not None] + [run.host]
    start = sum(b.start_balance or 0 for b in run.bots) + run.host.balance
    finals = await _batched([fetch_balance(run.host.home, p.token or "", encoding=cfg.encoding,
                                           stats=run.stats) for p in people], cfg.connect_batch)
    fees = cfg.fee * len(run.bots)
    chips: dict[str, Any] = {"start": start, "end": sum(finals), "fees": fees,
                             "accounts": len(people),
                             "method": "sum of welcome balances before registering and after "
                                       "the end (fresh hello with each token), plus the fees"}
    chips["balanced"] = chips["end"] + fees == start
    if server is not None:
        chips["server_total"] = await server.stop()
    return chips


def _pin(cfg: TournamentConfig) -> None:
    """The load generator on ``client_cpu``, or off the server's CPU (as a cash run)."""
    if cfg.client_cpu is not None:
        os.sched_setaffinity(0, {cfg.client_cpu})
    elif cfg.server_cpu is not None and cfg.spawn:
        others = os.sched_getaffinity(0) - {cfg.server_cpu}
        if others:
            os.sched_setaffinity(0, others)


async def run_tournament(config: TournamentConfig, *, err: IO[str] | None = None,
                         during: Callable[[TournamentHost, Stats], Awaitable[None]] | None
                         = None) -> TournamentReport:
    """Run one tournament as ``config`` says and return its report (module docstring);
    ``during(host, stats)`` runs alongside the play (a test's fault: a process killed)."""
    server: ServerProcess | None = None
    if config.spawn:
        extra = ("--set", f"hand_pause={config.pause}", *config.server_args)
        server = await start_server(cpu=config.server_cpu, extra=extra,
                                    data_root=config.data_root)
    _pin(config)
    url = server.url if server is not None else config.url
    assert url is not None
    stats = Stats()
    run = _Run(config=config, url=url, stats=stats,
               err=err if err is not None else sys.stderr,
               host=TournamentHost(url, encoding=config.encoding, stats=stats))
    cpu: dict[str, float] = {}
    try:
        await _setup(run)
        client0 = time.process_time()
        server0 = server.cpu_seconds() if server is not None else None
        fault = None if during is None else asyncio.ensure_future(during(run.host, stats))
        finished = await _play(run)
        if fault is not None:
            await fault
        wall = stats.elapsed()
        cpu["client_utilization"] = round((time.process_time() - client0) / wall, 3)
        server1 = server.cpu_seconds() if server is not None else None
        if server0 is not None and server1 is not None:
            cpu["server_cpu_s"] = round(server1 - server0, 2)
            cpu["server_utilization"] = round((server1 - server0) / wall, 3)
        await asyncio.gather(*(b.close() for b in run.bots), run.host.close())
        chips = await _balances(run, server)
        server = None
    finally:
        if server is not None:
            await server.stop()
        for client in (*run.bots, run.host):
            if not client.stopped:
                await client.close()
    end = stats.end if stats.end is not None else stats.clock()
    levels = _levels(run, end)
    first = end - sum(lv["seconds"] for lv in levels)
    state = run.host.state or {}
    results = [{"name": b.name, "player": b.player_id,
                "place": (b.result or {}).get("place"), "prize": (b.result or {}).get("prize"),
                "results": b.results or int(b.recovered)} for b in run.bots]
    recovered = sum(1 for b in run.bots if b.recovered and not b.results)
    if recovered:
        run.notes.append(f"{recovered} results read from the tournament's state after a "
                         "drop (their `tournament_result` went out while they were away)")
    pool = state.get("pool")
    gone = sum(b.gone for b in run.bots)
    if gone:
        run.notes.append(f"{gone} watch/unwatch answers: the table was gone (broken, closed)")
    problems = check_places(results, pool if isinstance(pool, int) else None, len(run.bots))
    if state.get("state") != "finished":
        problems.append(f"the tournament's last state seen is {state.get('state')!r}")
    settings = asdict(config)
    settings["data_root"] = str(config.data_root) if config.data_root else None
    settings["url"] = url
    return TournamentReport(
        settings=settings,
        started_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        tournament=run.host.tournament, entrants=len(run.bots),
        finished=finished and state.get("state") == "finished",
        wall_s=round(end - first, 3), registration_s=round(first - run.registered_at, 3),
        register_s=round(run.register_s, 3),
        levels=levels, hands=stats.hands, actions=stats.actions,
        latency=summarize(stats.latencies), errors=dict(stats.errors),
        disconnects=stats.disconnects, reconnects=stats.reconnects, results=results,
        pool=pool if isinstance(pool, int) else None, problems=problems, chips=chips,
        cpu=cpu, notes=run.notes)


def tournament_summary(report: TournamentReport) -> str:
    """The report as a few lines of text (what ``poker-loadtest --tournament`` prints)."""
    lat = report.latency
    lines = [
        f"tournament {report.tournament}: {report.entrants} entrants, "
        f"{'finished' if report.finished else 'NOT finished'}",
        f"wall time      {report.wall_s:.1f} s (from the first registration to the start "
        f"{report.registration_s:.1f} s; every registration answered in "
        f"{report.register_s:.1f} s)",
        f"hands          {report.hands} ({report.hands / max(report.wall_s, 1e-9):.1f}/s)",
        f"actions        {report.actions}",
        f"act->acted     p50 {lat.p50_ms:.2f} ms  p99 {lat.p99_ms:.2f} ms  "
        f"max {lat.max_ms:.2f} ms  ({lat.count} samples)",
        "errors         " + (", ".join(f"{k} {v}" for k, v in sorted(report.errors.items()))
                             or "none"),
        f"chips          {'balanced' if report.chips.get('balanced') else 'NOT balanced'} "
        f"(pool {report.pool})",
        "level  wall s   hands  actions",
    ]
    for lv in report.levels:
        name = f"{lv['level']}{' break' if lv['on_break'] else ''}"
        lines.append(f"{name:<6} {lv['seconds']:7.1f} {lv['hands']:7d} {lv['actions']:8d}")
    lines.extend(f"problem: {p}" for p in report.problems)
    lines.extend(f"note: {n}" for n in report.notes)
    if report.cpu:
        lines.append("cpu            " + ", ".join(f"{k} {v}" for k, v in report.cpu.items()))
    return "\n".join(lines)
