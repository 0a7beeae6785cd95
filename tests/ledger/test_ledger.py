"""The ledger over both stores: accounts, buy-in and cash-out, hand boundaries, recovery after
a crash, idempotent transfers, and no overdraft under concurrency. The ``store`` fixture
checks the invariant (sum over all accounts is zero) after every test."""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from server.ledger.journal import (
    BANK,
    HOUSE,
    JACKPOT_POOL,
    RAKE,
    Ledger,
    NodeInUse,
    hand_entries,
    player_account,
)
from server.ledger.redis_store import RedisStore
from server.ledger.store import Batch, Outcome, Store, Transfer


async def test_open_player_is_funded_by_the_bank_once(ledger: Ledger) -> None:
    assert await ledger.open_player("a", 1000) == 1000
    assert await ledger.open_player("a", 1000) == 1000  # a retry changes nothing
    assert await ledger.balance(BANK) == -1000
    assert await ledger.total() == 0


async def test_buy_in_and_cash_out(ledger: Ledger) -> None:
    await ledger.open_player("a", 1000)
    assert await ledger.buy_in("a", "t1", 600, reason="buy_in")
    assert not await ledger.buy_in("a", "t1", 500, reason="rebuy")  # only 400 left
    assert await ledger.balance(player_account("a")) == 400
    assert await ledger.balance(ledger.table_account("t1", "a")) == 600
    assert await ledger.cash_out("a", "t1", 600, reason="cash_out")
    assert not await ledger.cash_out("a", "t1", 1, reason="cash_out")  # nothing left there
    assert await ledger.balance(player_account("a")) == 1000


async def test_transfer_with_key_applies_once(ledger: Ledger) -> None:
    """The jackpot coordinator's exactly-once payout."""
    for _ in range(3):
        assert await ledger.transfer(JACKPOT_POOL, player_account("w"), 250,
                                     reason="jackpot_payout", key="jackpot:t3.17:2")
    assert await ledger.balance(player_account("w")) == 250
    assert await ledger.balance(JACKPOT_POOL) == -250


def test_hand_entries_holdem_with_rake() -> None:
    entries = hand_entries({"a": 1000, "b": 1000, "c": 500}, {"a": 1580, "b": 700, "c": 200},
                           rake=20)
    assert Transfer("seat:b", "pot", 300, "bet") in entries
    assert Transfer("seat:c", "pot", 300, "bet") in entries
    assert Transfer("pot", RAKE, 20, "rake") in entries
    assert Transfer("pot", "seat:a", 580, "pot_award") in entries
    assert len(entries) == 4


def test_hand_entries_caribbean_house_and_jackpot() -> None:
    # a loses 25; both wagered 5 on the jackpot; the house pays 30 net; b also wins a jackpot
    # payout of 300: b ends 100 + 25 + 30 + 300 - 10 = 445
    entries = hand_entries({"a": 100, "b": 100}, {"a": 75, "b": 445}, house_net=-30,
                           jackpot_in=10, jackpot_out=300)
    assert Transfer(HOUSE, "pot", 30, "house_pay") in entries
    assert Transfer(JACKPOT_POOL, "pot", 300, "jackpot_payout") in entries
    assert Transfer("pot", JACKPOT_POOL, 10, "jackpot_wager") in entries
    assert sum(t.amount for t in entries if t.dst == "pot") == \
        sum(t.amount for t in entries if t.src == "pot")


def test_hand_entries_refuse_an_unbalanced_hand() -> None:
    with pytest.raises(ValueError, match="balance"):
        hand_entries({"a": 100, "b": 100}, {"a": 150, "b": 60})
    with pytest.raises(ValueError, match="players"):
        hand_entries({"a": 100}, {"b": 100})


async def seat(ledger: Ledger, table: str, stacks: dict[str, int]) -> None:
    for pid, stack in stacks.items():
        await ledger.open_player(pid, 10_000)
        assert await ledger.buy_in(pid, table, stack, reason="buy_in")


