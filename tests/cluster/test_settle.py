"""Issue 26: settling writes acknowledged before broadcast. With
``Config.redis_wait_replicas`` > 0 a hand's result batch (the ledger's ``hand_result``) and a
jackpot payout's credit go through ``Redis.settle`` (the script, then ``WAIT``); other batches
do not. On a primary with one replica of the test's own: a settled write is on the replica when
``apply`` returns; with no replica the write stands and is counted ``short``.

The order on the table's side (its hand's end reaches players only after the ledger's write
returned) is shown with a wallet whose ``hand_result`` waits on an event: no ``hand_ended``
frame is sent before it is released.

Every wait is on an event with a timeout; never a sleep.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from websockets.asyncio.client import connect

from protocol import SUBPROTOCOL_JSON, parse_request
from server.ledger.journal import BANK, Ledger, player_account
from server.ledger.redis_store import RedisStore
from server.ledger.store import Batch, Transfer
from server.redis_resp import RespConnection
from server.redisio import Redis
from server.table import Envelope
from tests.net.conftest import Client, start_subprocess
from tests.redis_helpers import RedisProcess, resp
from tests.table.helpers import Harness

TIMEOUT = 10.0


@pytest.fixture
def replica(redis_server: RedisProcess, tmp_path: Path) -> Iterator[RedisProcess]:
    """A replica of the test's redis-server, in sync before the test starts."""
    rep = RedisProcess(tmp_path / "replica",
                       extra=("--replicaof", "127.0.0.1", str(redis_server.port)))
    rep.start()
    try:
        for _ in range(100):  # a replica's first sync: the primary's WAIT is the wait
            if resp(redis_server.port, "WAIT", "1", "100") == 1 and \
                    "master_link_status:up" in str(resp(rep.port, "INFO", "replication")):
                break
        else:
            raise AssertionError("the replica never synced")
        yield rep
    finally:
        rep.kill()


@pytest.mark.redis
async def test_every_batch_moving_chips_is_settled_a_hands_start_mark_is_not(
        redis_server: RedisProcess, replica: RedisProcess) -> None:
    redis = await Redis.connect(redis_server.url)
    store = RedisStore(redis, wait_replicas=1, wait_timeout_ms=5000)
    await store.open()
    try:
        ledger = Ledger(store, node="a")
        await ledger.apply([Transfer(BANK, player_account("p1"), 100, "open")], key="o1")
        assert (store.settled, store.short) == (1, 0)  # chips moved (a buy-in alike): settled
        await ledger.hand_started("t1", "h1", {"p1": 0})
        assert (store.settled, store.short) == (1, 0)  # a hand's start mark moves none: plain
        await ledger.hand_result("t1", "h1", [])
        assert (store.settled, store.short) == (2, 0)  # the hand's result: settled
        await ledger.transfer(BANK, player_account("p1"), 5, reason="jackpot_payout",
                              key="jackpot:k1")
        assert (store.settled, store.short) == (3, 0)  # a payout's credit: settled
        on_replica = resp(replica.port, "HGET", "ledger:{room}:bal", player_account("p1"))
        assert on_replica == "105"  # it was on the replica when apply returned
    finally:
        await store.close()
        await redis.close()


