"""Issue 23, "the cluster's loose ends", as an outside check found them: real `poker-server`
processes (without `--test-mode`) on a redis-server of the test's own, their logs captured.

* A home game's session ledger after its table moved (a drain): the new owner's `host`
  `ledger` and the closing CSV show the buy-ins made on the old owner, and every net equals
  the move of that player's balance.
* A failover logs no `handoff_stack_differs` (the stacks before the voided hand are the
  truth), and a normal move logs no ERROR on the process that handed its table over.
* A spectator on another process than the table's chats (players on the owner and spectators
  on both processes see it; the owner's mutes hold) and is counted in the lobby.

Chips are conserved throughout (the ledger's sum is zero). Every wait is on an event with a
timeout (an answer, an event, a process's exit): never a sleep.
"""

from __future__ import annotations

import asyncio
import csv
import io
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

import server.cluster.spectate as spectate_module
from protocol import SUBPROTOCOL_JSON
from server.cluster.failover import SEQ_JUMP
from server.ledger.journal import Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.table.handoff import TableState
from tests.cluster.test_directory import Node, directory, node, settled
from tests.cluster.test_directory import guest as lguest
from tests.ledger.test_crash import Server, start_server
from tests.net.conftest import Client, Live
from tests.redis_helpers import RedisProcess, free_port

pytestmark = [pytest.mark.redis, pytest.mark.slow]
__all__ = ["node"]  # the fixture, shared with test_directory

LEASE = 2.0
TIMEOUT = 30.0
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [10, 20]}, "seats": 6,
                          "settings": {"pause": 0.5}}


def start_node(tmp: Path, name: str, redis: RedisProcess) -> Server:
    """A cluster process as it is deployed: no test mode."""
    port = free_port()
    return start_server(tmp / name, "--port", str(port), "--redis", redis.url, "--node", name,
                        "--public-url", f"ws://127.0.0.1:{port}/ws",
                        "--shutdown-deadline", "10",
                        "--set", "cluster_lobby_refresh_ms=50",
                        "--set", f"node_lease={LEASE}", "--set", f"jackpot_lease={LEASE}",
                        test_mode=False)


def stop(servers: list[Server]) -> None:
    for server in servers:
        if server.proc.poll() is None:
            server.proc.kill()
            server.proc.wait(10)


async def stop_gracefully(server: Server) -> int:
    server.proc.send_signal(signal.SIGTERM)
    try:
        return await asyncio.to_thread(server.proc.wait, TIMEOUT)
    except subprocess.TimeoutExpired:
        raise AssertionError("did not stop:\n" + "".join(server.lines[-60:])) from None


def logged(server: Server, needle: str) -> list[str]:
    return [line for line in server.lines if needle in line]


async def all_lines(server: Server) -> list[str]:
    """Every log line of a process that exited (its stderr read to the end)."""
    assert server.proc.poll() is not None
    assert await asyncio.to_thread(server.ended.wait, TIMEOUT)
    return server.lines


async def open_at(url: str) -> Client:
    ws = await asyncio.wait_for(connect(url, subprotocols=[Subprotocol(SUBPROTOCOL_JSON)],
                                        ping_interval=None), 10)
    return Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)


async def guest(server: Server, name: str) -> Client:
    c = await open_at(server.ws_url)
    await c.hello(name)
    return c


async def ok(c: Client, kind: str, **fields: Any) -> dict[str, Any]:
    answer = await asyncio.wait_for(c.request(kind, **fields), TIMEOUT)
    assert answer["type"] == "ok", (kind, answer)
    return answer


async def event(c: Client, kind: str, **match: Any) -> dict[str, Any]:
    return await asyncio.wait_for(c.event(kind, **match), TIMEOUT)


async def follow_push(c: Client, table: str, **resume: Any) -> tuple[Client, dict[str, Any]]:
    """A pushed `moved` for `table`: connect to its URL, `hello` with the token, `resume`;
    the new connection and the snapshot it got."""
    moved = await event(c, "error", code="moved", table=table)
    there = await open_at(moved["url"])
    hello = await ok(there, "hello", token=c.token)
    assert hello["player_id"] == c.player_id, hello
    there.player_id, there.token = c.player_id, c.token
    await ok(there, "resume", table=table, since=0, **resume)
    return there, await event(there, "snapshot", table=table)


