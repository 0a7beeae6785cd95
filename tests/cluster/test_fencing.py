"""Issue 26: one lease per process, and a fencing token in every money or ownership write.

First the directory's scripts themselves, on a redis-server of the test's own: a table's
claim (``PUT``), its saved state (``STATE``), a failover's takeover (``TAKE``) and a live
move's offer and accept (``OFFER``, ``ACCEPT``) carrying a token that is no longer the
node's are refused with ``STALE_TOKEN`` and change nothing.

Then the issue's test: two real `poker-server` processes on one Redis. Process ``a`` has a
hold'em table with chips in the pot and a Caribbean Stud table with a jackpot wager placed,
and is SIGSTOPped past its lease: ``b`` takes it over (its tables reopen on ``b``). The
players' next actions reach ``a`` while it is stopped; it is SIGCONTed: its late writes are
refused by token (a hand's result, a jackpot booking and anything else: the ledger's journal
has nothing of its run after the takeover), it logs the loss and stops serving those tables
(``moved`` to ``b``); chips are conserved (the ledger sums to 0, every player's chips are
those from before the voided hands) and the jackpot pool has paid nothing twice.

Every wait is on an event with a timeout (an answer, a frame, a log line); never a sleep.
"""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from server.cluster import keys as lua
from server.cluster.keys import Keys
from server.jackpot.redis_coord import RedisCoordinator
from server.ledger.journal import Ledger, player_account
from server.ledger.lease import Lease
from server.ledger.redis_store import RedisStore
from server.redisio import Redis, RedisScriptError
from tests.cluster.test_failover import CSP, HOLDEM, guest, ok
from tests.cluster.test_room_limits import Proc, start_proc, stop_proc
from tests.redis_helpers import RedisProcess

pytestmark = pytest.mark.redis

LEASE = 2.0
TIMEOUT = 20.0
SECONDS = 60.0


# --------------------------------------------------------------------------------------------
# The scripts
# --------------------------------------------------------------------------------------------


async def test_the_directorys_ownership_scripts_refuse_a_stale_token(
        redis_server: RedisProcess) -> None:
    redis = await Redis.connect(redis_server.url, poolsize=4)
    store = RedisStore(redis)
    await store.open()
    k = Keys()
    lease = Lease(store, "a", "r1")
    await lease.claim(SECONDS)
    fence = lease.fence()
    assert fence is not None
    table = k.table("t1")
    put_args = ["t1", "a", "r1", "ws://a/ws", 1, "", "alice"]
    try:
        assert await redis.script(lua.PUT)(keys=[table, k.tables, k.version, fence.key],
                                           args=[*put_args, fence.token]) == 1
        assert await redis.script(lua.STATE)(keys=[table, fence.key],
                                             args=["a", "r1", '{"s": 2}', fence.token]) == 1
        await store.release_lease("a", "r1")  # a lapses; b takes a over: a's token moves on
        taken = await store.acquire_lease("a", "takeover:b:x", SECONDS)
        assert taken.token > fence.token
        before = await redis.call("HGETALL", table)
        late: list[tuple[str, list[str], list[Any]]] = [
            (lua.PUT, [table, k.tables, k.version], put_args),
            (lua.STATE, [table], ["a", "r1", '{"s": 3}']),
            (lua.OFFER, [table], ["a", "r1", "c"]),
            (lua.ACCEPT, [table, k.version], ["a", "a", "r1", "ws://a/ws"]),
            (lua.TAKE, [k.nodes, k.tables, k.version],
             ["b", "a", "r1", "ws://a/ws", k.table_prefix, k.node_prefix,
              *store.lease_ends()]),
        ]
        for code, keys, args in late:
            with pytest.raises(RedisScriptError, match="STALE_TOKEN"):
                await redis.script(code)(keys=[*keys, fence.key], args=[*args, fence.token])
        assert await redis.call("HGETALL", table) == before  # nothing changed
        unfenced = await redis.script(lua.STATE)(keys=[table], args=["a", "r1", "{}", ""])
        assert unfenced == 1  # (a tool's unfenced write: not checked)
    finally:
        await lease.release()
        await redis.close()


# --------------------------------------------------------------------------------------------
# Two processes, one paused past its lease
# --------------------------------------------------------------------------------------------


