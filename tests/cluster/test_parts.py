"""Issue 26: the cluster's parts, each built alone. Moves and failover with fakes of their
ports (:mod:`server.cluster.ports`: no directory, no Redis, no ledger); the subscriptions
(:mod:`server.cluster.bus`) on a redis-server of the test's own: one connection for every
channel of the process, channels added and dropped while it runs, ``ready`` again after a
reconnection.

Every wait is on an event with a timeout; never a sleep.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import pytest

from server.cluster import keys as lua
from server.cluster.bus import Subscriptions
from server.cluster.directory import RoomCopy
from server.cluster.failover import SEQ_JUMP, Failover, Steps
from server.cluster.keys import Keys
from server.cluster.moves import Moves
from server.cluster.ports import Me, NodeInfo
from server.cluster.where import Where
from server.config import Config
from server.redisio import Redis
from server.table.handoff import SeatRecord, TableState
from tests.redis_helpers import RedisProcess, resp

TIMEOUT = 10.0
CREATE: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6, "name": "T",
                          "settings": {}, "private": False}
DECK = ["2c", "2d", "2h", "2s", "3c", "3d"]


def state(table: str = "t1") -> TableState:
    return TableState(table=table, create=dict(CREATE), seq=40, button=3, blinds=[4, 5],
                      hands=7, decks=[list(DECK)],
                      seats=[SeatRecord(3, "p-al", "Al", 500, 20.0),
                             SeatRecord(5, "p-bo", "Bo", 700, 20.0)])


class FakeOwning:
    """The directory's port: canned answers per script, every call recorded."""

    def __init__(self, node: str, answers: dict[str, Any] | None = None) -> None:
        self.me = Me(node, f"r{node}", f"ws://{node}/ws", Keys())
        self.answers = answers or {}
        self.calls: list[tuple[str, list[str], list[Any]]] = []
        self.is_draining = False
        self.may = True
        self.announced = 0
        self.target: NodeInfo | None = NodeInfo("b", "ws://b/ws")

    def draining(self) -> bool:
        return self.is_draining

    def may_take_over(self) -> bool:
        return self.may

    def least_loaded(self) -> NodeInfo | None:
        return self.target

    def lease_ends(self) -> tuple[str, str]:
        return ("lease:", ":x")

    async def fenced(self, code: str, keys: list[str], args: list[Any]) -> Any:
        self.calls.append((code, keys, args))
        return self.answers.get(code)

    async def script(self, code: str, keys: list[str], args: list[Any]) -> Any:
        return await self.fenced(code, keys, args)

    async def announce(self) -> None:
        self.announced += 1


class FakeBus:
    """The subscriptions' port: handlers by channel; publishes recorded and, with
    ``answer``, answered in a later turn of the loop (as another process would)."""

    def __init__(self) -> None:
        self.handlers: dict[str, list[Callable[[str, str], None]]] = {}
        self.published: list[tuple[str, str]] = []
        self.sent = asyncio.Event()
        self.answer: Callable[[str, str], tuple[str, str] | None] = lambda c, m: None

    def on(self, channel: str, handler: Callable[[str, str], None],
           ready: Callable[[], None] | None = None) -> None:
        self.handlers.setdefault(channel, []).append(handler)

    def off(self, channel: str, handler: Callable[[str, str], None]) -> None:
        left = [h for h in self.handlers.get(channel, []) if h != handler]
        if left:
            self.handlers[channel] = left
        else:
            self.handlers.pop(channel, None)

    def deliver(self, channel: str, message: str) -> None:
        for handler in self.handlers.get(channel, []):
            handler(channel, message)

    async def publish(self, channel: str, message: str) -> int:
        self.published.append((channel, message))
        self.sent.set()
        reply = self.answer(channel, message)
        if reply is not None:
            asyncio.get_running_loop().call_soon(self.deliver, *reply)
        return 1


class FakeStates:
    def __init__(self) -> None:
        self.saved: list[TableState] = []

    async def save(self, st: TableState) -> bool:
        self.saved.append(st)
        return True


class FakeTables:
    def __init__(self) -> None:
        self.actors: dict[str, Any] = {}
        self.creators: dict[str, tuple[str | None, str | None]] = {}
        self.config = Config()
        self.jackpot: Any = None
        self.adopted: list[tuple[TableState, dict[str, int], bool]] = []
        self.forgotten: list[Any] = []

    def adopt(self, st: TableState, stacks: dict[str, int], *, exact: bool = True) -> Any:
        self.adopted.append((st, stacks, exact))
        return object()

    def forget(self, actor: Any, reason: str = "idle") -> None:
        self.forgotten.append((actor, reason))


