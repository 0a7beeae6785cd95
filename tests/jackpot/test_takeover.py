"""The jackpot side of a failover (issue 17, :func:`server.jackpot.takeover.take_over`), with
the Redis coordinator and a ledger store shared by the processes: a payout record a lost
process ``x`` never credited is credited by the survivor, to the right player, exactly once
(the ledger's idempotency key is the claim's; two survivors that both credit it pay it once);
a report ``x`` made durable in the outbox (``jackpot:report:<hand>@x.<scope>``) but never saw
booked reaches the pools once, however many times it is replayed and by whom; another
process's payout records and outbox records are left alone (CSP-12)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from server.jackpot.base import Claim, Payout
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import OUTBOX, JackpotService, credit_payout, encode_report
from server.jackpot.takeover import take_over
from server.ledger.journal import JACKPOT_POOL, Ledger, hand_entries, player_account
from server.ledger.sqlite_store import SqliteStore
from server.ledger.wallet import LedgerWallet
from server.rules.caribbean_payout import CaribbeanSettings, Contribution
from tests.redis_helpers import RedisProcess

S = CaribbeanSettings(reset_amount=10_000)  # a jackpot wager of 100: 70 to the pool, 30 house
START = 10_000
SEED = 50_000


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    """The ledger store every process of the test shares."""
    sq = SqliteStore(tmp_path / "ledger.db")
    await sq.open()
    try:
        yield sq
    finally:
        await sq.close()


async def survivor(url: str, store: SqliteStore, node: str) -> tuple[JackpotService, Ledger]:
    """A live process's jackpot service, crediting through its ledger (started)."""
    ledger = Ledger(store, node=node)
    wallet = LedgerWallet(ledger)
    svc = JackpotService(await RedisCoordinator.connect(url), owner=node, ledger=ledger,
                         credit=lambda p: credit_payout(wallet, p), retry=0.05)
    await svc.start()
    return svc, ledger


async def paid_record(coord: RedisCoordinator, hand: str, owner: str, player: str,
                      kind: str = "four_of_a_kind") -> Payout:
    """A round of ``owner`` settled with a claim: its payout record is written (due to
    ``owner``), and ``owner`` dies before crediting it."""
    await coord.register(hand, owner=owner)
    paid = await coord.report(hand, owner=owner, table=hand.split(".")[0], settings=S,
                              contributions=[], claims=[Claim(hand, 2, player, kind, 2)])
    assert len(paid) == 1 and paid[0].owner == owner and paid[0].amount > 0
    return paid[0]


async def test_a_lost_nodes_payout_is_credited_once_by_the_survivor(
        redis_server: RedisProcess, store: SqliteStore) -> None:
    coord = await RedisCoordinator.connect(redis_server.url, seed=SEED)
    lost = await paid_record(coord, "t1.7@x.s1", "x", "ann")
    live = await paid_record(coord, "t2.3@y.s2", "y", "bob")  # y is alive: y credits it
    svc, ledger = await survivor(redis_server.url, store, "n1")
    for pid in ("ann", "bob"):
        await ledger.open_player(pid, START)
    await svc._sweep()
    assert svc.payouts == []  # not ours (yet): the start and a sweep leave x's record due
    assert await ledger.balance(player_account("ann")) == START

    assert await take_over(svc, "x") == 0  # (no outbox record of x)
    assert svc.adopted == {"x"}
    assert [p.key for p in svc.payouts] == [lost.key] == ["t1.7@x.s1:2"]
    assert await ledger.balance(player_account("ann")) == START + lost.amount
    assert await ledger.balance(player_account("bob")) == START  # y's: left alone
    assert [p.key for p in await coord.due()] == [live.key]  # x's record closed, y's due
    credits = [e for e in await store.journal(0, 10_000) if e.dst == player_account("ann")
               and e.src == JACKPOT_POOL]
    assert [(e.amount, e.reason) for e in credits] == [(lost.amount, "jackpot_payout")]

    # again, and a sweep on every tick from now on: nothing more for ann
    assert await take_over(svc, "x") == 0
    await svc._sweep()
    assert await ledger.balance(player_account("ann")) == START + lost.amount
    assert len(svc.payouts) == 1
    assert await ledger.total() == 0
    await svc.close()
    await coord.close()


async def test_two_survivors_crediting_the_same_record_pay_it_once(
        redis_server: RedisProcess, store: SqliteStore) -> None:
    """Both read x's record as due before either closes it: each credits it, with the claim
    key as the ledger's idempotency key, and the player is paid once."""
    coord = await RedisCoordinator.connect(redis_server.url, seed=SEED)
    lost = await paid_record(coord, "t1.7@x.s1", "x", "ann")
    a, ledger = await survivor(redis_server.url, store, "n1")
    b, _ = await survivor(redis_server.url, store, "n2")
    await ledger.open_player("ann", START)
    both = asyncio.Event()
    seen = 0
    for svc in (a, b):
        assert svc.coord is not None
        read = svc.coord.due

        async def due_together(owner: str | None = None, read: object = read) -> list[Payout]:
            nonlocal seen
            got: list[Payout] = await read(owner)  # type: ignore[operator]
            seen += 1
            if seen >= 2:
                both.set()
            await asyncio.wait_for(both.wait(), 10)
            return got

        svc.coord.due = due_together  # type: ignore[method-assign]
    await asyncio.gather(take_over(a, "x"), take_over(b, "x"))
    assert [p.key for p in a.payouts] == [p.key for p in b.payouts] == [lost.key]  # both did
    assert await ledger.balance(player_account("ann")) == START + lost.amount  # paid once
    assert await coord.due() == []
    assert await ledger.total() == 0
    for svc in (a, b):
        await svc.close()
    await coord.close()


