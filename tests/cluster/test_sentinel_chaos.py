"""Issue 26, "Shown by tests": the room survives losing its Redis primary, five times in a run.

Real processes on loopback: a Sentinel group (a primary, two replicas, three sentinels,
``down-after-milliseconds`` 1000; tests/redis_helpers.py ``SentinelGroup``), three
``poker-server`` processes in cluster mode found through it (``--redis-sentinel ...
--redis-service ...``, settling writes with ``WAIT 1``: ``redis_wait_replicas=1``), the load
tester's bots at three hold'em tables and one Caribbean Stud table (wagering the jackpot),
homed on every process, and a spectator per table on another process than its first bot's.

The CURRENT primary (by ``ROLE``) is SIGKILLed five times; each time the test waits for the
promotion, restarts the killed server as a replica of the new primary (three data nodes
again), and waits until every table has dealt a hand after the kill and ended one that was
dealt after it. Then every bot leaves, every process is stopped (SIGTERM: tables cash out).

Asserted: no bot or spectator error (a ``moved`` followed and a reconnection after a drop are
the documented reconnects, counted apart); no process loses its lease, fails another over,
crashes a table or voids a hand; no fencing token goes backwards in a promotion; no chip
created, lost or paid twice (the ledger sums to zero, nothing is left on a table, and each
bot's balance is exactly what the server told it: its balance before it sat, less its
buy-ins, plus the jackpot credits pushed to it, plus the stack it left with; the rake, the
house and the jackpot hold the rest); the jackpot's pool equal to what the ledger booked
into it (a report the run left in the ledger's outbox is booked by its process's next
start: the processes are started once more when there is one, the count printed); every
table dealing again within down-after + 5 s of each kill (printed per kill:
kill -> first hand dealt, kill -> first hand ended that was dealt after it; then the median
and max over the kills and the hands per second of the run: tests/benchmarks/README.md,
"Sentinel (issue 26)").

Every wait is on an event (a frame received by a bot, a process's exit) or on the Redis
servers' own state (``ROLE``, ``INFO replication``: polled in a thread, bounded); never a
sleep to wait.
"""

from __future__ import annotations

import asyncio
import random
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import OUTBOX
from server.ledger.journal import JACKPOT_MINOR, JACKPOT_POOL, Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.loadtest.bots import Bot, Spectator, Stats, TableTrack
from server.redisio import RedisUnavailable
from tests.ledger.test_crash import Server, start_server
from tests.redis_helpers import SentinelGroup, free_port, resp

pytestmark = [pytest.mark.redis, pytest.mark.slow]

KILLS = 5
DOWN_AFTER = 2.0  # Sentinel's down-after-milliseconds, in seconds. (With 1 s, on this
# loaded two-core machine, 1 run in 16 saw a sentinel take the just-promoted primary for down
# and promote the other replica: two primaries for ~11 s, the writes of the one demoted lost.
# Production values are 5 to 30 s; docs/operator.md "Sentinel".)
BOUND = DOWN_AFTER + 5.0  # the bound: every table deals again within this
TIMEOUT = 30.0
TROUBLE = ("event=node_lease_lost", "event=failover_started", "event=actor_crashed",
           "event=hand_voided")
"""Log lines that no process may write in the run: no process was down, no hand void."""
NAMES = ("a", "b", "c")
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6,
                          "settings": {"pause": 0.2}}
CSP: dict[str, Any] = {"variant": "caribbean", "structure": None,
                       "stakes": {"min": 10, "max": 100}, "seats": 3,
                       "settings": {"pause": 0.2, "max_buy_in": 10000}}