async def ledger_take(table: str, owner: str, run: str, players: set[str]) -> dict[str, int]:
    return {p: 100 * (i + 1) for i, p in enumerate(sorted(players))}


# --------------------------------------------------------------------------------------------
# Moves alone
# --------------------------------------------------------------------------------------------


async def test_moves_alone_the_taker_accepts_reads_the_saved_state_and_answers() -> None:
    text = state().to_json()
    owning = FakeOwning("b", {lua.ACCEPT: ["ra", text]})
    bus, tables = FakeBus(), FakeTables()
    moves = Moves(owning, bus, FakeStates(), tables, ledger_take)
    moves.start()
    assert set(bus.handlers) == {Keys().inbox("b")}
    bus.deliver(Keys().inbox("b"), "offer t1 a")
    await asyncio.wait_for(bus.sent.wait(), TIMEOUT)
    assert owning.calls == [(lua.ACCEPT, [Keys().table("t1"), Keys().version],
                             ["a", "b", "rb", "ws://b/ws"])]
    [(adopted, stacks, exact)] = tables.adopted
    assert adopted == TableState.from_json(text) and exact
    assert adopted.decks == [DECK] and adopted.button == 3  # the test decks travel
    assert stacks == {"p-al": 100, "p-bo": 200}  # the ledger's, not the state's word
    assert bus.published == [(Keys().inbox("a"), "taken t1")]
    assert moves.adopted == ["t1"]
    await moves.close()
    assert bus.handlers == {}  # nothing heard any more


async def test_moves_alone_a_draining_taker_refuses_and_takes_nothing() -> None:
    owning = FakeOwning("b", {lua.ACCEPT: ["ra", state().to_json()]})
    owning.is_draining = True
    bus, tables = FakeBus(), FakeTables()
    moves = Moves(owning, bus, FakeStates(), tables, ledger_take)
    moves.start()
    bus.deliver(Keys().inbox("b"), "offer t1 a")
    await asyncio.wait_for(bus.sent.wait(), TIMEOUT)
    assert bus.published == [(Keys().inbox("a"), "refused t1")]
    assert owning.calls == [] and tables.adopted == []
    await moves.close()


async def test_moves_alone_the_owner_saves_offers_and_is_answered() -> None:
    owning = FakeOwning("a", {lua.OFFER: 1, lua.CANCEL: 1})
    bus, states = FakeBus(), FakeStates()
    moves = Moves(owning, bus, states, FakeTables(), ledger_take)
    moves.start()
    st = state()
    bus.answer = lambda c, m: (Keys().inbox("a"), "taken t1") if m.startswith("offer") else None
    assert await moves.offer(st, "b", "ws://b/ws") == "ws://b/ws"
    assert states.saved == [st]  # the one path of a table's state, before the offer
    assert owning.calls == [(lua.OFFER, [Keys().table("t1")], ["a", "ra", "b"])]
    assert bus.published == [(Keys().inbox("b"), "offer t1 a")]
    assert not moves.leaving("t1")

    bus.answer = lambda c, m: (Keys().inbox("a"), "refused t1") if m.startswith("offer") else None
    owning.calls.clear()
    assert await moves.offer(st, "b", "ws://b/ws") is None  # refused: withdrawn, it stays
    assert [c[0] for c in owning.calls] == [lua.OFFER, lua.CANCEL]
    await moves.close()


async def test_moves_alone_an_owner_that_no_longer_owns_the_table_offers_nothing() -> None:
    owning = FakeOwning("a", {lua.OFFER: 0})
    bus = FakeBus()
    moves = Moves(owning, bus, FakeStates(), FakeTables(), ledger_take)
    assert await moves.offer(state(), "b", "ws://b/ws") is None
    assert bus.published == []


# --------------------------------------------------------------------------------------------
# Failover alone
# --------------------------------------------------------------------------------------------


def steps(log: list[str], *, leased: bool = True) -> Steps:
    async def lease(lost: str, holder: str, seconds: float) -> bool:
        log.append(f"lease {lost} {holder} {seconds}")
        return leased

    async def release(lost: str, holder: str) -> None:
        log.append(f"release {lost}")

    async def void(lost: str) -> list[Any]:
        log.append(f"void {lost}")
        return []

    async def jackpot(lost: str) -> int:
        log.append(f"jackpot {lost}")
        return 0

    async def take(table: str, lost: str, run: str, players: set[str]) -> dict[str, int]:
        log.append(f"take {table} {run}")
        return await ledger_take(table, lost, run, players)

    async def rest(lost: str) -> dict[str, int]:
        log.append(f"rest {lost}")
        return {}

    return Steps(lease, release, void, jackpot, take, rest)


