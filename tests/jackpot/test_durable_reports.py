"""CSP-12 and CSP-08 through the ledger.

A settled round's report is written to the ledger's outbox in the same atomic batch as the
table's hand result (with the house share of its wagers), queued for the coordinator only once
that batch is durable, deleted once booked, and replayed at the next start after a crash: each
wager reaches the pool exactly once.  Reseeds and house shortfalls are booked
``jackpot:house`` -> ``jackpot:pool``, so the ledger's pool account follows the coordinator's."""

from __future__ import annotations

import asyncio
from pathlib import Path

from server.jackpot.base import Claim
from server.jackpot.memory import MemoryCoordinator
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import OUTBOX, JackpotService, credit_payout
from server.ledger.journal import JACKPOT_HOUSE, JACKPOT_POOL, Ledger, hand_entries
from server.ledger.sqlite_store import SqliteStore
from server.ledger.wallet import LedgerWallet
from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.redis_helpers import RedisProcess

S = CaribbeanSettings(reset_amount=10_000, royal_minimum=10_000)  # wager 100: 70 pool, 30 house


async def open_ledger(tmp_path: Path) -> Ledger:
    store = SqliteStore(tmp_path / "ledger.db")
    await store.open()
    ledger = Ledger(store, node="n1")
    for player in ("ann", "bob"):
        await ledger.open_player(player, 10_000)
    return ledger


async def play(svc: JackpotService, ledger: Ledger, hand_id: str,
               claims: tuple[str, str] | None = None) -> None:
    """One Caribbean round at table t1 as the table runs it: ann's jackpot wager (100) is
    collected; ``claims``: (player, jackpot hand) of bob at seat 1, whose wager is returned."""
    hand = f"{hand_id}@n1"
    assert await ledger.buy_in("ann", "t1", 100, reason="buy_in")
    await ledger.hand_started("t1", hand_id, {"ann": 100})
    svc.hand_eligible(hand)
    claim = [Claim(hand, 1, claims[0], claims[1], 3)] if claims else []
    svc.hand_settled(hand, table="t1", settings=S,
                     contributions=[Contribution(hand, 0, 100, 70, 0, 70, 30)], claims=claim,
                     ledger_hand=hand_id)
    await ledger.hand_result("t1", hand_id, hand_entries({"ann": 100}, {"ann": 0},
                                                         jackpot_in=100))


def crash(svc: JackpotService) -> None:
    """The process dies now: nothing queued in memory is sent (no await before this)."""
    svc.closed = True
    for task in svc._tasks:
        task.cancel()


async def test_csp12_report_lost_in_memory_by_a_crash_is_replayed_once(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-12: a crash after the hand result but before the worker booked the round's report:
    the report is in the ledger's outbox (written with the hand result); the next start
    replays it and the pool gets the wager's share once; replaying it again changes nothing."""
    ledger = await open_ledger(tmp_path)
    coord = await RedisCoordinator.connect(redis_server.url)
    first = JackpotService(coord, owner="n1", ledger=ledger)
    await first.start()
    await play(first, ledger, "t1.1")
    crash(first)
    await asyncio.sleep(0)
    await coord.close()

    check = await RedisCoordinator.connect(redis_server.url)
    assert (await check.state()).contributed == 0  # the report never reached Redis
    saved = await ledger.outbox(OUTBOX)
    assert [k for k, _ in saved] == [f"{OUTBOX}t1.1@n1"]
    # the opening seed (CSP-08, booked at start) and the hand's wager, less the house share
    assert await ledger.balance(JACKPOT_POOL) == 1_000_000 + 70
    assert await ledger.balance(JACKPOT_HOUSE) == 30 - 1_000_000

    for _ in range(2):  # the restart, then the same record replayed once more
        svc = JackpotService(await RedisCoordinator.connect(redis_server.url), owner="n1",
                             ledger=ledger)
        await svc.start()
        await svc.drain()
        st = await check.state()
        assert (st.contributed, st.major) == (70, 1_000_070)
        assert await ledger.outbox(OUTBOX) == []  # deleted once booked
        await svc.close()
        await ledger.store.outbox_put(*saved[0])
    assert await ledger.total() == 0
    await check.close()
    await ledger.store.close()


async def test_csp12_booked_report_leaves_no_outbox_record(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-12: without a crash the outbox record is deleted once the report is booked, and
    a round voided before its result never reaches the pool."""
    ledger = await open_ledger(tmp_path)
    svc = JackpotService(await RedisCoordinator.connect(redis_server.url), owner="n1",
                         ledger=ledger)
    await svc.start()
    await play(svc, ledger, "t1.1")
    await svc.drain()
    assert await ledger.outbox() == []
    hand = "t1.2@n1"
    svc.hand_settled(hand, table="t1", settings=S,
                     contributions=[Contribution(hand, 0, 100, 70, 0, 70, 30)], claims=[],
                     ledger_hand="t1.2")
    await ledger.hand_voided("t1", "t1.2", reason="test")
    await svc.drain()
    assert (await svc.state()).contributed == 70
    assert await ledger.outbox() == []
    await svc.close()
    await ledger.store.close()


async def test_csp08_reseed_and_shortfall_booked_in_ledger(tmp_path: Path) -> None:
    """CSP-08/CSP-09: a royal flush paid with a house shortfall (minimum above the pool) and
    the reseed after it are booked jackpot:house -> jackpot:pool: the ledger's pool account
    equals the coordinator's pool after every round, and the accounts still sum to 0."""
    ledger = await open_ledger(tmp_path)
    wallet = LedgerWallet(ledger)
    coord = MemoryCoordinator(seed=0)  # an empty pool: the royal's minimum is above it
    svc = JackpotService(coord, owner="n1", ledger=ledger,
                         credit=lambda p: credit_payout(wallet, p))
    await svc.start()
    await play(svc, ledger, "t1.1")
    await play(svc, ledger, "t1.2", claims=("bob", "royal_flush"))
    await svc.all_paid()
    await svc.drain()
    st = await coord.state()
    assert st.major == 10_000 and st.paid == 10_000  # 140 in the pool, 9,860 short, reseeded
    kinds = [e.kind for e in await coord.history()]
    assert "shortfall" in kinds and "reseed" in kinds
    assert await ledger.balance(JACKPOT_POOL) == st.major
    assert await ledger.balance(JACKPOT_HOUSE) == st.house
    await play(svc, ledger, "t1.3", claims=("bob", "flush"))
    await svc.all_paid()
    await svc.drain()
    st = await coord.state()
    assert await ledger.balance(JACKPOT_POOL) == st.major == 10_000  # 5,070 left: reseeded
    assert await ledger.balance(JACKPOT_HOUSE) == st.house
    # a restarted service reads the whole history again: nothing booked twice
    again = JackpotService(coord, owner="n1", ledger=ledger,
                           credit=lambda p: credit_payout(wallet, p))
    await again.start()
    assert await ledger.balance(JACKPOT_POOL) == st.major
    assert await ledger.balance("player:bob") == 10_000 + 10_000 + 5_000
    assert await ledger.total() == 0
    await ledger.store.close()