async def play_out(table: str, players: dict[int, Client]) -> dict[str, Any]:
    """Whoever is to act folds until the hand ends; its `hand_ended`."""
    watcher = next(iter(players.values()))
    while True:
        msg = await asyncio.wait_for(watcher.event_any(), TIMEOUT)
        if msg.get("table") != table:
            continue
        if msg["type"] == "hand_ended":
            return msg
        if msg["type"] == "turn":
            await ok(players[msg["seat"]], "act", table=table, action="fold")


async def observer(redis: RedisProcess) -> tuple[Ledger, RedisStore]:
    store = RedisStore(redis.url)
    await store.open()
    return Ledger(store, node="observer"), store


async def ledger_total(live: Live) -> int:
    return int(await live.app.wallet.ledger.total())


async def balance(ledger: Ledger, c: Client) -> int:
    return await ledger.balance(player_account(c.player_id or ""))


# ------------------------------------------------------------------ the home game's ledger
async def test_a_home_games_ledger_after_a_drain_shows_the_buy_ins_and_the_true_nets(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    b = start_node(tmp_path, "b", redis_server)  # first: `a` knows it from its first read
    a = start_node(tmp_path, "a", redis_server)
    servers = [a, b]
    ledger, store = await observer(redis_server)
    try:
        alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
        start = {c.player_id: await balance(ledger, c) for c in (alice, bob)}
        made = await ok(alice, "create_table", **{
            **HOLDEM, "private": True, "settings": {"pause": 0.5, "approve_seats": False}})
        table, code = made["table"], made["code"]
        await ok(alice, "sit", table=table, seat=0, buy_in=500)
        await ok(bob, "sit", table=table, seat=3, buy_in=500, code=code)
        turn = await event(alice, "turn", table=table)
        await ok(alice, "host", table=table, action="pause")  # no second hand on a
        await ok({0: alice, 3: bob}[turn["seat"]], "act", table=table, action="fold")
        first = await event(alice, "hand_ended", table=table)
        assert sorted(first["stacks"].values()) == [490, 510], first

        assert await stop_gracefully(a) == 0  # SIGTERM: the drain moves the table to b
        alice2, snap = await follow_push(alice, table, code=code)
        bob2, _ = await follow_push(bob, table, code=code)
        assert snap["host"]["paused"] is True
        # the process that handed it over logged no ERROR (a `cluster_table_taken` after
        # a normal move is expected), and b took it
        await all_lines(a)
        assert logged(a, "event=table_handed_over") and not logged(a, "level=ERROR"), \
            "".join(a.lines[-40:])

        rows = {r["player"]: r for r in (await ok(alice2, "host", table=table,
                                                  action="ledger"))["ledger"]}
        for c in (alice, bob):
            r = rows[c.player_id]
            assert (r["buy_ins"], r["cash_outs"]) == (500, 0), r
            assert r["at_table"] == r["net"] + 500
        assert sorted(rows[c.player_id]["net"] for c in (alice, bob)) == [-10, 10]

        await ok(alice2, "host", table=table, action="resume")  # a hand on b
        await play_out(table, {0: alice2, 3: bob2})
        await ok(alice2, "host", table=table, action="close")
        closing = await event(alice2, "ledger", table=table)
        after = {c.player_id: await balance(ledger, c) for c in (alice, bob)}
        final = {r["player"]: r for r in closing["rows"]}
        text = {r["player"]: r for r in csv.DictReader(io.StringIO(closing["text"]))}
        for c in (alice, bob):
            pid = c.player_id
            moved = after[pid] - start[pid]
            assert final[pid]["net"] == moved and int(text[pid]["net"]) == moved, final
            assert final[pid]["buy_ins"] == 500 and int(text[pid]["buy_ins"]) == 500
            assert final[pid]["at_table"] == 0 and int(text[pid]["at_table"]) == 0
            assert final[pid]["cash_outs"] == 500 + moved
        assert sum(r["net"] for r in final.values()) == 0
        assert await ledger.total() == 0
        assert await stop_gracefully(b) == 0
        await all_lines(b)
        assert logged(b, "event=table_taken") and not logged(b, "handoff_stack_differs")
        assert not logged(b, "level=ERROR"), "".join(logged(b, "level=ERROR"))
        for client in (alice, bob, alice2, bob2):
            await client.ws.close()
    finally:
        await store.close()
        stop(servers)


# ------------------------------------------------------------------ failover's logs
async def test_a_failover_reopens_the_table_without_a_stack_that_differs(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    s = start_node(tmp_path, "s", redis_server)  # the survivor, first
    v = start_node(tmp_path, "v", redis_server)
    servers = [s, v]
    ledger, store = await observer(redis_server)
    try:
        alice, bob = await guest(v, "Alice"), await guest(v, "Bob")
        table = (await ok(alice, "create_table", **HOLDEM))["table"]
        await ok(alice, "sit", table=table, seat=0, buy_in=500)
        await ok(bob, "sit", table=table, seat=2, buy_in=500)
        ended = await play_out(table, {0: alice, 2: bob})  # stacks change after the sit
        before = {int(k): v for k, v in ended["stacks"].items()}
        # hand 2: chips in the pot, then the owner dies
        first = await event(alice, "turn", table=table)
        mover = alice if first["seat"] == 0 else bob
        await ok(mover, "act", table=table, action="raise", amount=100)
        await event(alice, "turn", table=table, seat=2 - first["seat"])
        sam = await guest(s, "Sam")  # a spectator on the survivor
        await ok(sam, "watch", table=table)
        await event(sam, "snapshot", table=table)
        assert await ledger.total() == 0

        v.proc.kill()
        v.proc.wait(10)
        reopened = await asyncio.wait_for(sam.event("snapshot", table=table), LEASE + TIMEOUT)
        assert reopened["seq"] > SEQ_JUMP and reopened["hand"] is None
        stacks = {x["seat"]: x["stack"] for x in reopened["seats"] if x is not None}
        assert stacks == before  # the hand is void: the stacks from before it
        assert await ledger.total() == 0
        assert await stop_gracefully(s) == 0
        await all_lines(s)
        assert logged(s, "event=failover_done")
        assert not logged(s, "handoff_stack_differs"), "".join(logged(s, "differs"))
        # the record it reopened from was written at hand 1's end (0.5 s before hand 2)
        assert logged(s, f"event=failover_stacks table={table} seats=2 from_ledger=0"), \
            "".join(logged(s, "failover_stacks"))
        for client in (alice, bob, sam):
            await client.ws.close()
    finally:
        await store.close()
        stop(servers)


# ------------------------------------------------------------------ remote spectators
# (in-process servers, as tests/cluster/test_spectate.py: the waits are on the directory's
# reads and the relay's queues)
async def watching(c: Client, table: str) -> dict[str, Any]:
    await ok(c, "watch", table=table)
    return await event(c, "snapshot", table=table)


async def chat_text(c: Client, table: str) -> str:
    return str((await event(c, "chat", table=table))["text"])


def spectators(page: dict[str, Any], table: str) -> int:
    return int(next(e for e in page["tables"] if e["table"] == table)["spectators"])


async def test_a_remote_spectator_chats_is_muted_and_is_counted_in_the_lobby(
        node: Node) -> None:
    a, b = await node("a"), await node("b")
    alice, bob = await lguest(a, "Alice"), await lguest(a, "Bob")
    table = (await ok(alice, "create_table", **{**HOLDEM, "settings": {"pause": 30}}))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=500)
    await ok(bob, "sit", table=table, seat=3, buy_in=500)
    await settled(a, b)
    sam = await lguest(a, "Sam")  # a spectator on the owner
    vic, wes = await lguest(b, "Vic"), await lguest(b, "Wes")  # spectators elsewhere
    for c in (sam, vic, wes):
        await watching(c, table)
    assert table in directory(b).spectate.remote
    await directory(b).spectate.counts_sent()

    # Vic chats from b: players and spectators on a, and spectators on b, see it
    said = await ok(vic, "chat", table=table, text="hello from b")
    assert set(said) == {"type", "rid"}
    seen = [await event(c, "chat", table=table) for c in (alice, bob, sam, vic, wes)]
    assert all(m == seen[0] for m in seen), seen
    assert seen[0]["name"] == "Vic" and seen[0]["text"] == "hello from b" and "seat" not in seen[0]
    assert "_from" not in seen[0]

    # the lobby counts the spectators of both processes (the count reached the owner before
    # the chat did: one channel, in order)
    await settled(a, b)
    assert spectators(await ok(wes, "tables"), table) == 3
    assert spectators(await ok(sam, "tables"), table) == 3

    # mutes hold: Alice (on the owner) and Wes (on b) mute Vic by his chat name
    assert (await ok(alice, "mute", table=table, name="Vic"))["muted"] is True
    assert (await ok(wes, "mute", table=table, name="Vic"))["muted"] is True
    await ok(vic, "chat", table=table, text="muted?")
    assert await chat_text(sam, table) == "muted?" and await chat_text(vic, table) == "muted?"
    await ok(bob, "chat", table=table, text="from a seat")
    for c in (alice, wes):  # Vic's second line never reached them: Bob's is next
        assert await chat_text(c, table) == "from a seat"
    for c in (sam, vic):
        assert await chat_text(c, table) == "from a seat"
    # Wes mutes Bob by his seat (he chatted in the stream) and unmutes Vic
    assert (await ok(wes, "mute", table=table, seat=3))["muted"] is True
    assert (await ok(wes, "mute", table=table, name="Vic", on=False))["muted"] is False
    await ok(bob, "chat", table=table, text="bob again")
    await ok(vic, "chat", table=table, text="vic again")
    assert await chat_text(wes, table) == "vic again"
    nobody = await wes.request("mute", table=table, name="Nobody")
    assert nobody["type"] == "error" and nobody["code"] == "bad_field", nobody

    # a remote spectator leaves: the count follows
    await ok(wes, "unwatch", table=table)
    await directory(b).spectate.counts_sent()
    await ok(vic, "chat", table=table, text="still counted")
    await settled(a, b)
    assert spectators(await ok(sam, "tables"), table) == 2
    assert await ledger_total(a) == 0
    for c in (alice, bob, sam, vic, wes):
        await c.ws.close()


async def test_a_remote_spectators_chat_is_refused_as_the_owner_would(node: Node) -> None:
    """The owner's rules apply: a table without spectator chat refuses it; a muted account
    is refused on its own process; a chat nobody answers gets `server_busy`."""
    a, b = await node("a"), await node("b")
    alice = await lguest(a, "Alice")
    made = await ok(alice, "create_table",
                    **{**HOLDEM, "settings": {"spectator_chat": False}})
    table = made["table"]
    await settled(a, b)
    vic = await lguest(b, "Vic")
    await watching(vic, table)
    refused = await vic.request("chat", table=table, text="hi")
    assert refused["type"] == "error" and refused["code"] == "chat_disabled", refused
    # not watching there: as any request for another process's table, `moved`
    await ok(vic, "unwatch", table=table)
    moved = await vic.request("chat", table=table, text="hi")
    assert moved["code"] == "moved", moved
    # the owner never answers (its ask channel is not listened to): server_busy
    await watching(vic, table)
    old = spectate_module.CHAT_TIMEOUT
    spectate_module.CHAT_TIMEOUT = 0.2
    try:
        await directory(a).spectate.close()
        busy = await vic.request("chat", table=table, text="anyone?")
    finally:
        spectate_module.CHAT_TIMEOUT = old
    assert busy["type"] == "error" and busy["code"] == "server_busy", busy
    await vic.ws.close()
    await alice.ws.close()


async def test_the_state_a_failover_reopens_is_written_at_each_hands_end(node: Node) -> None:
    """The directory's record of a table (what a failover reopens it from) follows its hands:
    after a hand the stacks in it are the hand's end, though the lobby entry did not change,
    and the listing's version did not move for it (no reader of the room re-reads)."""
    a = await node("a")
    alice, bob = await lguest(a, "Alice"), await lguest(a, "Bob")
    table = (await ok(alice, "create_table", **HOLDEM))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=500)
    await ok(bob, "sit", table=table, seat=3, buy_in=500)
    await settled(a)
    redis = directory(a).redis
    assert redis is not None
    version = await redis.call("GET", "dir:{room}:version")
    ended = await play_out(table, {0: alice, 3: bob})
    await settled(a)
    text = await redis.call("HGET", f"dir:{{room}}:table:{table}", "state")
    state = TableState.from_json(str(text))
    by_seat = {s.seat: s.stack for s in state.seats}
    assert by_seat == {int(k): v for k, v in ended["stacks"].items()} != {0: 500, 3: 500}
    assert await redis.call("GET", "dir:{room}:version") == version
    for c in (alice, bob):
        await c.ws.close()