class NoWhere:
    async def now(self, table_id: str) -> tuple[str, str] | None:
        return None


async def test_failover_alone_takes_the_lease_then_the_tables_from_their_saved_state() -> None:
    saved = state()
    rows = ["t1", "ra", saved.to_json(), "t2", "ra", "", "p9-x", "ra", state("p9-x").to_json()]
    owning, tables = FakeOwning("b", {lua.TAKE: rows}), FakeTables()
    log: list[str] = []
    failover = Failover(owning, tables, NoWhere(), lambda: steps(log), 3.0)
    assert await failover.take("a") == ["t1"]  # t2 had no state, p9-x is a practice table
    assert log == ["lease a takeover:b:rb 3.0", "void a", "jackpot a", "take t1 ra", "rest a",
                   "release a"]
    [(code, _, args)] = owning.calls
    assert code == lua.TAKE and args[:4] == ["a", "b", "rb", "ws://b/ws"]
    assert owning.announced == 1
    [(adopted, stacks, exact)] = tables.adopted
    assert not exact and adopted.seq == saved.seq + SEQ_JUMP
    assert (adopted.button, adopted.blinds, adopted.hands) == (3, [4, 5], 7)  # the last hand's
    assert adopted.decks == [DECK]
    assert failover.taken == [("a", ["t1"])]


async def test_failover_alone_does_nothing_without_the_lease_or_when_it_may_not() -> None:
    owning, tables = FakeOwning("b", {lua.TAKE: []}), FakeTables()
    log: list[str] = []
    failover = Failover(owning, tables, NoWhere(), lambda: steps(log, leased=False), 3.0)
    assert await failover.take("a") is None
    assert owning.calls == [] and log == ["lease a takeover:b:rb 3.0"]
    owning.may = False
    log.clear()
    failover.lapsed(["a"])  # not steady, draining or lease lost: no task at all
    await failover.close()
    assert log == [] and failover.taken == []


# --------------------------------------------------------------------------------------------
# The subscriptions, on Redis
# --------------------------------------------------------------------------------------------


@pytest.mark.redis
async def test_one_connection_carries_every_channel_added_and_dropped_while_it_runs(
        redis_server: RedisProcess) -> None:
    redis = await Redis.connect(redis_server.url)
    bus = Subscriptions(lambda: redis, name="a")
    got: list[tuple[str, str, str]] = []
    seen = asyncio.Event()
    readies: list[str] = []

    def handler(tag: str) -> Callable[[str, str], None]:
        def heard(channel: str, message: str) -> None:
            got.append((tag, channel, message))
            if message == "last":
                seen.set()
        return heard

    def broken(channel: str, message: str) -> None:
        raise RuntimeError("a handler that fails")

    one, two = handler("one"), handler("two")
    try:
        bus.on("c1", one, ready=lambda: readies.append("c1"))
        bus.on("c1", broken)
        await bus.start()
        assert readies == ["c1"]
        subscribed = asyncio.Event()
        bus.on("c2", two, ready=subscribed.set)  # added while running
        await asyncio.wait_for(subscribed.wait(), TIMEOUT)
        assert await redis.publish("c1", "x") == 1 and await redis.publish("c2", "y") == 1
        bus.off("c1", one)
        bus.off("c1", broken)  # c1's last handler: unsubscribed
        await redis.publish("c2", "last")
        await asyncio.wait_for(seen.wait(), TIMEOUT)
        assert got == [("one", "c1", "x"), ("two", "c2", "y"), ("two", "c2", "last")]
        assert await redis.publish("c1", "nobody") == 0
        assert bus.channels() == {"c2"}
        clients = str(resp(redis_server.port, "CLIENT", "LIST", "TYPE", "pubsub"))
        assert len(clients.strip().splitlines()) == 1  # one connection for all of them

        again = asyncio.Event()
        bus.on("c2", handler("three"), ready=again.set)  # (subscribed already: ready at once)
        await asyncio.wait_for(again.wait(), TIMEOUT)
        back = asyncio.Event()
        bus.on("c3", handler("four"), ready=back.set)
        await asyncio.wait_for(back.wait(), TIMEOUT)
        back.clear()
        resp(redis_server.port, "CLIENT", "KILL", "TYPE", "pubsub")  # the connection drops
        await asyncio.wait_for(back.wait(), TIMEOUT)  # subscribed again: ready again
        seen.clear()
        await redis.publish("c3", "last")
        await asyncio.wait_for(seen.wait(), TIMEOUT)
        assert got[-1] == ("four", "c3", "last")
    finally:
        await bus.close()
        await redis.close()


