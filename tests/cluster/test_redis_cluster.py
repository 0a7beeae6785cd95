"""Issue 26: the room on a three-primary Redis Cluster.

First the adapter (``redis-cluster://``, :class:`server.redis_resp.ClusterRouter`): commands
and scripts reach the primary of their slot, a stale slot map is corrected by ``MOVED``, a
slot being migrated is followed by ``ASK``, keys
of several slots are refused before anything is sent, and a ``PUBLISH`` counts every
subscriber (all subscriptions are on the one node the publishes go to).

Then the issue's test: three real ``poker-server`` processes with ``--redis
redis-cluster://...``, three tables of three load-tester bots; they play hands, process ``a``
is SIGTERMed (it drains: its tables move to another process at the end of their hands), then
process ``b`` is SIGKILLed (its tables fail over to ``c`` once its lease runs out). Every
table deals on; the ledger sums to zero and every chip is where it was (each bot's chips plus
the rake equal what they started with: nothing created, lost or paid twice).

Every wait is on an event with a timeout (a hand counted by a bot, a process's exit, a
subscription's ``ready``); never a sleep.
"""

from __future__ import annotations

import asyncio
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from server.ledger.journal import RAKE, Ledger
from server.ledger.redis_store import RedisStore
from server.loadtest import follow
from server.loadtest.bots import Bot, Stats
from server.redis_resp import key_slot
from server.redisio import Redis, RedisScriptError
from tests.cluster.test_rolling import CountingTrack, chips_of, seat_bots, voided
from tests.ledger.test_crash import Server, start_server
from tests.redis_helpers import RedisCluster, free_port, resp

pytestmark = [pytest.mark.redis, pytest.mark.slow]

TIMEOUT = 60.0


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[RedisCluster]:
    c = RedisCluster(tmp_path / "rc", primaries=3)
    try:
        c.start()
        yield c
    finally:
        c.stop()


async def test_the_adapter_routes_by_slot_follows_moved_and_counts_subscribers(
        cluster: RedisCluster) -> None:
    r = await Redis.connect(cluster.url)
    try:
        keys = [f"k{i}" for i in range(30)]
        for i, key in enumerate(keys):
            assert await r.call("SET", key, i) == "OK"
        held = cluster.keys_per_node()
        assert sum(held.values()) == 30 and min(held.values()) > 0  # spread over 3 primaries
        incr = r.script("return redis.call('INCRBY', KEYS[1], ARGV[1])")
        assert await incr(keys=["{room}:n"], args=[5]) == 5
        router = r._cluster
        assert router is not None
        slot = key_slot("k7")
        right = router.slots[slot]
        router.slots[slot] = next(a for a in set(router.slots) if a != right)  # a stale map
        assert await r.call("GET", "k7") == "7"  # MOVED: the map read again
        assert router.slots[slot] == right and router.redirects == 1
        # a slot half-way through a migration: a key not on its owner any more is asked for
        # on the importing node (ASK: ASKING, then the command there; the map unchanged)
        slot = key_slot("moving")
        src = next(p for p, (a, b) in cluster.owners().items() if a <= slot <= b)
        dst = next(p for p in cluster.owners() if p != src)
        resp(dst, "CLUSTER", "SETSLOT", str(slot), "IMPORTING", str(resp(src, "CLUSTER", "MYID")))
        resp(src, "CLUSTER", "SETSLOT", str(slot), "MIGRATING", str(resp(dst, "CLUSTER", "MYID")))
        assert await r.call("SET", "moving", "here") == "OK"
        assert await r.call("GET", "moving") == "here" and router.redirects == 3
        assert resp(dst, "CLUSTER", "COUNTKEYSINSLOT", str(slot)) == 1
        assert router.slots[slot] == ("127.0.0.1", src)
        with pytest.raises(RedisScriptError, match="CROSSSLOT"):
            await incr(keys=["k1", "k2"], args=[1])
        assert await r.call("MGET", "{t}a", "{t}b") == [None, None]
        ready = asyncio.Event()
        got: list[tuple[str, str]] = []

        async def listen() -> None:
            async for msg in r.subscribe("chan", ready=ready.set):
                got.append(msg)
                return

        task = asyncio.create_task(listen())
        await asyncio.wait_for(ready.wait(), 10)
        assert await r.publish("chan", "hi") == 1  # counted: the subscriber is on that node
        await asyncio.wait_for(task, 10)
        assert got == [("chan", "hi")]
        assert (await r.settle(incr, ["{room}:n"], [1], replicas=0, timeout_ms=100)) == (6, 0)
    finally:
        await r.close()


