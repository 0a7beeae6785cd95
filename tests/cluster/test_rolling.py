"""Issue 17: a rolling restart of every process under the load tester's bots, and Redis
restarted mid-run, with real `poker-server` processes and a redis-server of the test's own
(append-only, fsync always).

Three processes, three tables of three bots each (placement spreads them). Each process in
turn gets SIGTERM (it drains: every table moves, at the end of its hand, to another process,
and its bots follow the pushed `moved`), exits, and starts again with the same name and port.
Then Redis itself is SIGKILLed and restarted on its file. Through all of it: no bot error, no
hand voided anywhere, every table goes on dealing, every process's directory is whole again,
and every chip is where the ledger says (the sum zero, each bot's chips exactly its starting
balance plus what it won and lost at the tables).

Every wait is on an event with a timeout (a hand counted by a bot, a process's exit or its
"listening" line); never a sleep.
"""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from server.ledger.journal import RAKE, Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.loadtest.bots import Bot, Stats, TableTrack
from tests.ledger.test_crash import Server, start_server
from tests.redis_helpers import RedisProcess, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

NAMES = ("a", "b", "c")
TIMEOUT = 60.0
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6,
                          "settings": {"pause": 0.5}}


class CountingTrack(TableTrack):
    """A table's track that lets the test wait for its hands."""

    def __init__(self, table_id: str, stats: Stats) -> None:
        super().__init__(table_id, stats)
        self.count = 0
        self._changed = asyncio.Event()

    def hand_ended(self, seq: int, now: float) -> None:
        if seq > self.last_hand_seq:
            self.count += 1
            self._changed.set()
        super().hand_ended(seq, now)

    async def more(self, n: int) -> None:
        """Wait until ``n`` more hands ended here."""
        goal = self.count + n
        while self.count < goal:
            self._changed.clear()
            await asyncio.wait_for(self._changed.wait(), TIMEOUT)


def node_args(name: str, port: int, redis: RedisProcess) -> tuple[str, ...]:
    return ("--port", str(port), "--redis", redis.url, "--node", name,
            "--public-url", f"ws://127.0.0.1:{port}/ws", "--shutdown-deadline", "10",
            "--set", "cluster_lobby_refresh_ms=50", "--set", "node_lease=2")


async def stop_gracefully(server: Server) -> int:
    server.proc.send_signal(signal.SIGTERM)
    try:
        return await asyncio.to_thread(server.proc.wait, TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError("did not stop:\n" + "".join(server.lines[-60:])) from None


def voided(servers: list[Server]) -> list[str]:
    return [line for s in servers for line in s.lines
            if "event=hand_voided" in line or "event=hand_void" in line]


async def seat_bots(url: str, stats: Stats, tracks: list[CountingTrack]) -> list[Bot]:
    rng = random.Random(17)
    admin = Bot(url, "Boss", TableTrack("", stats), seat=0, buy_in=0, rng=rng, think=0.0,
                encoding="json", stats=stats)
    await admin.open()
    await admin.hello()
    bots = []
    for t in range(3):
        made = await admin.follow({"type": "create_table", **HOLDEM})
        assert made["type"] == "ok", made
        track = CountingTrack(str(made["table"]), stats)
        tracks.append(track)
        for seat in (0, 2, 5):
            bot = Bot(url, f"T{t}S{seat}", track, seat=seat, buy_in=400,
                      rng=random.Random(100 * t + seat), think=0.0,
                      encoding="msgpack" if seat == 2 else "json", stats=stats)
            await bot.open()
            await bot.hello()
            await bot.sit()
            bots.append(bot)
    await admin.close()
    return bots


async def chips_of(store: RedisStore, bot: Bot) -> int:
    pid = bot.player_id or ""
    bal = await store.balances()
    return bal.get(player_account(pid), 0) + sum(
        v for k, v in bal.items() if k.startswith("table:") and k.endswith(f":{pid}"))


async def test_a_rolling_restart_and_a_redis_restart_under_load(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    ports = {n: free_port() for n in NAMES}
    live = {n: start_server(tmp_path / n, *node_args(n, ports[n], redis_server))
            for n in NAMES}
    every: list[Server] = list(live.values())
    stats = Stats()
    tracks: list[CountingTrack] = []
    bots: list[Bot] = []
    store = RedisStore(redis_server.url)
    try:
        bots = await seat_bots(live["a"].ws_url, stats, tracks)
        await asyncio.gather(*(t.more(2) for t in tracks))
        for name in NAMES:  # the rolling restart: one process at a time
            assert await stop_gracefully(live[name]) == 0, "".join(live[name].lines[-30:])
            live[name] = start_server(tmp_path / f"{name}-2", *node_args(name, ports[name],
                                                                         redis_server))
            every.append(live[name])
            await asyncio.gather(*(t.more(2) for t in tracks))  # every table deals on
        moved = sum("event=table_handed_over" in line for s in every for line in s.lines)
        assert moved >= 3, "each stopping process handed its tables over"

        redis_server.kill()  # and Redis itself, mid-run: back on its append-only file
        redis_server.start()
        await asyncio.gather(*(t.more(2) for t in tracks))

        assert not stats.errors, stats.errors
        assert stats.moves >= moved  # the bots followed every table that moved
        assert voided(every) == [], voided(every)
        started = sum(b.start_balance or 0 for b in bots)
        assert started == len(bots) * (bots[0].start_balance or 0) > 0
        for bot in bots:
            await bot.close()
        bots_gone, bots = bots, []
        await asyncio.gather(*(stop_gracefully(s) for s in live.values()))  # all cashed out
        await store.open()
        ledger = Ledger(store, node="observer")
        assert await ledger.total() == 0
        held = [await chips_of(store, b) for b in bots_gone]
        assert sum(held) + await ledger.balance(RAKE) == started  # nothing created or lost
        assert set((await store.balances("table:")).values()) <= {0}  # nobody at a table
        stuck = [line for srv in every for line in srv.lines if "event=shutdown_step" in line]
        assert stuck == [], stuck  # every shutdown went through every step in time
    finally:
        for bot in bots:
            await bot.close()
        for server in every:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
        await store.close()