@pytest.mark.redis
async def test_a_settling_write_is_held_until_a_replica_has_it(
        redis_server: RedisProcess, replica: RedisProcess) -> None:
    """Issue 26, money acknowledged once it is replicated: with the replica frozen (SIGSTOP)
    a hand's result is written on the primary, but every ``WAIT`` round (50 ms) comes back
    short, so ``apply`` does not return (the table tells no player) until the replica,
    resumed, acknowledges it. Nothing is counted short. Rounds seen on ``MONITOR``."""
    assert replica.proc is not None
    redis = await Redis.connect(redis_server.url)
    store = RedisStore(redis, wait_replicas=1, wait_timeout_ms=50)
    await store.open()
    monitor = await RespConnection.open("127.0.0.1", redis_server.port)
    try:
        monitor.write(("MONITOR",))
        assert await asyncio.wait_for(monitor.read(), TIMEOUT) == "OK"
        replica.proc.send_signal(signal.SIGSTOP)
        task = asyncio.ensure_future(store.apply(Batch(
            (Transfer(BANK, player_account("p"), 7, "x"),), key="k", close_hand="none")))
        waits = 0
        while waits < 4:  # (the first round twice: NOSCRIPT, then EVAL) and two more rounds
            if '"WAIT"' in str(await asyncio.wait_for(monitor.read(), TIMEOUT)):
                waits += 1
        assert not task.done(), "a write no replica has was acknowledged"
        assert await store.balance(player_account("p")) == 7  # on the primary: not yet told
        replica.proc.send_signal(signal.SIGCONT)
        outcome = await asyncio.wait_for(task, TIMEOUT)
        assert outcome.ok and (store.settled, store.short) == (1, 0)
        assert resp(replica.port, "HGET", "ledger:{room}:bal", player_account("p")) == "7"
    finally:
        replica.proc.send_signal(signal.SIGCONT)
        monitor.close()
        await store.close()
        await redis.close()


@pytest.mark.redis
async def test_a_settling_write_with_no_replica_stands_once_given_up_and_is_counted_short(
        redis_server: RedisProcess) -> None:
    """``wait_give_up_ms`` (``Config.redis_wait_give_up_ms``): an operator who prefers a room
    that plays on without its replicas; the write stands after that long, counted short."""
    redis = await Redis.connect(redis_server.url)
    store = RedisStore(redis, wait_replicas=1, wait_timeout_ms=20, wait_give_up_ms=60)
    await store.open()
    try:
        outcome = await store.apply(Batch((Transfer(BANK, player_account("p"), 7, "x"),),
                                          key="k", close_hand="nothing-open"))
        assert outcome.ok and (store.settled, store.short) == (1, 1)
        assert await store.balance(player_account("p")) == 7
    finally:
        await store.close()
        await redis.close()


async def test_the_hands_end_reaches_players_only_after_the_ledger_write_returned() -> None:
    h = Harness()
    table = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]},
                     seats=6)
    alice, bob = h.player("alice"), h.player("bob")
    for sink, seat in ((alice, 0), (bob, 3)):
        assert (await h.send(table, sink, "sit", seat=seat, buy_in=500))["type"] == "ok"
    await h.advance(table, 3.0)  # the pause, then the first hand
    [turn] = alice.of("turn")
    actor = alice if turn["seat"] == 0 else bob

    entered, release = asyncio.Event(), asyncio.Event()
    written = h.wallet.hand_result

    async def settling(table_id: str, hand_id: str, entries: Sequence[Transfer]) -> None:
        entered.set()  # (a settling write waiting for its WAIT)
        await release.wait()
        await written(table_id, hand_id, entries)

    h.wallet.hand_result = settling  # type: ignore[method-assign, assignment]
    await table.submit(Envelope(parse_request(
        {"type": "act", "rid": 99, "table": table.table_id, "action": "fold"}), actor))
    await asyncio.wait_for(entered.wait(), TIMEOUT)
    assert not alice.of("hand_ended") and not bob.of("hand_ended")  # nobody sees the end yet
    release.set()
    await table.idle()
    assert len(alice.of("hand_ended")) == len(bob.of("hand_ended")) == 1