class HandTrack(TableTrack):
    """A table's track with the receipt time of each hand's start and end (the first bot
    or spectator to see it), and an event to wait on."""

    def __init__(self, table_id: str, stats: Stats) -> None:
        super().__init__(table_id, stats)
        self.started: dict[int, float] = {}
        self.ended: dict[int, float] = {}
        self.changed = asyncio.Event()

    def saw(self, kind: str, seq: int, now: float) -> None:
        times = self.started if kind == "hand_started" else self.ended
        if seq not in times:
            times[seq] = now
            self.changed.set()

    def dealt_after(self, t: float) -> float | None:
        """The receipt time of the first hand dealt after ``t``."""
        return min((s for s in self.started.values() if s > t), default=None)

    def ended_after(self, t: float) -> float | None:
        """The receipt time of the first hand ended that was dealt after ``t``."""
        first = self.dealt_after(t)
        if first is None:
            return None
        return min((e for e in self.ended.values() if e > first), default=None)

    async def playing_after(self, t: float) -> tuple[float, float]:
        """Wait until a hand dealt after ``t`` has ended; its (dealt, ended) times."""
        while True:
            dealt, ended = self.dealt_after(t), self.ended_after(t)
            if dealt is not None and ended is not None:
                return dealt, ended
            self.changed.clear()
            await asyncio.wait_for(self.changed.wait(), TIMEOUT)


class ChaosBot(Bot):
    """A load-tester bot that reports hand starts and ends to its :class:`HandTrack` and
    wagers the jackpot with every fourth Caribbean Stud ante. (Alone at its Caribbean table: the
    bot takes a turn of another seat as the end of its own, and that game's antes are all
    asked at once.)"""

    track: HandTrack

    antes = 0
    credited = 0  # credits to the balance pushed while seated (jackpot payouts)
    pushed: int | None = None  # the last balance pushed

    def _on_event(self, msg: dict[str, Any], kind: Any, now: float) -> None:
        if kind in ("hand_started", "hand_ended") and msg.get("table") == self.table:
            self.track.saw(str(kind), int(msg["seq"]), now)
        if kind == "balance":  # a buy-in or rebuy lowers it; only a jackpot credit raises
            new = int(msg["balance"])  # it while the bot sits (a cash-out comes on leaving)
            before = self.pushed if self.pushed is not None else self.start_balance or 0
            if new > before and self.seat is not None and not self.leaving:
                self.credited += new - before
            self.pushed = new
        super()._on_event(msg, kind, now)

    async def fire(self, msg: dict[str, Any]) -> int:
        if msg.get("action") == "ante":
            self.antes += 1
            offered = (self._act_options or {}).get("jackpot")
            if self.antes % 4 == 1 and isinstance(offered, dict):  # when affordable
                msg = {**msg, "jackpot": True}
        return await super().fire(msg)


class Watcher(Spectator):
    track: HandTrack

    def _on_event(self, msg: dict[str, Any], kind: Any, now: float) -> None:
        if kind in ("hand_started", "hand_ended") and msg.get("table") == self.track.table_id:
            self.track.saw(str(kind), int(msg["seq"]), now)
        super()._on_event(msg, kind, now)


class RoleWatch:
    """Who is master, polled by ``ROLE`` every 50 ms in a thread: the transitions, with their
    time (``time.perf_counter``, the bots' clock), for the report of a failure."""

    def __init__(self, group: SentinelGroup) -> None:
        self.group = group
        self.changes: list[tuple[float, dict[int, str]]] = []
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        last: dict[int, str] = {}
        while not self.done.wait(0.05):  # polling the servers' ROLE: no event to wait on
            now: dict[int, str] = {}
            for server in list(self.group.servers):
                try:
                    role = resp(server.port, "ROLE", timeout=0.5)
                    now[server.port] = (f"{role[0]}->{role[2]}" if isinstance(role, list)
                                        and role[0] == "slave" else str(role[0]))  # type: ignore[index]
                except (OSError, RuntimeError):
                    now[server.port] = "down"
            if now != last:
                self.changes.append((time.perf_counter(), now))
                last = now

    def stop(self) -> None:
        self.done.set()
        self.thread.join(5)


@pytest.fixture
def group(tmp_path: Path) -> Iterator[SentinelGroup]:
    # failover-timeout long: a sentinel that has not heard of the last promotion within
    # twice this time starts a failover of its own (seen with 3 s: a second primary for
    # ~11 s, and the writes made on the first one lost when it was demoted)
    g = SentinelGroup(tmp_path / "sentinel", down_after_ms=int(DOWN_AFTER * 1000),
                      failover_timeout_ms=60_000)
    try:
        g.start()
        yield g
    finally:
        g.stop()