# --------------------------------------------------------------------------------------------
# Where is table X, alone
# --------------------------------------------------------------------------------------------


class FakeRedis:
    """LOCATE's answer for every table, the look-ups counted."""

    def __init__(self, answer: list[str] | None) -> None:
        self.answer, self.lookups = answer, 0

    def script(self, code: str) -> Callable[..., Any]:
        assert code == lua.LOCATE

        async def run(keys: list[str], args: list[str]) -> list[str] | None:
            self.lookups += 1
            return self.answer
        return run


async def test_where_is_one_answer_the_copy_then_one_look_up_never_kept() -> None:
    copy = RoomCopy(nodes={"a": NodeInfo("a", "ws://a/ws"), "b": NodeInfo("b", "ws://b/ws")},
                    owner={"t1": "b", "t2": "a", "t3": "c", "t4": "b"}, unlisted={"t4"},
                    seated={"t1": frozenset({"p-al"})})
    redis = FakeRedis(["b", "ws://b/ws"])
    me = Me("a", "ra", "ws://a/ws", Keys())
    where = Where(me, lambda: copy, lambda: redis, lambda: ("lease:", ""))  # type: ignore[arg-type, return-value]
    assert where.owner("t1") == NodeInfo("b", "ws://b/ws")
    assert where.owner("t2") is None and where.owner("t3") is None  # here; a dead node's
    assert where.watchable("t1") and not where.watchable("t1", "p-al")  # a seated player
    assert not where.watchable("t4")  # a private table: `moved`, never served here
    assert where.live([("b", "row1"), ("c", "row3"), ("a", "row2")]) == ["row1", "row2"]
    assert await where.find("t1") == "ws://b/ws" and redis.lookups == 0  # from the copy
    assert await where.find("t9") == "ws://b/ws" and redis.lookups == 1  # one look-up
    assert not where.watchable("t9")  # (not kept: a table the copy does not list)
    assert await where.find("t9") == "ws://b/ws" and redis.lookups == 2
    redis.answer = ["a", "ws://a/ws"]
    assert await where.now("t2") is None  # Redis says this process: nowhere else


class FailingOverRedis:
    """LOCATE finds no live owner for ``dead`` look-ups, then ``answer``; the table's row
    (HGET node) is there while ``row`` is set. Every look-up counted."""

    def __init__(self, dead: int, answer: list[str] | None, row: str | None) -> None:
        self.dead, self.answer, self.row, self.lookups = dead, answer, row, 0

    def script(self, code: str) -> Callable[..., Any]:
        assert code == lua.LOCATE

        async def run(keys: list[str], args: list[str]) -> list[str] | None:
            self.lookups += 1
            return None if self.lookups <= self.dead else self.answer
        return run

    async def call(self, *args: Any) -> str | None:
        assert args[0] == "HGET" and args[2] == "node"
        return self.row


async def test_where_waits_out_a_failover_instead_of_unknown_table() -> None:
    """A table whose owner's lease ran out is still the room's (its row is there): `find`
    asks again until a survivor owns it (its URL: `moved`, not `unknown_table`), or this very
    process took it (its own URL), within `failover_wait`; a table the room dropped is
    nowhere at once."""
    copy = RoomCopy(nodes={"a": NodeInfo("a", "ws://a/ws")}, owner={}, unlisted=set(),
                    seated={})
    me = Me("a", "ra", "ws://a/ws", Keys())

    def where_of(redis: Any, *, here: bool = False, wait: float = 5.0) -> Where:
        return Where(me, lambda: copy, lambda: redis, lambda: ("lease:", ""),
                     failover_wait=wait, poll=0.0, here=lambda table_id: here)

    taken = FailingOverRedis(dead=3, answer=["c", "ws://c/ws"], row="b")
    assert await where_of(taken).find("t1") == "ws://c/ws" and taken.lookups == 4
    mine = FailingOverRedis(dead=10**9, answer=None, row="a")
    assert await where_of(mine, here=True).find("t1") == "ws://a/ws"
    gone = FailingOverRedis(dead=10**9, answer=None, row=None)
    assert await where_of(gone).find("t1") is None and gone.lookups == 1
    stuck = FailingOverRedis(dead=10**9, answer=None, row="b")
    assert await where_of(stuck, wait=0.0).find("t1") is None and stuck.lookups == 1