async def test_hand_result_is_applied_with_its_end(ledger: Ledger) -> None:
    await seat(ledger, "t1", {"a": 1000, "b": 1000})
    await ledger.hand_started("t1", "t1.1", {"a": 1000, "b": 1000})
    assert [m.hand for m in await ledger.store.open_hands()] == ["n1:r1:t1.1"]
    entries = hand_entries({"a": 1000, "b": 1000}, {"a": 1195, "b": 800}, rake=5)
    await ledger.hand_result("t1", "t1.1", entries)
    await ledger.hand_result("t1", "t1.1", entries)  # a retry: applied once
    assert await ledger.store.open_hands() == []
    assert await ledger.balance(ledger.table_account("t1", "a")) == 1195
    assert await ledger.balance(ledger.table_account("t1", "b")) == 800
    assert await ledger.balance(ledger.pot_account("t1")) == 0
    assert await ledger.balance(RAKE) == 5
    reasons = [e.reason for e in await ledger.store.journal()]
    assert "hand_started n1:r1:t1.1" in reasons and "hand_ended n1:r1:t1.1" in reasons


async def test_hand_result_cannot_name_player_accounts(ledger: Ledger) -> None:
    with pytest.raises(ValueError):
        await ledger.hand_result("t1", "t1.1", [Transfer("player:a", "pot", 5, "bet")])


async def test_recovery_voids_the_running_hand_and_keeps_ended_ones(store: Store) -> None:
    before = Ledger(store, node="n1", run="r1")
    await seat(before, "t1", {"a": 1000, "b": 1000})
    await before.hand_started("t1", "t1.1", {"a": 1000, "b": 1000})
    await before.hand_result("t1", "t1.1", hand_entries({"a": 1000, "b": 1000},
                                                        {"a": 1100, "b": 900}))
    await before.hand_started("t1", "t1.2", {"a": 1100, "b": 900})  # ... and the crash
    other = Ledger(store, node="n2", run="x")  # another live process sharing the store
    await seat(other, "t1", {"c": 500})
    await other.hand_started("t1", "t1.9", {"c": 500})

    after = Ledger(store, node="n1", run="r2")  # the restarted process
    recovery = await after.recover()
    assert recovery.voided == ["n1:r1:t1.2"]
    assert recovery.cashed_out == {"a": 1100, "b": 900}
    assert await after.balance(player_account("a")) == 10_100  # hand 1 kept, hand 2 void
    assert await after.balance(player_account("b")) == 9_900
    assert [m.hand for m in await store.open_hands()] == ["n2:x:t1.9"]  # not ours: untouched
    assert await other.balance(other.table_account("t1", "c")) == 500
    assert any(e.reason.startswith("void n1:r1:t1.2") for e in await store.journal())
    assert await after.recover() == type(recovery)([], {})  # twice: nothing more to do


async def test_concurrent_buy_ins_never_overdraw(ledger: Ledger) -> None:
    """Many clients buying in at once with one balance: exactly as many succeed as it pays for,
    and cashing out concurrently never loses or makes a chip."""
    await ledger.open_player("a", 1000)
    results = await asyncio.gather(*(ledger.buy_in("a", f"t{i}", 300, reason="buy_in")
                                     for i in range(20)))
    assert results.count(True) == 3
    assert await ledger.balance(player_account("a")) == 100
    won = [f"t{i}" for i, ok in enumerate(results) if ok]
    outs = await asyncio.gather(*(ledger.cash_out("a", t, 300, reason="cash_out") for t in won),
                                *(ledger.cash_out("a", t, 300, reason="cash_out") for t in won))
    assert outs.count(True) == 3  # each table's chips come back once
    assert await ledger.balance(player_account("a")) == 1000


async def test_many_players_buying_in_and_out_at_once(ledger: Ledger) -> None:
    players = [f"p{i}" for i in range(25)]
    for p in players:
        await ledger.open_player(p, 500)

    async def churn(p: str) -> None:
        for round_ in range(6):
            table = f"t{round_ % 3}"
            if await ledger.buy_in(p, table, 200, reason="buy_in"):
                assert await ledger.cash_out(p, table, 200, reason="cash_out")

    await asyncio.gather(*(churn(p) for p in players), *(churn(p) for p in players))
    for p in players:
        assert await ledger.balance(player_account(p)) == 500