async def chips_of(store: RedisStore, player: str) -> int:
    """A player's chips wherever they are: their balance and every table account."""
    balances = await store.balances()
    return balances.get(player_account(player), 0) + sum(
        v for k, v in balances.items() if k.startswith("table:") and k.endswith(f":{player}"))


async def test_a_process_paused_past_its_lease_has_its_late_writes_refused(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    a = start_proc(tmp_path, "a", redis_server, "--set", f"jackpot_lease={LEASE}")
    procs: list[Proc] = [a]
    store = RedisStore(redis_server.url)
    await store.open()
    ledger = Ledger(store, node="observer")
    coord = await RedisCoordinator.connect(redis_server.url, lease=LEASE)
    try:
        alice, bob, carol = (await guest(a.ws_url, "Alice"), await guest(a.ws_url, "Bob"),
                             await guest(a.ws_url, "Carol"))
        holdem = (await ok(alice, "create_table", **HOLDEM))["table"]
        csp = (await ok(carol, "create_table", **CSP))["table"]
        b = start_proc(tmp_path, "b", redis_server, "--set", f"jackpot_lease={LEASE}")
        procs.append(b)
        await ok(alice, "sit", table=holdem, seat=0, buy_in=5000)
        await ok(bob, "sit", table=holdem, seat=2, buy_in=5000)
        await ok(carol, "sit", table=csp, seat=1, buy_in=3000)
        first = await alice.event("turn", table=holdem)
        actor, other = (alice, bob) if first["seat"] == 0 else (bob, alice)
        await ok(actor, "act", table=holdem, action="raise", amount=400)  # chips in the pot
        await other.event("turn", table=holdem)
        await carol.event("turn", table=csp, seat=1)
        await ok(carol, "act", table=csp, action="ante", amount=100, jackpot=True)
        await carol.event("turn", table=csp, seat=1)  # dealt: play or fold, now
        players = [x.player_id or "" for x in (alice, bob, carol)]
        before = {p: await chips_of(store, p) for p in players}
        pool = await coord.state()
        runs = {k.split(":")[2] for k in await store.balances("table:a:")}
        assert len(runs) == 1
        run = runs.pop()

        taken = b.watch("event=failover_done lost=a")
        a.proc.send_signal(signal.SIGSTOP)  # paused: no renewal, no write, past its lease
        done = await asyncio.wait_for(taken, LEASE + TIMEOUT)
        assert "tables=2" in done, done
        mark = len(await store.journal(0, 1_000_000))

        # the players' next actions reach a while it is stopped: a hand's result (the fold
        # ends the hold'em hand) and a Caribbean hand's settling (its jackpot booking)
        fold = asyncio.ensure_future(other.request("act", table=holdem, action="fold"))
        play = asyncio.ensure_future(carol.request("act", table=csp, action="play"))
        lost = a.watch("event=node_lease_lost node=a")
        fenced = [a.watch(f"event=table_fenced table={t}") for t in (holdem, csp)]
        a.proc.send_signal(signal.SIGCONT)
        line = await asyncio.wait_for(lost, TIMEOUT)
        assert "run=" + run in line, line
        for f in fenced:  # it stops serving them: its players are sent to b
            await asyncio.wait_for(f, TIMEOUT)
        await asyncio.wait_for(asyncio.gather(fold, play, return_exceptions=True), TIMEOUT)

        # nothing of a's run was written after the takeover: refused by token
        late = [e for e in await store.journal(mark, 1_000_000)
                if f"a:{run}" in f"{e.src} {e.dst} {e.reason}"]
        assert late == [], late
        assert await store.balances("table:a:") == {k: 0 for k in
                                                    await store.balances("table:a:")}
        assert {p: await chips_of(store, p) for p in players} == before  # hands voided
        assert await ledger.total() == 0
        after = await coord.state()
        assert (after.minor, after.major, after.contributed, after.paid) == (
            pool.minor, pool.major, pool.contributed, pool.paid)
        assert await coord.due() == []
        refused = [x for x in a.lines if "STALE_TOKEN" in x or "StaleLease" in x]
        assert refused, "".join(a.lines[-40:])  # its late writes met the token
        assert a.proc.poll() is None  # still running: it serves nothing of those tables
        for client in (alice, bob, carol):
            await client.ws.close()
    finally:
        await coord.close()
        await store.close()
        for proc in procs:
            if proc.proc.poll() is None:
                proc.proc.send_signal(signal.SIGCONT)
            stop_proc(proc)
