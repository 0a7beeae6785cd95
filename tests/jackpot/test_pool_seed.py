"""CSP-08 and CSP-12: a new pool opens at the reset amount, paid by the house and booked in the
ledger exactly once (however many processes race to open it), and the pool survives every
restart: of the embedded store (its data dir) as of Redis."""

from __future__ import annotations

import asyncio
import functools
from pathlib import Path

from server.jackpot.base import Claim
from server.jackpot.durable import PoolFile
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import OUTBOX, JackpotService, credit_payout, encode_report
from server.ledger.journal import JACKPOT_HOUSE, JACKPOT_POOL, Ledger
from server.ledger.sqlite_store import SqliteStore
from server.ledger.wallet import LedgerWallet
from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.net.conftest import start_live, test_config
from tests.redis_helpers import RedisProcess

RESET = CaribbeanSettings().reset_amount  # $10,000 (RULES CSP-08 default)
S = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)
SPLIT = CaribbeanSettings(split_pools=True)


def wager(hand: str, seat: int = 0, amount: int = 100, s: CaribbeanSettings = S
          ) -> Contribution:
    minor, major, house = s.split_wager(amount)
    return Contribution(hand, seat, amount, minor + major, minor, major, house)


async def open_ledger(path: Path) -> Ledger:
    store = SqliteStore(path / "ledger.db")
    await store.open()
    return Ledger(store, node="n1")


async def seed_bookings(ledger: Ledger) -> list[tuple[str, str, int]]:
    return [(e.src, e.dst, e.amount) for e in await ledger.store.journal(0, 10_000)
            if e.reason == "jackpot_seed"]


async def test_csp08_fresh_pool_opens_at_the_reset_amount_on_both_coordinators(
        redis_server: RedisProcess) -> None:
    """CSP-08: a new pool reads the reset amount ($10,000 by default), not 0, on the embedded
    and on the Redis coordinator; the house paid it (one ``seed`` entry, the totals balance)."""
    mem = MemoryCoordinator()
    red = await RedisCoordinator.connect(redis_server.url)
    for coord in (mem, red):
        st = await coord.state()
        assert (st.minor, st.major, st.split) == (0, RESET, False)
        assert (st.seeded, st.house, st.contributed, st.paid) == (RESET, -RESET, 0, 0)
        assert [(e.kind, e.pool, e.amount) for e in await coord.history()] == [
            ("seed", "major", RESET)]
    await red.close()


async def test_csp08_csp11_split_pools_each_open_at_their_own_reset_amount(
        redis_server: RedisProcess) -> None:
    """CSP-08/CSP-11: with split pools the minor pool opens at the minor reset amount and the
    major pool at the major one, on both coordinators; the meter shows both from the start."""
    mem = MemoryCoordinator(terms=SPLIT)
    red = await RedisCoordinator.connect(redis_server.url, terms=SPLIT)
    for coord in (mem, red):
        st = await coord.state()
        assert (st.minor, st.major, st.split) == (SPLIT.minor_reset_amount, RESET, True)
        assert st.seeded == RESET + SPLIT.minor_reset_amount == -st.house
        assert sorted((e.kind, e.pool, e.amount) for e in await coord.history()) == [
            ("seed", "major", RESET), ("seed", "minor", SPLIT.minor_reset_amount)]
    await red.close()


async def test_csp08_csp12_two_coordinators_racing_on_one_redis_seed_once(
        redis_server: RedisProcess) -> None:
    """CSP-08/CSP-12: several processes open the same pool at the same moment: exactly one
    seeds it (one atomic script); the pool is the reset amount once, not twice."""
    coords = await asyncio.gather(*(RedisCoordinator.connect(redis_server.url)
                                    for _ in range(8)))
    again = await asyncio.gather(*(c.init(RESET) for c in coords))
    assert not any(again)  # already open: nobody seeds a second time
    st = await coords[0].state()
    assert (st.major, st.seeded, st.house) == (RESET, RESET, -RESET)
    assert [e.kind for e in await coords[0].history()] == ["seed"]
    await asyncio.gather(*(c.close() for c in coords))