class LostReplies:
    """A store whose first ``fail`` applies succeed but lose their reply (ConnectionError)."""

    def __init__(self, inner: Store, fail: int) -> None:
        self.inner = inner
        self.fail = fail

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    async def apply(self, batch: Batch) -> Outcome:
        outcome = await self.inner.apply(batch)
        if self.fail > 0:
            self.fail -= 1
            raise ConnectionError("reply lost")
        return outcome


async def test_a_lost_reply_is_retried_and_applied_once(store: Store) -> None:
    ledger = Ledger(LostReplies(store, fail=0), node="n1", run="r1")  # type: ignore[arg-type]
    await seat(ledger, "t1", {"a": 1000, "b": 1000})
    flaky = LostReplies(store, fail=2)  # two lost replies in a row: the third attempt answers
    ledger.store = flaky  # type: ignore[assignment]
    assert await ledger.buy_in("a", "t1", 500, reason="rebuy")  # applied once, retried twice
    assert flaky.fail == 0
    await ledger.hand_started("t1", "t1.1", {"a": 1500, "b": 1000})
    flaky.fail = 1
    await ledger.hand_result("t1", "t1.1", hand_entries({"a": 1500, "b": 1000},
                                                        {"a": 1400, "b": 1100}))
    assert await ledger.balance(player_account("a")) == 10_000 - 1500
    assert await ledger.balance(ledger.table_account("t1", "a")) == 1400
    assert await ledger.balance(ledger.table_account("t1", "b")) == 1100
    unkeyed = LostReplies(store, fail=1)
    ledger.store = unkeyed  # type: ignore[assignment]
    with pytest.raises(ConnectionError):  # no key: not retried (it might double)
        await ledger.apply([Transfer("bank", "house", 1, "test")])


async def test_one_live_process_per_node(store_kind: str, store: Store) -> None:
    first = Ledger(store, node="n1", run="first")
    await first.claim_node(0.3)
    second = Ledger(store, node="n1", run="second")
    try:
        with pytest.raises(NodeInUse):  # the first one is alive and renewing (either store)
            await second.claim_node(0.3)
        keeper = first.lease._keeper
        assert keeper is not None
        keeper.cancel()  # the first one dies without giving its lease up ...
        with contextlib.suppress(asyncio.CancelledError):
            await keeper
        first.lease._keeper = None
        await asyncio.wait_for(second.claim_node(0.3), 5)  # ... and the next run gets it
        await second.release_node()
        third = Ledger(store, node="n1", run="third")
        await asyncio.wait_for(third.claim_node(60), 5)  # released: no wait at all
        await third.release_node()
    finally:
        await first.release_node()
        await second.release_node()


async def test_two_processes_share_one_balance(store_kind: str, store: Store,
                                               request: pytest.FixtureRequest) -> None:
    """Two server processes (nodes) on one Redis, each with its own connection, buying in for
    the same player at once: never more than the balance. (SQLite: one process per file, so
    the two nodes share the store object.)"""
    other: Store = store
    if store_kind == "redis":
        other = RedisStore(request.getfixturevalue("redis_server").url)
        await other.open()
    try:
        one, two = Ledger(store, node="n1"), Ledger(other, node="n2")
        await one.open_player("p", 1000)
        results = await asyncio.gather(*(ledger.buy_in("p", f"t{i}", 150, reason="buy_in")
                                         for i in range(10) for ledger in (one, two)))
        assert results.count(True) == 6  # 900 of 1000
        assert await two.balance(player_account("p")) == 100
        first = await one.recover()  # each node cleans up only its own tables
        assert sum(first.cashed_out.values()) == 150 * results[0::2].count(True)
        second = await two.recover()
        assert sum(second.cashed_out.values()) == 150 * results[1::2].count(True)
        assert await one.balance(player_account("p")) == 1000
    finally:
        if other is not store:
            await other.close()