def node_args(name: str, port: int, group: SentinelGroup) -> tuple[str, ...]:
    return ("--port", str(port), "--redis-sentinel", group.sentinel_arg,
            "--redis-service", group.service, "--node", name,
            "--public-url", f"ws://127.0.0.1:{port}/ws", "--shutdown-deadline", "10",
            "--set", "cluster_lobby_refresh_ms=50", "--set", "redis_wait_replicas=1",
            "--set", "guests_per_ip_per_minute=100", "--set", "starting_balance=100000")


def fencing_tokens(group: SentinelGroup) -> dict[str, int]:
    """Each process's fencing token counter on the current primary (blocking)."""
    port = group.master_port()
    return {n: int(str(resp(port, "GET", f"ledger:{{room}}:token:{n}") or 0)) for n in NAMES}


def promoted(group: SentinelGroup, old: int) -> int:
    """The new primary's port once one running server other than ``old`` is master and
    every sentinel tells it (blocking: run in a thread). Before that the killed server must
    not come back: a sentinel that has not heard of the promotion yet sees its old master
    back as a replica, takes it for down and promotes the other replica in a new epoch, two
    primaries for ~10 s, and the writes of the one demoted then are lost (seen once: a
    hand's result refused, "a table account would go negative")."""
    deadline = time.monotonic() + TIMEOUT
    while True:
        try:
            port = group.master_port()
            told = [resp(p, "SENTINEL", "get-master-addr-by-name", group.service)
                    for p in group.sentinel_ports]
            if port != old and all(isinstance(t, list) and int(t[1]) == port for t in told):
                return port
        except (OSError, RuntimeError):
            pass  # no master yet, or a server mid-switch
        if time.monotonic() > deadline:
            raise AssertionError("no replica was promoted")
        time.sleep(0.02)  # polling the Redis servers' ROLE: there is no event to wait on


def replicated(group: SentinelGroup, primary: int, count: int) -> None:
    """Wait until ``primary`` has ``count`` online replicas (blocking: run in a thread)."""
    try:
        SentinelGroup._poll(lambda: group._online_replicas(primary) == count, TIMEOUT,
                            f"the primary {primary} did not get {count} replicas")
    except RuntimeError:
        for server in group.servers:
            info = str(resp(server.port, "INFO", "replication")).replace("\r\n", " ")
            print(f"{server.port}: {info}")
        raise


async def seat_everyone(live: dict[str, Server], stats: Stats, tracks: list[HandTrack],
                        watchers: list[Watcher]) -> list[ChaosBot]:
    urls = [live[n].ws_url for n in NAMES]
    admin = Bot(urls[0], "Boss", TableTrack("", stats), seat=0, buy_in=0,
                rng=random.Random(26), think=0.0, encoding="json", stats=stats)
    await admin.open()
    await admin.hello()
    bots: list[ChaosBot] = []
    layout = [(HOLDEM, (0, 2, 4)), (HOLDEM, (1, 3, 5)), (HOLDEM, (0, 3)), (CSP, (0,))]
    for t, (spec, seats) in enumerate(layout):
        made = await admin.follow({"type": "create_table", **spec})
        assert made["type"] == "ok", made
        track = HandTrack(str(made["table"]), stats)
        tracks.append(track)
        for i, seat in enumerate(seats):
            bot = ChaosBot(urls[(t + i) % 3], f"T{t}S{seat}", track, seat=seat,
                           buy_in=10000 if spec is CSP else 300,
                           rng=random.Random(100 * t + seat), think=0.0,
                           encoding="msgpack" if i % 2 else "json", stats=stats)
            await bot.open()
            await bot.hello()
            await bot.sit()
            bots.append(bot)
        watcher = Watcher(urls[(t + 1) % 3], track, encoding="json", stats=stats)
        await watcher.open()
        await watcher.watch()
        watchers.append(watcher)
    await admin.close()
    return bots


async def booked_all(store: RedisStore) -> None:
    """Until the ledger's outbox holds no jackpot report (polling Redis: no event to wait on
    from outside the processes)."""
    while await store.outbox_list(OUTBOX):
        await asyncio.sleep(0.05)


