"""Issue 17: live table moves. A process that stops (the shutdown a `SIGTERM` starts) hands
each of its tables, at the end of its hand, to another process with its seats, stacks, button,
time banks and waiting list; its players are pushed `moved`, follow it with their token,
`resume` there and play on. Chips stay in the ledger: every balance exact, nothing created.

In-process servers (`server.main.run`) on one redis-server of the test's own; every wait is on
an event with a timeout (an answer, an event, a directory read), never a sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import connect
from websockets.typing import Subprotocol

import server.cluster.moves as moves_module
from protocol import SUBPROTOCOL_JSON
from server.cluster.keys import ACCEPT
from server.ledger.journal import Ledger, player_account
from server.table.actor import TableActor
from server.table.registry import TableRegistry
from tests.cluster.test_directory import HOLDEM, Node, directory, guest, node, settled
from tests.net.conftest import Client, Live, start_live, test_config
from tests.operator.conftest import TOKEN, admin
from tests.redis_helpers import RedisProcess, free_port

pytestmark = pytest.mark.redis
__all__ = ["node"]  # the fixture, shared with test_directory

TIMEOUT = 20.0


def actors(live: Live) -> dict[str, TableActor]:
    registry = live.app.registry
    assert isinstance(registry, TableRegistry)
    return registry.actors


def ledger(live: Live) -> Ledger:
    return live.app.wallet.ledger


async def follow_push(c: Client, table: str) -> tuple[Client, dict[str, Any]]:
    """A pushed `moved` for `table`: connect to its URL, `hello` with the token, `resume`;
    the new connection and the snapshot it got."""
    moved = await asyncio.wait_for(c.event("error", code="moved", table=table), TIMEOUT)
    assert "rid" not in moved and moved["url"].startswith("ws://"), moved
    ws = await asyncio.wait_for(connect(moved["url"], subprotocols=[Subprotocol(
        SUBPROTOCOL_JSON)], ping_interval=None), TIMEOUT)
    there = Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)
    ok = await there.request("hello", token=c.token)
    assert ok["type"] == "ok" and ok["player_id"] == c.player_id, ok
    welcome = await there.event("welcome")
    there.player_id, there.token = welcome["player_id"], welcome["token"]
    resumed = await there.request("resume", table=table, since=0)
    assert resumed["type"] == "ok", resumed
    snap = await there.event("snapshot", table=table)
    return there, snap


async def play_out(table: str, players: dict[int, Client]) -> dict[str, Any]:
    """Whoever is to act folds (or checks) until the hand ends; its `hand_ended`."""
    watcher = next(iter(players.values()))
    while True:
        msg = await asyncio.wait_for(watcher.event_any(), TIMEOUT)
        if msg.get("table") != table:
            continue
        if msg["type"] == "hand_ended":
            return msg
        if msg["type"] == "turn":
            actor = players[msg["seat"]]
            done = await actor.request("act", table=table, action="fold")
            assert done["type"] == "ok", done


async def balances(live: Live, *players: Client) -> dict[str, int]:
    return {c.player_id or "": await ledger(live).balance(player_account(c.player_id or ""))
            for c in players}


async def test_a_stopping_process_hands_its_table_over_and_the_players_play_on(
        node: Node) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    alice, bob, carol = (await guest(a, "Alice"), await guest(a, "Bob"),
                         await guest(a, "Carol"))
    made = await alice.request("create_table", **HOLDEM)
    assert made["type"] == "ok", made
    table = made["table"]
    assert table in actors(a)
    for c, seat in ((alice, 0), (bob, 3)):
        sat = await c.request("sit", table=table, seat=seat, buy_in=500)
        assert sat["type"] == "ok", sat
    watch = await carol.request("watch", table=table)
    assert watch["type"] == "ok", watch
    await play_out(table, {0: alice, 3: bob})
    actor = actors(a)[table]
    stacks = {st.player_id: st.stack for _, st in actor.seats.occupied()}
    assert sum(stacks.values()) == 1000
    button = actor.game.blinds.positions  # type: ignore[attr-defined]
    total = await ledger(a).total()
    off_table = await balances(a, alice, bob)

    closing = asyncio.create_task(a.close())  # SIGTERM's path: drain, move, stop
    alice2, snap = await follow_push(alice, table)
    bob2, _ = await follow_push(bob, table)
    carol2, _ = await follow_push(carol, table)
    await asyncio.wait_for(closing, TIMEOUT)

    assert table in actors(b) and table not in actors(a)
    seats = {s["seat"]: s for s in snap["seats"] if s is not None}
    assert set(seats) == {0, 3}
    assert {seats[0]["name"], seats[3]["name"]} == {"Alice", "Bob"}
    moved = actors(b)[table]
    assert {st.player_id: st.stack for _, st in moved.seats.occupied()} == stacks
    assert moved.game.blinds.positions == button  # type: ignore[attr-defined]
    assert await balances(b, alice, bob) == off_table  # nobody was cashed out
    assert await ledger(b).total() == total == 0
    for pid, stack in stacks.items():  # the chips are in b's accounts now, exactly
        assert await ledger(b).balance(ledger(b).table_account(table, pid)) == stack

    ended = await play_out(table, {0: alice2, 3: bob2})  # the next hand, on b
    assert ended["table"] == table
    assert (await carol2.event("hand_ended", table=table))["hand"] == ended["hand"]
    assert await ledger(b).total() == 0


async def test_an_offer_nobody_answers_is_withdrawn_and_the_table_stays(node: Node) -> None:
    """The taker never answers (its inbox is not listened to): after the timeout the owner
    withdraws, the table plays on where it was, and a late accept changes nothing."""
    a, b = await node("a"), await node("b")
    await settled(a, b)
    alice = await guest(a, "Alice")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    sat = await alice.request("sit", table=table, seat=0, buy_in=500)
    assert sat["type"] == "ok", sat
    moves_b = directory(b).moves
    await moves_b.close()  # b hears no offer
    moves_a = directory(a).moves
    old = moves_module.OFFER_TIMEOUT
    moves_module.OFFER_TIMEOUT = 0.2
    try:
        moved = await moves_a.move(actors(a)[table], 5.0)
    finally:
        moves_module.OFFER_TIMEOUT = old
    assert moved is False
    assert table in actors(a) and not actors(a)[table].hold
    d = directory(b)
    assert d.redis is not None
    late = await d.redis.script(ACCEPT)(keys=[d.keys.table(table), d.keys.version],
                                        args=["a", "b", d.run, d.url, ""])  # unfenced
    assert late is None  # the offer is gone: b cannot take it
    again = await alice.request("sit_out", table=table)
    assert again["type"] == "ok", again  # the table still answers on a


async def test_the_operator_drains_a_process_and_its_table_moves(
        node: Node, tmp_path: Path, redis_server: RedisProcess) -> None:
    """`POST /admin/drain` stops a process as SIGTERM does: its table moves, its seated
    player follows; the drain is in the audit log; a reason is required."""
    b = await node("b")
    port = free_port()
    a = await start_live(test_config(tmp_path / "a", port=port, redis_url=redis_server.url,
                                     node="a", public_url=f"ws://127.0.0.1:{port}/ws",
                                     cluster_lobby_refresh_ms=50, operator_token=TOKEN))
    await settled(a, b)
    alice = await guest(a, "Alice")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    assert (await alice.request("sit", table=table, seat=4, buy_in=700))["type"] == "ok"
    refused = await admin(a, "POST", "/admin/drain", {})
    assert refused[0] == 400 and refused[1]["error"]["code"] == "bad_reason"
    status, body = await admin(a, "POST", "/admin/drain", {"reason": "kernel upgrade"})
    assert status == 200 and body["draining"] == "a" and body["tables"] == 1, body
    _, snap = await follow_push(alice, table)
    await asyncio.wait_for(a.task, TIMEOUT)  # the process stopped by itself
    seats = [s for s in snap["seats"] if s is not None]
    assert [(s["seat"], s["name"], s["stack"]) for s in seats] == [(4, "Alice", 700)]
    assert table in actors(b)
    audit = await b.app.wallet.ledger.store.audit_list(0, 10)  # the shared store's log
    assert any('"drain"' in text and "kernel upgrade" in text for _, text in audit), audit


async def test_a_process_cut_off_past_its_lease_stops_the_tables_taken_from_it(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    """A process that stops renewing (paused, cut off) while it still runs its table: once
    its lease lapsed a survivor takes it over; when the process comes back it finds the table
    owned elsewhere and stops it at once (fenced), sending its player there: never two
    processes dealing one table."""
    lives: list[Live] = []
    try:
        for name in ("a", "b"):
            port = free_port()
            lives.append(await start_live(test_config(
                tmp_path / name, port=port, redis_url=redis_server.url, node=name,
                public_url=f"ws://127.0.0.1:{port}/ws", cluster_lobby_refresh_ms=50,
                node_lease=1.0)))
        a, b = lives
        await settled(a, b)
        alice = await guest(a, "Alice")
        table = (await alice.request("create_table", **HOLDEM))["table"]
        assert (await alice.request("sit", table=table, seat=1, buy_in=600))["type"] == "ok"
        await settled(a, b)
        da, db = directory(a), directory(b)
        keep, keeper = da._task, ledger(a).lease._keeper
        assert keep is not None and keeper is not None
        keep.cancel()  # a is cut off: no renewal of either lease, no reads
        keeper.cancel()
        for _ in range(400):  # b's reads, until it took a over (each read is an event)
            if db.failover.taken:
                break
            await db.next_read()
        assert db.failover.taken == [("a", [table])]
        assert table in actors(a) and table in actors(b)  # a does not know yet
        da._task = asyncio.get_running_loop().create_task(da._keep())  # a comes back
        _, snap = await follow_push(alice, table)
        assert [(s["seat"], s["stack"]) for s in snap["seats"] if s is not None] == [(1, 600)]
        for _ in range(3):
            await da.next_read()
        assert table not in actors(a) and table in actors(b)
        assert await ledger(b).total() == 0
        assert await ledger(b).balance(ledger(b).table_account(table, alice.player_id or "")) \
            == 600
    finally:
        for live in reversed(lives):
            await live.close()


async def test_a_request_that_waited_for_a_table_this_process_took_is_served_here(
        node: Node) -> None:
    """A `resume` sent to b for a table b does not have waits for the table's owner (a
    failover in progress: `Where.find`, tests/cluster/test_parts.py); when the answer is b
    itself (b took the table meanwhile) the request is served on b, not answered `moved` to
    the process the player is talking to (a needless reconnection, which dropped the turn a
    load-test bot held: a tournament's restored tables waited their 30 s action clock)."""
    a, b = await node("a"), await node("b")
    await settled(a, b)
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    table = (await alice.request("create_table", **HOLDEM))["table"]
    for c, seat in ((alice, 0), (bob, 3)):
        assert (await c.request("sit", table=table, seat=seat, buy_in=500))["type"] == "ok"
    await play_out(table, {0: alice, 3: bob})
    taken = asyncio.Event()
    asked = asyncio.Event()

    async def locate(table_id: str) -> str | None:  # b's look-up, held until b has it
        asked.set()
        await taken.wait()
        return directory(b).url
    directory(b).locate = locate  # type: ignore[method-assign]
    there = await guest(b, "Zed")  # (a connection to b, then Alice's own token on another)
    ws = await asyncio.wait_for(connect(b.ws_url, subprotocols=[Subprotocol(
        SUBPROTOCOL_JSON)], ping_interval=None), TIMEOUT)
    back = Client(ws=ws, subprotocol=SUBPROTOCOL_JSON)
    assert (await back.request("hello", token=alice.token))["player_id"] == alice.player_id
    rid = next(back.rids)
    await back.send({"type": "resume", "rid": rid, "table": table, "since": 0})
    await asyncio.wait_for(asked.wait(), TIMEOUT)
    closing = asyncio.create_task(a.close())  # the table moves to b meanwhile
    await follow_push(bob, table)  # (Bob's own resume on b served: the table is there)
    assert table in actors(b)
    taken.set()
    answer = await asyncio.wait_for(back.answer(rid), TIMEOUT)
    assert answer["type"] == "ok", answer  # served on b: no `moved` to b itself
    snap = await asyncio.wait_for(back.event("snapshot", table=table), TIMEOUT)
    assert snap["you"] == 0
    await asyncio.wait_for(closing, TIMEOUT)
    await there.ws.close()
