"""Issue 26: the shared jackpot's bookings and payouts carry the writer's fencing token
(server.ledger.lease) and its Lua scripts refuse a stale one (``STALE_TOKEN`` ->
``StaleLease``, the lease lost): a registration, a report (a booking), a batch, an advance and
a payout's ``credited`` of a process whose node was taken over write nothing. A real
redis-server of the test's own; the lease clock of the coordinator is injected.
"""

from __future__ import annotations

import pytest

from server.jackpot.base import Claim
from server.jackpot.redis_coord import RedisCoordinator
from server.ledger.lease import Lease, StaleLease
from server.ledger.redis_store import RedisStore
from server.redisio import Redis
from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.jackpot.conftest import LEASE, FakeClock
from tests.redis_helpers import RedisProcess

pytestmark = pytest.mark.redis

S = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)
SECONDS = 60.0


def contribution(hand: str, seat: int, wager: int = 100) -> Contribution:
    minor, major, house = S.split_wager(wager)
    return Contribution(hand, seat, wager, minor + major, minor, major, house)


async def test_a_stale_token_books_and_pays_nothing(redis_server: RedisProcess) -> None:
    redis = await Redis.connect(redis_server.url, poolsize=4)
    store = RedisStore(redis)
    await store.open()
    coord = RedisCoordinator(redis, lease=LEASE, now=FakeClock())
    await coord.init(0)
    lease = Lease(store, "a", "r1")
    await lease.claim(SECONDS)
    coord.node_lease = lease
    try:
        await coord.register("t1.1", owner="a")
        paid = await coord.report("t1.1", owner="a", table="t1", settings=S,
                                  contributions=[contribution("t1.1", 0, 1000)],
                                  claims=[Claim("t1.1", 3, "ann", "flush", 3)])
        assert [p.key for p in paid] == ["t1.1:3"]  # fenced, current: booked and due
        await coord.register("t1.2", owner="a")
        # a survivor takes node a over (its lease lapsed): a's token moves on
        await store.release_lease("a", "r1")
        assert (await store.acquire_lease("a", "takeover:b:x", SECONDS)).holder \
            == "takeover:b:x"
        before, history = await coord.state(), len(await coord.history())
        with pytest.raises(StaleLease):  # a late booking of the cut-off process
            await coord.report("t1.2", owner="a", table="t1", settings=S,
                               contributions=[contribution("t1.2", 0, 1000)],
                               claims=[Claim("t1.2", 1, "bob", "flush", 5)])
        assert lease.lost is not None and not lease.held
        assert await coord.state() == before and len(await coord.history()) == history
        lease.lost = None  # (as if it had not noticed yet: the script itself refuses)
        for late in (coord.credited("t1.1:3"), coord.register("t1.3", owner="a"),
                     coord.advance(), coord.renew(["t1.2"]),
                     coord.batch([("register", "t1.4", {"owner": "a"})])):
            with pytest.raises(StaleLease):
                await late
            lease.lost = None
        assert [p.key for p in await coord.due()] == ["t1.1:3"]  # the payout: not credited
        assert await coord.state() == before and len(await coord.history()) == history
        coord.node_lease = None  # the survivor's writes (unfenced here) go through
        await coord.credited("t1.1:3")
        assert await coord.due() == []
    finally:
        await lease.release()
        await redis.close()
