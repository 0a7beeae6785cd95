"""Issue 26: one lease per process with a fencing token (server.ledger.lease), on both stores.

A node's token increases at every acquisition and a renewal keeps it; a ledger batch that
carries a token its node no longer has is refused whole (``StaleLease``), the lease is lost
(logged critically, the listeners told once) and nothing more is written. A lapse nobody
acted on is taken back by the next renewal with the same token. No sleeps: the lease's
keeper beats every third of a minute, and the tests drive renewals themselves.
"""

from __future__ import annotations

import logging

import pytest

from server.ledger.journal import BANK, Ledger, player_account
from server.ledger.lease import Lease, StaleLease, is_stale
from server.ledger.store import Batch, Outcome, Store, Transfer

SECONDS = 60.0  # the keeper's beat is 20 s: it never beats during a test


async def test_each_acquisition_takes_a_new_token_and_renewal_keeps_it(store: Store) -> None:
    first = Lease(store, "n1", "r1")
    await first.claim(SECONDS)
    token = first.token
    assert token is not None and first.held
    assert await first.renew() and await first.renew()
    assert first.token == token and first.renewals == 2
    fence = first.fence()
    assert fence is not None and fence.token == token and fence.key == store.lease_key("n1")
    await first.release()
    assert first.fence() is None  # released: nothing of this run carries a token any more
    second = Lease(store, "n1", "r2")
    await second.claim(SECONDS)
    assert second.token is not None and second.token > token
    third = Lease(store, "n2", "r3")  # another node: its own counter
    await third.claim(SECONDS)
    assert (await store.acquire_lease("n1", "r9", SECONDS)).holder == "r2"
    await second.release()
    await third.release()


async def test_a_lapse_nobody_acted_on_is_taken_back_with_the_same_token(
        store: Store) -> None:
    lease = Lease(store, "n1", "r1")
    await lease.claim(SECONDS)
    token = lease.token
    await store.release_lease("n1", "r1")  # as if it lapsed: nobody holds it
    assert await lease.renew() and lease.token == token and lease.held
    assert (await store.acquire_lease("n1", "other", SECONDS)).holder == "r1"
    await lease.release()


async def test_a_batch_with_a_stale_token_is_refused_and_nothing_more_is_written(
        store: Store, caplog: pytest.LogCaptureFixture) -> None:
    ledger = Ledger(store, node="n1", run="r1")
    await ledger.claim_node(SECONDS)
    lost: list[str] = []
    ledger.lease.on_lost(lost.append)
    await ledger.open_player("alice", 1000)
    assert await ledger.buy_in("alice", "t1", 400, reason="buy_in")
    await ledger.hand_started("t1", "h1", {"alice": 400})
    # a survivor takes n1 over while this process is cut off: n1's token moves on
    await store.release_lease("n1", "r1")
    taken = await store.acquire_lease("n1", "takeover:b:x", SECONDS)
    assert taken.holder == "takeover:b:x" and taken.token > (ledger.lease.token or 0)
    before = await store.balances()
    journal = len(await store.journal(0, 10_000))
    with caplog.at_level(logging.CRITICAL, logger="server.ledger"), \
            pytest.raises(StaleLease):
        await ledger.hand_result("t1", "h1", [Transfer("seat:alice", "pot", 100, "bet"),
                                              Transfer("pot", "rake", 100, "rake")])
    assert "event=node_lease_lost node=n1 run=r1" in caplog.text
    assert lost and ledger.lease.lost is not None and not ledger.lease.held
    with pytest.raises(StaleLease):  # refused here now, before the store is asked
        await ledger.transfer(player_account("alice"), BANK, 1, reason="late")
    assert not await ledger.lease.renew()
    assert await store.balances() == before
    assert len(await store.journal(0, 10_000)) == journal
    assert [m.hand for m in await store.open_hands()] == ["n1:r1:h1"]  # (the survivor's)
    assert len(lost) == 1  # told once
    await ledger.lease.release()  # lost: nothing to give up (the survivor holds it)
    assert (await store.acquire_lease("n1", "r1", SECONDS)).holder == "takeover:b:x"
    await store.release_lease("n1", "takeover:b:x")


async def test_the_store_refuses_a_stale_fence_itself(store: Store) -> None:
    """The check is the store's (the Redis script's), not only the process's own state."""
    lease = Lease(store, "n1", "r1")
    await lease.claim(SECONDS)
    fence = lease.fence()
    assert fence is not None
    ok = Batch((Transfer(BANK, "house", 5, "test"),), key="k1", fence=fence)
    assert await store.apply(ok) is Outcome.APPLIED
    await lease.release()
    other = Lease(store, "n1", "r2")
    await other.claim(SECONDS)
    late = Batch((Transfer(BANK, "house", 7, "test"),), key="k2", fence=fence)
    assert await store.apply(late) is Outcome.STALE
    assert await store.balance("house") == 5
    assert not Outcome.STALE.ok
    assert is_stale(RuntimeError("STALE_TOKEN x")) and not is_stale(RuntimeError("x"))
    await other.release()