async def stop(server: Server) -> int:
    server.proc.send_signal(signal.SIGTERM)
    try:
        return await asyncio.to_thread(server.proc.wait, TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError("did not stop:\n" + "".join(server.lines[-60:])) from None


async def test_the_room_survives_five_kills_of_its_redis_primary(
        tmp_path: Path, group: SentinelGroup) -> None:
    live = {n: start_server(tmp_path / n, *node_args(n, free_port(), group)) for n in NAMES}
    stats = Stats()
    tracks: list[HandTrack] = []
    watchers: list[Watcher] = []
    bots: list[ChaosBot] = []
    store = RedisStore(group.url)
    coord: RedisCoordinator | None = None
    roles = RoleWatch(group)
    try:
        bots = await seat_everyone(live, stats, tracks, watchers)
        began = stats.clock()
        await asyncio.gather(*(t.playing_after(began) for t in tracks))

        dealt_s: list[float] = []  # per kill: the slowest table's kill -> first hand dealt
        ended_s: list[float] = []  # ... -> first hand ended that was dealt after the kill
        promote_s: list[float] = []
        tokens = await asyncio.to_thread(fencing_tokens, group)
        for k in range(KILLS):
            old = await asyncio.to_thread(group.master_port)
            victim = group.server_on(old)
            killed = stats.clock()
            print(f"kill {k + 1} at {killed:.2f}")
            victim.kill()
            new = await asyncio.to_thread(promoted, group, old)
            promote_s.append(stats.clock() - killed)
            victim.extra = ("--replicaof", "127.0.0.1", str(new))  # back, as a replica
            await asyncio.to_thread(victim.start)
            times = await asyncio.gather(*(t.playing_after(killed) for t in tracks))
            dealt_s.append(max(d for d, _ in times) - killed)
            ended_s.append(max(e for _, e in times) - killed)
            print(f"kill {k + 1}: primary {old} -> {new}: promoted {promote_s[-1]:.2f} s, "
                  f"every table dealt {dealt_s[-1]:.2f} s, ended a hand {ended_s[-1]:.2f} s "
                  f"after the kill (per table dealt: "
                  f"{', '.join(f'{d - killed:.2f}' for d, _ in times)})")
            await asyncio.to_thread(replicated, group, new, 2)  # three data nodes again
            now_tokens = await asyncio.to_thread(fencing_tokens, group)
            assert all(now_tokens[n] >= tokens[n] for n in NAMES), (tokens, now_tokens)
            tokens = now_tokens  # no fencing token went backwards in the promotion
        hands = sum(len(t.ended) for t in tracks)
        run = stats.clock() - began
        print(f"kill -> every table dealt: median {statistics.median(dealt_s):.2f} s, max "
              f"{max(dealt_s):.2f} s; -> a hand ended: median "
              f"{statistics.median(ended_s):.2f} s, max {max(ended_s):.2f} s; promotion "
              f"median {statistics.median(promote_s):.2f} s; {hands} hands in {run:.1f} s "
              f"= {hands / run:.1f} hands/s; moves={stats.moves} "
              f"disconnects={stats.disconnects} reconnects={stats.reconnects}")

        trouble = [line for s in live.values() for line in s.lines
                   if any(w in line for w in TROUBLE)]
        assert trouble == [], trouble  # every process stayed live and every hand stood
        left = await asyncio.gather(*(b.leave(TIMEOUT) for b in bots))
        assert all(left), [b.name for b, ok in zip(bots, left, strict=True) if not ok]
        assert not stats.errors, stats.errors  # only documented reconnects happened
        assert max(dealt_s) <= BOUND and max(ended_s) <= BOUND, (dealt_s, ended_s)
        for client in (*bots, *watchers):
            await client.close()
        gone, bots, watchers = bots, [], []
        codes = await asyncio.gather(*(stop(s) for s in live.values()))
        assert codes == [0, 0, 0], {n: "".join(s.lines[-30:]) for n, s in live.items()}

        await store.open()
        ledger = Ledger(store, node="observer")
        balances = await store.balances()
        assert sum(balances.values()) == 0
        assert {v for k, v in balances.items() if k.startswith("table:")} <= {0}
        told = {b.name: b.balance + b.stack + b.credited for b in gone}
        held = {b.name: balances.get(player_account(b.player_id or ""), 0) for b in gone}
        if held != told:  # what the journal says of the bots that differ, for the report
            for b in gone:
                if held[b.name] != told[b.name]:
                    mine = player_account(b.player_id or "")
                    moves = [(e.src, e.dst, e.amount, e.reason)
                             for e in await store.journal(0, 1_000_000)
                             if mine in (e.src, e.dst)]
                    print(f"{b.name}: rebuys={b.rebuys} credited={b.credited} "
                          f"balance={b.balance} stack={b.stack} journal={moves[-40:]}")
        assert held == told  # each bot holds exactly what the tables told it
        left_over = await store.outbox_list(OUTBOX)
        if left_over:  # a report kept in the ledger's outbox, not booked by the run that
            # made it (a failover in its way): the process's next start books it (the
            # jackpot service's replay); start them again, once every one is booked, stop
            print(f"jackpot reports left in the outbox at the end: {len(left_over)}")
            live.update({n: start_server(tmp_path / f"{n}-again",
                                         *node_args(n, free_port(), group)) for n in NAMES})
            await asyncio.wait_for(booked_all(store), TIMEOUT)
            codes = await asyncio.gather(*(stop(s) for s in live.values()))
            assert codes == [0, 0, 0], {n: "".join(s.lines[-30:]) for n, s in live.items()}
        coord = await RedisCoordinator.connect(group.url)
        pool = await coord.state()
        booked = await ledger.balance(JACKPOT_POOL) + await ledger.balance(JACKPOT_MINOR)
        assert pool.contributed > 0  # the jackpot was wagered on through the kills
        assert booked == pool.pool, (booked, pool)
    except BaseException:
        for name, server in live.items():  # what each process logged, but INFO
            print(f"--- {name}\n" + "".join(
                line for line in server.lines if "level=INFO" not in line)[-20000:])
        now = stats.clock()
        for t, state in roles.changes:
            print(f"roles at {t - now:.2f} s: {state}")
        print(group.sentinel_logs())
        print(f"errors={dict(stats.errors)} moves={stats.moves} hands (table, started, "
              "ended, seconds since the last start and end): "
              f"{[(t.table_id, len(t.started), len(t.ended), now - max(t.started.values(), default=0), now - max(t.ended.values(), default=0)) for t in tracks]}")  # noqa: E501
        raise
    finally:
        roles.stop()
        for client in (*bots, *watchers):
            await client.close()
        for server in live.values():
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
        if coord is not None:
            await coord.close()
        await store.close()


async def test_a_lease_is_taken_with_wait_and_its_token_survives_a_promotion(
        group: SentinelGroup) -> None:
    """The acquisition of a node's lease (the INCR of its fencing token) is a settling write:
    with ``WAIT 1`` acknowledged, the promoted replica has the token, so the next acquisition
    after a SIGKILL of the primary gets a greater one. A renewal keeps the token, no WAIT."""
    store = RedisStore(group.url, wait_replicas=1, wait_timeout_ms=2000)
    await store.open()
    try:
        first = await store.acquire_lease("n1", "run1", 60)
        assert (first.holder, store.settled, store.short) == ("run1", 1, 0)
        again = await store.acquire_lease("n1", "run1", 60, token=first.token)
        assert again == first and store.settled == 1  # a renewal: plain
        await store.release_lease("n1", "run1")
        old = await asyncio.to_thread(group.master_port)
        group.server_on(old).kill()
        await asyncio.to_thread(promoted, group, old)
        # through the new primary: the adapter finds it on the first call after the switch,
        # which may itself be refused (its connection was to the dead primary: the documented
        # RedisUnavailable of a failover), as the lease keeper's renewal is, and tried again
        # (the adapter paces its own discovery of the new primary: no sleep here)
        for attempt in range(5):
            try:
                second = await store.acquire_lease("n1", "run2", 60)
                break
            except RedisUnavailable:
                assert attempt < 4, "no acquisition through the promoted primary"
        assert second.holder == "run2" and second.token > first.token
    finally:
        await store.close()
