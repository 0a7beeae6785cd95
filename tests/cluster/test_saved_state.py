"""Issue 26: one saved state per table (:mod:`server.cluster.states`), read in the table's task
at each hand's end (and at a seat change between hands), written through one script, what
live moves and failover both restore from.

* A fixed-deck table (test mode) moved by a drain keeps dealing its fixed decks on the
  process that took it.
* After a failover the button is where the last hand left it: a lobby change during the next
  hand (a spectator came) does not put that hand's button in the saved state.
* And the subscriptions part (issue 26): every channel of a cluster process on its one task,
  the jackpot meter's and the room's events included.

In-process servers (`server.main.run`) on one redis-server of the test's own; every wait is on
an event with a timeout, never a sleep.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.rules.cards import make_deck
from tests.cluster.test_directory import HOLDEM, Node, directory, guest, node, settled
from tests.cluster.test_moves import actors, follow_push, ledger, play_out
from tests.net.conftest import Client, Live, start_live, test_config
from tests.redis_helpers import RedisProcess, free_port

pytestmark = pytest.mark.redis
__all__ = ["node"]  # the fixture, shared with test_directory

TIMEOUT = 20.0
DEUCES = ["2c", "2d", "2h", "2s"]


def deck(first: list[str]) -> list[str]:
    return [*first, *(c for c in make_deck() if c not in first)]


async def dealt(c: Client, table: str, seat: int) -> list[str]:
    """The cards dealt to ``c`` at ``seat`` (the others' are hidden)."""
    msg = await asyncio.wait_for(c.event("dealt", table=table, seat=seat), TIMEOUT)
    return [str(x) for x in msg["cards"]]


async def test_a_fixed_deck_table_moved_keeps_dealing_its_fixed_decks(node: Node) -> None:
    a, b = await node("a"), await node("b")
    await settled(a, b)
    alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
    first = deck(["Ac", "Ad", "Ah", "As"])
    second, third = deck(DEUCES), deck(["3c", "3d", "3h", "3s"])
    made = await alice.request("create_table", **HOLDEM, decks=[first, second, third])
    assert made["type"] == "ok", made
    table = made["table"]
    for c, seat in ((alice, 0), (bob, 3)):
        assert (await c.request("sit", table=table, seat=seat, buy_in=500))["type"] == "ok"
    assert set(await dealt(alice, table, 0)) <= {"Ac", "Ad", "Ah", "As"}  # the first deck
    await play_out(table, {0: alice, 3: bob})
    moving = actors(a)[table]

    closing = asyncio.create_task(a.close())  # the drain moves the table at its hand's end
    alice2, _ = await follow_push(alice, table)
    bob2, _ = await follow_push(bob, table)
    await asyncio.wait_for(closing, TIMEOUT)
    assert table not in actors(a) and moving.stopped
    left = [list(d) for d in moving.dealer.decks]  # not dealt on a at the handover
    assert left in ([second, third], [third])  # (a second hand may have run on a)
    moved = actors(b)[table]
    cards = await dealt(alice2, table, 0)  # b's first hand deals the next fixed deck
    assert set(cards) <= set(left[0][:4]), (cards, left[0][:4])
    assert [list(d) for d in moved.dealer.decks] == left[1:]
    await play_out(table, {0: alice2, 3: bob2})
    assert await ledger(b).total() == 0


async def test_after_a_failover_the_button_is_where_the_last_hand_left_it(
        tmp_path: Path, redis_server: RedisProcess) -> None:
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
        alice, bob = await guest(a, "Alice"), await guest(a, "Bob")
        made = await alice.request("create_table", **{**HOLDEM, "settings": {"pause": 0.2}})
        table = made["table"]
        for c, seat in ((alice, 1), (bob, 4)):
            assert (await c.request("sit", table=table, seat=seat, buy_in=600))["type"] == "ok"
        starts: list[dict[str, Any]] = []
        for _ in range(2):
            starts.append(await asyncio.wait_for(alice.event("hand_started", table=table),
                                                 TIMEOUT))
            await play_out(table, {1: alice, 4: bob})
        third = await asyncio.wait_for(alice.event("hand_started", table=table), TIMEOUT)
        assert third["button"] != starts[1]["button"]  # heads-up: the button moved on
        carol = await guest(a, "Carol")  # a lobby change in the middle of the third hand
        assert (await carol.request("watch", table=table))["type"] == "ok"
        await settled(a, b)
        states = directory(a).states
        await asyncio.wait_for(_written(a, states), TIMEOUT)

        da, db = directory(a), directory(b)
        keep, keeper = da._task, ledger(a).lease._keeper
        assert keep is not None and keeper is not None
        keep.cancel()  # a is cut off: no renewal, no reads, no writes
        keeper.cancel()
        for _ in range(400):
            if db.failover.taken:
                break
            await db.next_read()
        assert db.failover.taken == [("a", [table])]
        reopened = actors(b)[table]
        assert reopened.dealer.button == starts[1]["button"]  # the last hand's, not the third's
        assert reopened.dealer.number == 2
        positions = reopened.game.blinds.positions  # type: ignore[attr-defined]
        assert positions.button == starts[1]["button"]
        stacks = {st.player_id: st.stack for _, st in reopened.seats.occupied()}
        assert set(stacks) == {alice.player_id, bob.player_id}
        assert sum(stacks.values()) == 1200 and await ledger(b).total() == 0
        for c in (alice, bob, carol):
            await c.ws.close()
    finally:
        for live in reversed(lives):
            await live.close()


async def _written(live: Live, states: Any) -> None:
    """Until nothing read is left unwritten (the directory's task writes each pass)."""
    while states.due():
        await directory(live).next_read()



async def test_every_channel_of_a_cluster_process_is_on_its_one_subscriptions_task(
        node: Node) -> None:
    """The directory's, moves', the spectators', the room's events and the jackpot meter's
    channels are all the subscriptions part's; a pool change published by any process
    reaches this process's meter through it."""
    a, b = await node("a"), await node("b")
    await settled(a, b)
    bus = directory(b).bus
    keys = directory(b).keys
    meter_channel = "jp:{room}:meter"
    assert {keys.changed, keys.inbox("b"), "dir:{room}:ask", "dir:{room}:said:b",
            "lim:{room}:events", meter_channel} <= bus.channels()
    changed = asyncio.Event()
    meter = b.app.registry.jackpot.meter  # type: ignore[attr-defined]
    meter.listeners.append(lambda msg: changed.set())
    redis = directory(a).redis
    assert redis is not None
    assert await redis.publish(meter_channel, "123 4567 0 ") == 2  # one subscriber a process
    await asyncio.wait_for(changed.wait(), TIMEOUT)
    state = meter.state
    assert (state.minor, state.major) == (123, 4567)
