"""The store contract, run on SQLite and on Redis (``store`` is parametrised): atomic batches,
no overdraft, idempotency keys, journal, hand marks, settings and users."""

from __future__ import annotations

import asyncio

import pytest

from server.ledger.store import Batch, HandMark, Outcome, Store, Transfer, UserRecord


async def test_transfer_moves_and_journals(store: Store) -> None:
    assert await store.apply(Batch([Transfer("bank", "player:a", 100, "open")])) \
        is Outcome.APPLIED
    assert await store.balance("player:a") == 100
    assert await store.balance("bank") == -100
    assert await store.balance("player:nobody") == 0
    rows = await store.journal()
    assert [(r.src, r.dst, r.amount, r.reason) for r in rows] == \
        [("bank", "player:a", 100, "open")]
    assert rows[0].seq == 1


async def test_overdraft_refused_whole_batch(store: Store) -> None:
    await store.apply(Batch([Transfer("bank", "player:a", 100, "open")]))
    batch = Batch([Transfer("player:a", "table:x:a", 60, "buy_in"),
                   Transfer("player:a", "table:y:a", 60, "buy_in")])
    assert await store.apply(batch) is Outcome.INSUFFICIENT
    assert await store.balance("player:a") == 100
    assert await store.balance("table:x:a") == 0
    assert len(await store.journal()) == 1


async def test_batch_nets_within_itself(store: Store) -> None:
    """A protected account may pass through zero inside one batch (a pot)."""
    await store.apply(Batch([Transfer("bank", "table:t:a", 50, "x")]))
    out = await store.apply(Batch([Transfer("table:t:pot", "table:t:a", 30, "award"),
                                   Transfer("table:t:a", "table:t:pot", 30, "bet")]))
    assert out is Outcome.APPLIED
    assert await store.balance("table:t:pot") == 0
    assert await store.balance("table:t:a") == 50


async def test_idempotency_key_applies_once(store: Store) -> None:
    batch = Batch([Transfer("jackpot:pool", "player:a", 70, "jackpot_payout")], key="t1.5:2")
    assert await store.apply(batch) is Outcome.APPLIED
    assert await store.apply(batch) is Outcome.DUPLICATE
    assert await store.balance("player:a") == 70
    assert len(await store.journal()) == 1


async def test_idempotency_key_concurrent_retries(store: Store) -> None:
    batch = Batch([Transfer("bank", "player:a", 5, "open")], key="open:a")
    outcomes = await asyncio.gather(*(store.apply(batch) for _ in range(20)))
    assert outcomes.count(Outcome.APPLIED) == 1
    assert outcomes.count(Outcome.DUPLICATE) == 19
    assert await store.balance("player:a") == 5


async def test_refused_batch_does_not_burn_its_key(store: Store) -> None:
    batch = Batch([Transfer("player:a", "table:t:a", 10, "buy_in")], key="k")
    assert await store.apply(batch) is Outcome.INSUFFICIENT
    await store.apply(Batch([Transfer("bank", "player:a", 10, "open")]))
    assert await store.apply(batch) is Outcome.APPLIED


async def test_bad_transfers_are_bugs(store: Store) -> None:
    for t in (Transfer("a", "b", 0, "r"), Transfer("a", "a", 1, "r"),
              Transfer("a", "b", -3, "r"), Transfer("", "b", 1, "r")):
        with pytest.raises(ValueError):
            await store.apply(Batch([t]))
    assert await store.journal() == []


async def test_hand_marks_open_and_close_atomically(store: Store) -> None:
    mark = HandMark("n:r:t1.1", "n:r:t1", {"a": 100, "b": 200})
    await store.apply(Batch(open_hand=mark, note="hand_started"))
    assert await store.open_hands() == [mark]
    refused = Batch([Transfer("table:t:a", "table:t:pot", 1, "bet")], close_hand=mark.hand)
    assert await store.apply(refused) is Outcome.INSUFFICIENT
    assert await store.open_hands() == [mark]  # a refused batch leaves the mark
    await store.apply(Batch(close_hand=mark.hand, note="hand_ended"))
    assert await store.open_hands() == []
    notes = [r.reason for r in await store.journal() if r.amount == 0]
    assert notes == ["hand_started", "hand_ended"]