@pytest.mark.redis
async def test_the_jackpot_meter_is_published_only_after_its_write_settled(
        redis_server: RedisProcess) -> None:
    """Issue 26: a settling jackpot write's meter message (the pools every screen shows) is
    published by the coordinator once ``WAIT`` has returned, never from inside the script:
    with no replica, ``WAIT`` blocks for its timeout (given up then), and the message heard
    carries a pool that the ``settled`` count already includes. A write that does not settle (no
    contribution, no claim) publishes from the script as before."""
    from server.jackpot.redis_coord import RedisCoordinator
    from server.rules.caribbean_payout import CaribbeanSettings, Contribution

    coord = await RedisCoordinator.connect(redis_server.url, seed=0, wait_replicas=1,
                                           wait_timeout_ms=300, wait_give_up_ms=300)
    listener = await Redis.connect(redis_server.url)
    heard: asyncio.Queue[tuple[int, str]] = asyncio.Queue()

    async def listen() -> None:
        async for _, text in listener.subscribe(coord.channel):
            heard.put_nowait((coord.settled, text))

    task = asyncio.get_running_loop().create_task(listen())
    try:
        await asyncio.wait_for(_subscribed(redis_server, coord.channel), TIMEOUT)
        settings = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)
        minor, major, house = settings.split_wager(100)
        await coord.register("t1.1", owner="p")
        await coord.report("t1.1", owner="p", table="t1", settings=settings, claims=[],
                           contributions=[Contribution("t1.1", 0, 100, minor + major, minor,
                                                       major, house)])
        settled_then, text = await asyncio.wait_for(heard.get(), TIMEOUT)
        assert coord.settled == 1 and coord.short == 1  # (no replica: WAIT timed out)
        assert settled_then == 1, "the meter was heard before its write settled"
        assert text.split()[1] == str(major)
    finally:
        task.cancel()
        await listener.close()
        await coord.redis.close()


async def _subscribed(redis: RedisProcess, channel: str) -> None:
    """Until the listener's subscription is in place (Redis counts it)."""
    while True:
        counts = resp(redis.port, "PUBSUB", "NUMSUB", channel)
        if isinstance(counts, list) and int(counts[1]) > 0:
            return
        await asyncio.sleep(0.01)  # (bounded by the caller's timeout: the subscription)


@pytest.mark.redis
async def test_players_hear_a_hands_end_only_once_a_replica_has_its_result(
        redis_server: RedisProcess, replica: RedisProcess, tmp_path: Path) -> None:
    """As deployed: a real ``poker-server --redis`` with ``redis_wait_replicas=1``. With the
    replica frozen, Bob folds: the hand's result is written, its ``WAIT`` rounds come back
    short (seen on ``MONITOR``), and neither player hears ``hand_ended`` (a ``ping`` round
    trip flushes what the server had sent); the replica resumed, both hear it, with the
    stacks the replica holds."""
    assert replica.proc is not None
    server = start_subprocess(tmp_path, "--redis", redis_server.url, "--set",
                              "redis_wait_replicas=1", "--set", "redis_wait_timeout_ms=50")
    monitor = await RespConnection.open("127.0.0.1", redis_server.port)
    try:
        alice, bob = [Client(ws=await connect(server.ws_url, ping_interval=None),
                             subprotocol=SUBPROTOCOL_JSON) for _ in range(2)]
        await alice.hello("Alice")
        await bob.hello("Bob")
        answer = await alice.request("create_table", variant="holdem", structure="no_limit",
                                     stakes={"blinds": [50, 100]}, seats=2,
                                     settings={"pause": 0})
        table = answer["table"]
        for client, seat in ((alice, 0), (bob, 1)):
            assert (await client.request("sit", table=table, seat=seat,
                                         buy_in=5000))["type"] == "ok"
        turn = await alice.event("turn", table=table)
        actor = alice if turn["seat"] == 0 else bob
        monitor.write(("MONITOR",))
        assert await asyncio.wait_for(monitor.read(), TIMEOUT) == "OK"
        replica.proc.send_signal(signal.SIGSTOP)
        assert (await actor.request("act", table=table, action="fold"))["type"] == "ok"
        waits = 0
        while waits < 3:
            if '"WAIT"' in str(await asyncio.wait_for(monitor.read(), TIMEOUT)):
                waits += 1
        for client in (alice, bob):
            assert (await client.request("ping"))["type"] == "pong"
            assert not [e for e in client.events if e["type"] == "hand_ended"], client.events
        replica.proc.send_signal(signal.SIGCONT)
        ended = [await c.event("hand_ended", table=table) for c in (alice, bob)]
        assert ended[0]["stacks"] == ended[1]["stacks"]
        assert sorted(ended[0]["stacks"].values()) == [4950, 5050]  # the small blind lost
    finally:
        replica.proc.send_signal(signal.SIGCONT)
        monitor.close()
        server.proc.terminate()
        await asyncio.to_thread(server.proc.wait, 30)