async def test_csp08_csp12_seed_booked_once_in_the_ledger_house_paid_it(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-08/CSP-12: the opening seed is booked ``jackpot:house`` -> ``jackpot:pool`` once,
    however many services start (restarts, several processes on one Redis); the journal
    balances (the accounts sum to 0) and the ledger's pool is the coordinator's."""
    for kind in ("memory", "redis"):
        ledger = await open_ledger(tmp_path / kind)
        for _ in range(3):  # a first start, then restarts (or other processes)
            if kind == "memory":
                coord: MemoryCoordinator | RedisCoordinator = MemoryCoordinator(
                    file=PoolFile(tmp_path / kind / "jackpot.sqlite3"))
            else:
                coord = await RedisCoordinator.connect(redis_server.url, prefix="seeded")
            svc = JackpotService(coord, owner="n1", ledger=ledger)
            await svc.start()
            assert await seed_bookings(ledger) == [(JACKPOT_HOUSE, JACKPOT_POOL, RESET)]
            assert await ledger.balance(JACKPOT_POOL) == (await coord.state()).major == RESET
            assert await ledger.balance(JACKPOT_HOUSE) == -RESET
            assert await ledger.total() == 0
            await svc.close()
        await ledger.store.close()


async def test_csp08_embedded_store_restart_keeps_the_pool(tmp_path: Path) -> None:
    """CSP-08: stop the embedded store and reopen the same data dir: the pool is what it was
    (1,000,000 stays 1,000,000; 1,000,070 after a wager stays 1,000,070), with its totals,
    its history and its payout records; it is not seeded again and not 0."""
    path = tmp_path / "data" / "jackpot.sqlite3"
    first = MemoryCoordinator(lease=3.0, file=PoolFile(path))
    await first.load()
    assert (await first.state()).major == RESET == 1_000_000
    await first.close()
    second = MemoryCoordinator(file=PoolFile(path))
    await second.load()
    assert (await second.state()).major == 1_000_000
    await second.register("t1.1", owner="n1")
    await second.report("t1.1", owner="n1", table="t1", settings=S,
                        contributions=[wager("t1.1", 0), wager("t1.1", 1)],
                        claims=[Claim("t1.1", 2, "ann", "flush", 3)])
    before = await second.state()
    assert before.major == 1_000_000 + 140 - 5_000 and before.paid == 5_000
    await second.close()

    third = MemoryCoordinator(file=PoolFile(path))
    await third.load()
    assert await third.state() == before
    assert [e.kind for e in await third.history()] == ["seed", "contribution", "contribution",
                                                       "payout"]
    assert [p.key for p in await third.due()] == ["t1.1:2"]  # not credited yet: still due
    # CSP-12: the same report again (a retry after the restart) adds and pays nothing
    assert await third.report("t1.1", owner="n1", table="t1", settings=S,
                              contributions=[wager("t1.1", 0), wager("t1.1", 1)],
                              claims=[Claim("t1.1", 2, "ann", "flush", 3)]) == []
    await third.credited("t1.1:2")
    assert await third.state() == before
    await third.close()
    fourth = MemoryCoordinator(file=PoolFile(path))
    await fourth.load()
    assert await fourth.due() == [] and await fourth.state() == before
    await fourth.close()


async def test_csp08_embedded_server_restart_keeps_the_pool(tmp_path: Path) -> None:
    """CSP-08: the embedded server (no Redis) stopped and started again on its data dir shows
    the same pool; the ledger booked the opening seed once."""
    config = test_config(tmp_path)
    server = await start_live(config)
    try:
        assert server.app.jackpot is not None
        assert (await server.app.jackpot.state()).major == RESET
        server.app.jackpot.hand_settled("t1.1", table="t1", settings=S,
                                        contributions=[wager("t1.1")], claims=[])
        assert (await server.app.jackpot.state()).major == RESET + 70
    finally:
        await server.close()
    again = await start_live(config)
    try:
        assert again.app.jackpot is not None
        st = await again.app.jackpot.state()
        assert (st.major, st.seeded, st.contributed) == (RESET + 70, RESET, 70)
        assert await seed_bookings(again.app.wallet.ledger) == [
            (JACKPOT_HOUSE, JACKPOT_POOL, RESET)]
    finally:
        await again.close()


async def test_csp12_embedded_report_left_in_the_outbox_is_added_once_after_restart(
        tmp_path: Path) -> None:
    """CSP-12: the embedded server died after a hand's result (its report in the ledger's
    outbox) but before its pool change reached the pool file: the next start adds the wager
    once; a record replayed again (a crash before its deletion) adds nothing."""
    ledger = await open_ledger(tmp_path)
    args = {"owner": "n1", "table": "t1", "settings": S, "contributions": [wager("t1.1@n1")],
            "claims": []}
    record = (f"{OUTBOX}t1.1@n1", encode_report(args))
    for _ in range(2):
        await ledger.store.outbox_put(*record)
        coord = MemoryCoordinator(file=PoolFile(tmp_path / "jackpot.sqlite3"))
        svc = JackpotService(coord, owner="n1", ledger=ledger)
        await svc.start()
        st = await coord.state()
        assert (st.major, st.contributed) == (RESET + 70, 70)
        assert await ledger.outbox(OUTBOX) == []
        await svc.close()
    await ledger.store.close()


async def test_csp08_redis_restart_keeps_the_pool_and_does_not_seed_again(
        redis_server: RedisProcess) -> None:
    """CSP-08: Redis (append-only) restarted: a new coordinator sees the same pool, totals and
    history, and does not seed again."""
    coord = await RedisCoordinator.connect(redis_server.url)
    await coord.report("t1.1", owner="n1", table="t1", settings=S,
                       contributions=[wager("t1.1")], claims=[])
    before = await coord.state()
    assert before.major == RESET + 70
    await coord.close()
    redis_server.restart()
    after = await RedisCoordinator.connect(redis_server.url)
    assert await after.state() == before
    assert [e.kind for e in await after.history()] == ["seed", "contribution"]
    await after.close()


async def test_csp08_reseed_after_a_payout_below_the_reset_amount_is_booked(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-08: the pool opens at the reset amount (10,000 here), a royal flush takes it all,
    the pool is reseeded to 10,000: seed and reseed are both booked house -> pool, the
    ledger's pool is the coordinator's and the accounts sum to 0, on both coordinators."""
    for kind in ("memory", "redis"):
        ledger = await open_ledger(tmp_path / kind)
        await ledger.open_player("bob", 0)
        wallet = LedgerWallet(ledger)
        if kind == "memory":
            coord: MemoryCoordinator | RedisCoordinator = MemoryCoordinator(
                terms=S, file=PoolFile(tmp_path / kind / "jackpot.sqlite3"))
        else:
            coord = await RedisCoordinator.connect(redis_server.url, terms=S)
        svc = JackpotService(coord, owner="n1", ledger=ledger,
                             credit=functools.partial(credit_payout, wallet))
        await svc.start()
        assert (await coord.state()).major == 10_000
        svc.hand_eligible("t1.1")
        svc.hand_settled("t1.1", table="t1", settings=S, contributions=[],
                         claims=[Claim("t1.1", 0, "bob", "royal_flush", 4)])
        await svc.all_paid()
        st = await coord.state()
        assert (st.major, st.paid, st.seeded) == (10_000, 10_000, 20_000)
        reasons = [(e.reason, e.amount) for e in await ledger.store.journal(0, 100)
                   if e.reason.startswith("jackpot_")]
        assert reasons == [("jackpot_seed", 10_000), ("jackpot_reseed", 10_000),
                           ("jackpot_payout", 10_000)]
        assert await ledger.balance(JACKPOT_POOL) == st.major
        assert await ledger.balance(JACKPOT_HOUSE) == st.house == -20_000
        assert await ledger.balance("player:bob") == 10_000
        assert await ledger.total() == 0
        await svc.close()
        await ledger.store.close()