async def test_journal_paging(store: Store) -> None:
    for i in range(5):
        await store.apply(Batch([Transfer("bank", f"player:{i}", i + 1, "open")]))
    page = await store.journal(since=2, limit=2)
    assert [r.seq for r in page] == [3, 4]
    assert [r.amount for r in page] == [3, 4]


async def test_balances_by_prefix(store: Store) -> None:
    await store.apply(Batch([Transfer("bank", "player:a", 1, "o"),
                             Transfer("bank", "table:n:r:t:a", 2, "o")]))
    assert await store.balances("table:") == {"table:n:r:t:a": 2}
    assert sum((await store.balances()).values()) == 0


async def test_setting_created_once(store: Store) -> None:
    first = await store.setting("token_secret", "aa")
    assert first == "aa"
    assert await store.setting("token_secret", "bb") == "aa"


async def test_users_unique(store: Store) -> None:
    rec = UserRecord("u_1", "Alice", b"salt", b"digest", {"n": 2, "r": 1, "p": 1})
    assert await store.add_user("alice", rec)
    assert not await store.add_user("alice", UserRecord("u_2", "ALICE", b"s", b"d"))
    assert await store.user("alice") == rec
    assert await store.user("bob") is None


async def test_lease(store: Store) -> None:
    """Issue 26: a node's lease, its fencing token taken at every acquisition, kept by a
    renewal; the same in both stores."""
    first = await store.acquire_lease("a", "r1", 5)
    assert first.holder == "r1" and first.token >= 1
    assert await store.acquire_lease("a", "r1", 5, token=first.token) == first  # renewed
    assert (await store.acquire_lease("a", "r2", 5)).holder == "r1"  # held: not taken
    await store.release_lease("a", "r2")  # not the holder: nothing happens
    assert (await store.acquire_lease("a", "r2", 5)).holder == "r1"
    await store.release_lease("a", "r1")
    second = await store.acquire_lease("a", "r2", 5)
    assert second.holder == "r2" and second.token > first.token  # a new token
    stale = await store.acquire_lease("a", "r1", 5, token=first.token)  # r1 comes back
    assert stale == second
    assert store.lease_key("a") != store.lease_key("b")


async def test_outbox_put_list_delete(store: Store) -> None:
    """CSP-12: the outbox keeps records (durable work) until deleted; listed by prefix."""
    assert await store.outbox_list() == []
    await store.outbox_put("jackpot:report:b", "two")
    await store.outbox_put("jackpot:report:a", "one")
    await store.outbox_put("other:x", "three")
    await store.outbox_put("jackpot:report:a", "one again")  # replaced
    assert await store.outbox_list("jackpot:report:") == [
        ("jackpot:report:a", "one again"), ("jackpot:report:b", "two")]
    assert len(await store.outbox_list()) == 3
    await store.outbox_delete("jackpot:report:a")
    await store.outbox_delete("jackpot:report:nothing")
    assert await store.outbox_list("jackpot:") == [("jackpot:report:b", "two")]


async def test_outbox_record_rides_on_its_batch(store: Store) -> None:
    """CSP-12: a batch's outbox records are written with it, all or nothing: an applied
    batch writes them, a refused one or a duplicate key does not."""
    await store.apply(Batch([Transfer("bank", "table:t:a", 50, "x")]))
    assert await store.apply(Batch([Transfer("table:t:a", "jackpot:pool", 60, "w")],
                                   key="h1", outbox=[("jackpot:report:r1", "no")])) \
        is Outcome.INSUFFICIENT
    assert await store.outbox_list() == []
    assert await store.apply(Batch([Transfer("table:t:a", "jackpot:pool", 10, "w")],
                                   key="h1", outbox=[("jackpot:report:r1", "yes")])) \
        is Outcome.APPLIED
    assert await store.apply(Batch([Transfer("table:t:a", "jackpot:pool", 10, "w")],
                                   key="h1", outbox=[("jackpot:report:r2", "dup")])) \
        is Outcome.DUPLICATE
    assert await store.outbox_list() == [("jackpot:report:r1", "yes")]
    assert await store.balance("jackpot:pool") == 10