def report_text(hand: str, owner: str, claims: list[Claim]) -> str:
    """The outbox record of a round with one jackpot wager (seat 0) and ``claims``."""
    return encode_report({"owner": owner, "table": hand.split(".")[0], "settings": S,
                          "contributions": [Contribution(hand, 0, 100, 70, 0, 70, 30)],
                          "claims": claims})


def crash(svc: JackpotService) -> None:
    """The process dies now: nothing it queued in memory is ever sent."""
    svc.closed = True
    for task in svc._tasks:
        task.cancel()


async def test_a_lost_nodes_outbox_is_replayed_once(redis_server: RedisProcess,
                                                    store: SqliteStore) -> None:
    coord = await RedisCoordinator.connect(redis_server.url, seed=SEED)
    svc, ledger = await survivor(redis_server.url, store, "n1")  # the survivors, live already
    other, _ = await survivor(redis_server.url, store, "n2")
    # x plays a round (ann's jackpot wager, bob's flush) and dies once its hand result, with
    # the round's report in the outbox, is durable, before its worker sent the report
    x = Ledger(store, node="x", run="rx")
    for pid in ("ann", "bob", "cat"):
        await x.open_player(pid, START)
    xs = JackpotService(await RedisCoordinator.connect(redis_server.url), owner="x", ledger=x)
    await xs.start()
    hand = "t1.1@x.s1"
    assert await x.buy_in("ann", "t1", 100, reason="buy_in")
    await x.hand_started("t1", "t1.1", {"ann": 100})
    xs.hand_eligible(hand)
    xs.hand_settled(hand, table="t1", settings=S,
                    contributions=[Contribution(hand, 0, 100, 70, 0, 70, 30)],
                    claims=[Claim(hand, 1, "bob", "flush", 3)], ledger_hand="t1.1")
    await x.hand_result("t1", "t1.1", hand_entries({"ann": 100}, {"ann": 0}, jackpot_in=100))
    crash(xs)
    mine = f"{OUTBOX}{hand}"
    assert [k for k, _ in await x.outbox(OUTBOX)] == [mine]
    # records of other processes: a live one ("y"), and one whose name starts with "x"
    others = {f"{OUTBOX}t2.1@y.s2": report_text("t2.1@y.s2", "y", []),
              f"{OUTBOX}t3.1@xy.s3": report_text("t3.1@xy.s3", "xy", [])}
    for key, text in others.items():
        await store.outbox_put(key, text)
    saved = dict(await x.outbox(OUTBOX))
    before = await coord.state()
    assert before.contributed == 0  # nothing of x's round reached the pools

    assert await take_over(svc, "x") == 1
    await svc.drain()
    await svc.all_paid()
    st = await coord.state()
    assert st.contributed == 70 and st.major == before.major + 70 - st.paid
    assert [p.player for p in svc.payouts] == ["bob"]
    flush = svc.payouts[0].amount
    assert flush > 0
    assert await ledger.balance(player_account("bob")) == START + flush
    assert dict(await ledger.outbox(OUTBOX)) == others  # x's deleted once booked; others kept

    # replayed again (its record back, as after a crash before the delete), by the same
    # survivor and by another: the round is booked once, the flush paid once
    for again in (svc, other):
        await store.outbox_put(mine, saved[mine])
        assert await take_over(again, "x") == 1
        await again.drain()
        assert (await coord.state()).contributed == 70
        assert dict(await ledger.outbox(OUTBOX)) == others
    assert await ledger.balance(player_account("bob")) == START + flush
    assert await ledger.balance(player_account("ann")) == START - 100
    assert await coord.due() == []
    assert await ledger.total() == 0
    for s in (svc, other):
        await s.close()
    await coord.close()


async def test_a_starting_service_replays_only_its_own_nodes_outbox(
        redis_server: RedisProcess, store: SqliteStore) -> None:
    coord = await RedisCoordinator.connect(redis_server.url, seed=SEED)
    # y is alive: its hand batch (with the round's report) is durable, its worker is about to
    # send the report; meanwhile n1 starts (a restart, or a new process of the room)
    hand = "t2.1@y.s2"
    key = f"{OUTBOX}{hand}"
    await store.outbox_put(key, report_text(hand, "y", [Claim(hand, 1, "bob", "flush", 3)]))
    svc, ledger = await survivor(redis_server.url, store, "n1")
    await svc.drain()
    assert [k for k, _ in await ledger.outbox(OUTBOX)] == [key]  # y's, left for y
    assert svc.payouts == [] and (await coord.state()).contributed == 0
    await svc.close()
    await coord.close()