def node_args(name: str, port: int, cluster: RedisCluster) -> tuple[str, ...]:
    return ("--port", str(port), "--redis", cluster.url, "--node", name,
            "--public-url", f"ws://127.0.0.1:{port}/ws", "--shutdown-deadline", "10",
            "--set", "cluster_lobby_refresh_ms=50", "--set", "node_lease=2")


async def exit_code(server: Server) -> int:
    try:
        return await asyncio.to_thread(server.proc.wait, TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError("did not stop:\n" + "".join(server.lines[-60:])) from None


async def test_the_room_plays_moves_and_fails_over_on_a_redis_cluster(
        tmp_path: Path, cluster: RedisCluster, monkeypatch: pytest.MonkeyPatch) -> None:
    # Until the dead process's lease runs out (2 s, and longer on a loaded machine) the
    # survivors still name it the owner: a bot of its table goes there, fails twice, comes
    # home, is sent there again (a hop and two failed attempts each ~0.35 s of the load
    # tester's backoff); its bounds (3 hops, 12 attempts) are sized for live moves and drops.
    monkeypatch.setattr(follow, "MAX_MOVES", 100)
    monkeypatch.setattr(follow, "RECONNECT_ATTEMPTS", 200)
    names = ("a", "b", "c")
    live = {n: start_server(tmp_path / n, *node_args(n, free_port(), cluster)) for n in names}
    every = list(live.values())
    stats = Stats()
    tracks: list[CountingTrack] = []
    bots: list[Bot] = []
    store = RedisStore(cluster.url)
    try:
        bots = await seat_bots(live["c"].ws_url, stats, tracks)  # c: the bots' home
        await asyncio.gather(*(t.more(2) for t in tracks))

        live["a"].proc.send_signal(signal.SIGTERM)  # a drains: its tables move
        assert await exit_code(live["a"]) == 0, "".join(live["a"].lines[-30:])
        moved = sum("event=table_handed_over" in line for line in live["a"].lines)
        await asyncio.gather(*(t.more(2) for t in tracks))

        live["b"].proc.kill()  # b dies: its tables fail over to c after its lease
        live["b"].proc.wait(10)
        await asyncio.gather(*(t.more(2) for t in tracks))
        done = [re.search(r" tables=(\d+)", line) for line in live["c"].lines
                if "event=failover_done lost=b" in line]
        taken = sum(int(m.group(1)) for m in done if m is not None)
        assert moved >= 1 and taken >= 1, (moved, taken)  # a move and a failover happened

        assert not stats.errors, stats.errors
        hands = sum(t.count for t in tracks)
        started = sum(b.start_balance or 0 for b in bots)
        assert started == len(bots) * (bots[0].start_balance or 0) > 0
        for bot in bots:
            await bot.close()
        gone, bots = bots, []
        live["c"].proc.send_signal(signal.SIGTERM)  # the last one: every table cashes out
        assert await exit_code(live["c"]) == 0, "".join(live["c"].lines[-30:])

        await store.open()
        ledger = Ledger(store, node="observer")
        assert await ledger.total() == 0
        held = [await chips_of(store, b) for b in gone]
        assert sum(held) + await ledger.balance(RAKE) == started  # nothing created or lost
        assert set((await store.balances("table:")).values()) <= {0}
        spread = cluster.keys_per_node()
        assert sum(1 for n in spread.values() if n > 0) >= 2, spread  # a sharded room
        print(f"hands={hands} handed_over={moved} failed_over={taken} keys={spread} "
              f"voided={len(voided(every))}")
    except BaseException:
        print(f"errors={stats.errors} moves={stats.moves} reconnects={stats.reconnects} "
              f"hands={[(t.table_id, t.count) for t in tracks]}")
        for name, server in zip(names, every, strict=True):  # what each process logged
            print(f"--- {name}\n" + "".join(line for line in server.lines[-400:]
                                              if "event=ws_" not in line))
        raise
    finally:
        for bot in bots:
            await bot.close()
        for server in every:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
        await store.close()
