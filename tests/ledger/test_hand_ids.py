"""Hand ids and table ids are never given twice: not after a restart (the same data dir, the
same Redis), not by two processes sharing a Redis; so a player's history never lists one hand
id twice, a PokerStars export's hand number is never another hand's, and a link to a table
never opens another table after a restart.

The numbers come from durable counters in the ledger store (``Store.reserve_ids``), handed
out in blocks (:class:`server.ledger.ids.IdBlocks`) so that a hand start does not wait on the
store.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from server.ledger.export import read_pokerstars
from server.ledger.ids import IdBlocks, IdsExhausted
from server.ledger.redis_store import RedisStore
from server.ledger.sqlite_store import SqliteStore
from server.ledger.store import Store
from tests.net.conftest import Client, Live, open_client, start_live, test_config
from tests.net.test_play import DECK, HOLDEM, ok
from tests.redis_helpers import RedisProcess


# ------------------------------------------------------------------------- the counters
async def test_reserved_blocks_never_overlap(store: Store) -> None:
    """Both stores: a counter only goes up, by the count asked, atomically (concurrent
    reservations get disjoint blocks); counters are independent."""
    assert await store.reserve_ids("hand", 10) == 10
    assert await store.reserve_ids("hand", 5) == 15
    ends = await asyncio.gather(*(store.reserve_ids("hand", 3) for _ in range(20)))
    blocks = [set(range(e - 2, e + 1)) for e in ends]
    assert len(set().union(*blocks)) == 60 and min(min(b) for b in blocks) == 16
    assert await store.reserve_ids("table", 1) == 1
    with pytest.raises(ValueError):
        await store.reserve_ids("hand", 0)


async def test_sqlite_counter_survives_reopening_the_data_dir(tmp_path: Path) -> None:
    first = SqliteStore(tmp_path / "ledger.db")
    await first.open()
    assert await first.reserve_ids("hand", 1000) == 1000
    await first.close()
    again = SqliteStore(tmp_path / "ledger.db")
    await again.open()
    try:
        assert await again.reserve_ids("hand", 1000) == 2000
    finally:
        await again.close()


async def test_redis_counter_survives_a_redis_restart(redis_server: RedisProcess) -> None:
    first = RedisStore(redis_server.url)
    await first.open()
    assert await first.reserve_ids("hand", 1000) == 1000
    await first.close()
    redis_server.restart()  # append-only persistence
    again = RedisStore(redis_server.url)
    await again.open()
    try:
        assert await again.reserve_ids("hand", 1000) == 2000
    finally:
        await again.close()


class SlowStore:
    """A counter whose every reservation waits until the test lets it answer."""

    def __init__(self) -> None:
        self.value = 0
        self.calls = 0
        self.gate = asyncio.Event()

    async def reserve_ids(self, name: str, count: int) -> int:
        self.calls += 1
        await self.gate.wait()
        self.value += count
        return self.value


async def test_blocks_are_handed_out_without_waiting_on_the_store() -> None:
    """A number is taken from memory; the next block is fetched in the background once the
    current one runs low, so nobody waits while the store is slow; only a used-up block
    makes ``next`` wait (and a synchronous ``take`` refuse)."""
    store = SlowStore()
    ids = IdBlocks(store, "hand", block=10, low=4)
    with pytest.raises(IdsExhausted):  # nothing reserved yet, and no waiting here
        ids.take()
    store.gate.set()
    await ids.prime()
    store.gate.clear()
    calls = store.calls
    got = [ids.take() for _ in range(10)]  # no await: the store is never waited on
    assert len(set(got)) == 10
    with pytest.raises(IdsExhausted):
        ids.take()
    await asyncio.sleep(0)
    assert store.calls == calls + 1  # one background fetch, started at the low mark
    waiting = asyncio.ensure_future(ids.next())
    await asyncio.sleep(0)
    assert not waiting.done()  # the block is used up: this one waits for the fetch
    store.gate.set()
    n = await waiting
    assert n not in got and store.calls == calls + 1
    more = [await ids.next() for _ in range(30)]
    assert len({*got, n, *more}) == 41


async def test_without_a_store_ids_count_in_memory() -> None:
    ids = IdBlocks(None, "hand")
    assert [ids.take(), await ids.next(), ids.take()] == [1, 2, 3]


# ------------------------------------------------------------------------- the server
async def _play_a_hand(alice: Client, bob: Client) -> tuple[str, str]:
    """Alice opens a table, both sit, the first to act folds; (table id, hand id)."""
    table = (await ok(alice, "create_table", **HOLDEM, decks=[DECK]))["table"]
    await ok(alice, "sit", table=table, seat=0, buy_in=2000)
    await ok(bob, "sit", table=table, seat=1, buy_in=2000)
    started = await alice.event("hand_started", table=table)
    turn = await alice.event("turn", table=table)
    mover = alice if turn["seat"] == 0 else bob
    await ok(mover, "act", table=table, action="fold")
    await alice.event("hand_ended", table=table, hand=started["hand"])
    await bob.event("hand_ended", table=table, hand=started["hand"])
    return str(table), str(started["hand"])


async def _players(live: Live, tokens: dict[str, str] | None = None) -> tuple[Client, Client]:
    out = []
    for name in ("Alice", "Bob"):
        c = await open_client(live)
        if tokens is None:
            await c.hello(name)
        else:
            assert (await c.request("hello", token=tokens[name]))["type"] == "ok"
            welcome = await c.event("welcome")
            c.player_id, c.token = welcome["player_id"], welcome["token"]
        out.append(c)
    return out[0], out[1]


async def _numbers(c: Client, hands: list[str]) -> list[int]:
    out = []
    for hand in hands:
        text = (await ok(c, "hand", hand=hand, format="pokerstars"))["text"]
        got = read_pokerstars(text)
        assert got["hand"] == hand
        out.append(int(got["number"]))
    return out


async def _restart_keeps_ids_unique(config: Any) -> None:
    live = await start_live(config)
    try:
        alice, bob = await _players(live)
        first_table, first_hand = await _play_a_hand(alice, bob)
        tokens = {"Alice": str(alice.token), "Bob": str(bob.token)}
    finally:
        await live.close()
    live = await start_live(config)  # the restart: same data dir / same Redis
    try:
        alice, bob = await _players(live, tokens)
        table, hand = await _play_a_hand(alice, bob)
        assert table != first_table  # a link to the old table opens nothing new
        assert hand != first_hand
        listed = [h["hand"] for h in (await ok(alice, "history"))["hands"]]
        assert first_hand in listed and hand in listed
        assert len(listed) == len(set(listed))  # no hand id twice in one history
        numbers = await _numbers(alice, listed)
        assert len(numbers) == len(set(numbers))  # nor a PokerStars hand number
    finally:
        await live.close()


async def test_ids_stay_unique_across_a_restart_embedded(tmp_path: Path) -> None:
    """The embedded store: the server restarted on the same data dir."""
    await _restart_keeps_ids_unique(test_config(tmp_path))


async def test_ids_stay_unique_across_a_restart_redis(tmp_path: Path,
                                                       redis_server: RedisProcess) -> None:
    """The Redis store: the server restarted on the same Redis (its own redis-server)."""
    await _restart_keeps_ids_unique(test_config(tmp_path, redis_url=redis_server.url))


async def test_two_processes_sharing_a_redis_never_share_an_id(
        tmp_path: Path, redis_server: RedisProcess) -> None:
    a = await start_live(test_config(tmp_path / "a", redis_url=redis_server.url, node="a"))
    b = await start_live(test_config(tmp_path / "b", redis_url=redis_server.url, node="b"))
    try:
        got = []
        for live in (a, b):
            alice, bob = await _players(live)
            got.append(await _play_a_hand(alice, bob))
        (table_a, hand_a), (table_b, hand_b) = got
        assert table_a != table_b and hand_a != hand_b
        assert hand_a.rsplit(".", 1)[1] != hand_b.rsplit(".", 1)[1]  # the export numbers
    finally:
        await a.close()
        await b.close()
