"""Issue 17: failover, with real `poker-server` processes and a redis-server of the test's own.

Three processes; a hold'em table and a Caribbean Stud table on one of them, both mid-hand
(chips in the pot, a jackpot wager placed); that process is SIGKILLed. Within the lease plus
2 s the tables are open on a survivor (a spectator on another process sees the reopened
table's snapshot), the running hands are void (every stack what it was before its hand, every
balance exact, the ledger's sum zero), the jackpot pool is unchanged, and the players come
back with their tokens (`resume`, following `moved`) and play the next hand there.

Every wait is on an event with a timeout; never a sleep.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest

from server.cluster.failover import SEQ_JUMP
from server.jackpot.redis_coord import RedisCoordinator
from server.ledger.journal import Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.rules.cards import make_deck
from tests.cluster.test_nginx import open_at
from tests.ledger.test_crash import Server, start_server
from tests.net.conftest import Client
from tests.redis_helpers import RedisProcess, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]

LEASE = 2.0
TIMEOUT = 20.0
FIRST = ["As", "Kc", "Ad", "Kd", "2c", "Ah", "7s", "8d", "3c", "9h", "4c", "Jc"]
DECK = [*FIRST, *(c for c in make_deck() if c not in FIRST)]
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6,
                          "settings": {"pause": 0.5}}
CSP: dict[str, Any] = {"variant": "caribbean", "structure": None,
                       "stakes": {"min": 100, "max": 1000}, "seats": 3,
                       "settings": {"pause": 0.5}}


def start_node(tmp: Path, name: str, redis: RedisProcess) -> Server:
    port = free_port()
    return start_server(tmp / name, "--port", str(port), "--redis", redis.url, "--node", name,
                        "--public-url", f"ws://127.0.0.1:{port}/ws",
                        "--set", "cluster_lobby_refresh_ms=50",
                        "--set", f"node_lease={LEASE}", "--set", f"jackpot_lease={LEASE}")


async def guest(url: str, name: str) -> Client:
    c = await open_at(url)
    await c.hello(name)
    return c


async def ok(c: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await c.request(kind, **fields)
    assert answer["type"] == "ok", (kind, answer)
    return answer


async def come_back(c: Client, home: str, table: str) -> tuple[Client, dict[str, Any]]:
    """What a client does when its process died: its home address, `hello` with its token,
    `resume`, following `moved`; the connection and the snapshot."""
    url = home
    for _ in range(3):
        there = await open_at(url)
        hello = await there.request("hello", token=c.token)
        assert hello["type"] == "ok" and hello["player_id"] == c.player_id, hello
        there.player_id, there.token = c.player_id, c.token
        answer = await there.request("resume", table=table, since=0)
        if answer["type"] == "ok":
            return there, await there.event("snapshot", table=table)
        assert answer["code"] == "moved", answer
        await there.ws.close()
        url = answer["url"]
    raise AssertionError("moved more than twice")


async def ledger_view(redis: RedisProcess) -> tuple[Ledger, RedisStore]:
    store = RedisStore(redis.url)
    await store.open()
    return Ledger(store, node="observer"), store


async def table_chips(store: RedisStore, table: str, player: str) -> int:
    return sum(v for k, v in (await store.balances("table:")).items()
               if k.endswith(f":{table}:{player}"))


async def test_kill_9_of_a_tables_process_reopens_it_on_a_survivor(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    c = start_node(tmp_path, "c", redis_server)  # alone at first: both tables open there
    servers = [c]
    ledger, store = await ledger_view(redis_server)
    coord = await RedisCoordinator.connect(redis_server.url, lease=LEASE)
    try:
        alice, bob, carol = (await guest(c.ws_url, "Alice"), await guest(c.ws_url, "Bob"),
                             await guest(c.ws_url, "Carol"))
        holdem = (await ok(alice, "create_table", **HOLDEM, decks=[DECK]))["table"]
        csp = (await ok(carol, "create_table", **CSP))["table"]
        a, b = start_node(tmp_path, "a", redis_server), start_node(tmp_path, "b", redis_server)
        servers += [a, b]
        await ok(alice, "sit", table=holdem, seat=0, buy_in=5000)
        await ok(bob, "sit", table=holdem, seat=2, buy_in=5000)
        await ok(carol, "sit", table=csp, seat=1, buy_in=3000)
        first = await alice.event("turn", table=holdem)
        actor = alice if first["seat"] == 0 else bob
        await ok(actor, "act", table=holdem, action="raise", amount=400)  # chips in the pot
        await carol.event("turn", table=csp, seat=1)
        await ok(carol, "act", table=csp, action="ante", amount=100, jackpot=True)
        await carol.event("turn", table=csp, seat=1)  # dealt: play or fold, now
        sam = await guest(a.ws_url, "Sam")  # a spectator on another process
        await ok(sam, "watch", table=holdem)
        await sam.event("snapshot", table=holdem)
        pool = await coord.state()
        players = {x.player_id or "": x for x in (alice, bob, carol)}
        before = {p: await ledger.balance(player_account(p)) for p in players}
        assert await ledger.total() == 0

        killed = time.monotonic()
        c.proc.kill()  # SIGKILL: no drain, no goodbye
        c.proc.wait(10)
        reopened = await asyncio.wait_for(
            sam.event("snapshot", table=holdem), LEASE + TIMEOUT)
        took = time.monotonic() - killed
        assert reopened["seq"] > SEQ_JUMP and reopened["hand"] is None
        assert took <= LEASE + 2.0, f"the table reopened {took:.2f} s after the kill"

        alice2, snap = await come_back(alice, a.ws_url, holdem)
        bob2, _ = await come_back(bob, a.ws_url, holdem)
        carol2, csnap = await come_back(carol, b.ws_url, csp)
        seats = {s["seat"]: s for s in snap["seats"] if s is not None}
        assert {k: (v["name"], v["stack"]) for k, v in seats.items()} == {
            0: ("Alice", 5000), 2: ("Bob", 5000)}  # the hand is void: stacks from before it
        cseat = [s for s in csnap["seats"] if s is not None]
        assert [(s["seat"], s["stack"]) for s in cseat] == [(1, 3000)]  # the ante refunded
        for p in players:  # nothing was cashed out, nothing moved off the tables
            assert await ledger.balance(player_account(p)) == before[p]
        assert await table_chips(store, holdem, alice.player_id or "") == 5000
        assert await table_chips(store, csp, carol.player_id or "") == 3000
        assert await ledger.total() == 0
        after = await coord.state()
        assert (after.minor, after.major, after.contributed, after.paid) == (
            pool.minor, pool.major, pool.contributed, pool.paid)

        # and they play on, on the survivor: the next hand to its end
        seat_of = {0: alice2, 2: bob2}
        while True:
            msg = await asyncio.wait_for(alice2.event_any(), TIMEOUT)
            if msg.get("table") != holdem:
                continue
            if msg["type"] == "hand_ended":
                break
            if msg["type"] == "turn":
                await ok(seat_of[msg["seat"]], "act", table=holdem, action="fold")
        assert await ledger.total() == 0
        for client in (alice2, bob2, carol2, sam):
            await client.ws.close()
    finally:
        await coord.close()
        await store.close()
        for server in servers:
            if server.proc.poll() is None:
                server.proc.kill()
                server.proc.wait(10)
