"""CSP-12: each payout exactly once, also across a crash between the claim and the credit.

The payout record is written in the same atomic step as the claim is paid; the credit goes
through the double-entry ledger with the claim key as idempotency key; the record is closed
after.  A process that dies after crediting but before closing the record credits it again at
its next start: the ledger applies it once."""

from __future__ import annotations

from pathlib import Path

import pytest

from server.jackpot.base import Claim
from server.jackpot.redis_coord import RedisCoordinator
from server.jackpot.service import JackpotService, credit_payout
from server.ledger.journal import JACKPOT_POOL, Ledger, player_account
from server.ledger.sqlite_store import SqliteStore
from server.ledger.wallet import LedgerWallet
from server.rules.caribbean_payout import CaribbeanSettings
from tests.redis_helpers import RedisProcess

S = CaribbeanSettings(reset_amount=10_000)


class Crash(BaseException):
    """The process dies (nothing in it catches this)."""


async def test_csp12_crash_between_credit_and_record_close_pays_once(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-12: credited, then the process dies before closing the record: the restarted
    process credits the record again with the same key; the player is paid once."""
    store = SqliteStore(tmp_path / "ledger.db")
    await store.open()
    ledger = Ledger(store, node="n1")
    wallet = LedgerWallet(ledger)
    await ledger.open_player("ann", 1000)

    coord = await RedisCoordinator.connect(redis_server.url, seed=50_000)

    async def credited_then_crash(key: str) -> None:
        raise Crash(key)  # the process dies right after the ledger applied the credit

    coord.credited = credited_then_crash  # type: ignore[method-assign]
    first = JackpotService(coord, owner="n1", credit=lambda p: credit_payout(wallet, p))
    await first.start()
    await coord.register("t1.7", owner="n1")
    with pytest.raises(Crash):
        await first._settle(await coord.report(
            "t1.7", owner="n1", table="t1", settings=S, contributions=[],
            claims=[Claim("t1.7", 2, "ann", "four_of_a_kind", 2)]))
    await first.close()
    assert await ledger.balance(player_account("ann")) == 1000 + 50_000

    again = await RedisCoordinator.connect(redis_server.url)
    assert [p.key for p in await again.due("n1")] == ["t1.7:2"]  # the record survived
    second = JackpotService(again, owner="n1", credit=lambda p: credit_payout(wallet, p))
    await second.start()  # sweeps what is due: the same key, applied once
    assert await again.due() == []
    assert await ledger.balance(player_account("ann")) == 1000 + 50_000
    assert await ledger.balance(JACKPOT_POOL) == -50_000
    assert [p.key for p in second.payouts] == ["t1.7:2"]
    await second.close()
    await store.close()


async def test_csp12_crash_between_claim_and_credit_credits_at_restart(
        redis_server: RedisProcess, tmp_path: Path) -> None:
    """CSP-12: the claim was paid (record written) but the process died before crediting:
    the restarted process (same node) credits it, once."""
    store = SqliteStore(tmp_path / "ledger.db")
    await store.open()
    wallet = LedgerWallet(Ledger(store, node="n2"))
    coord = await RedisCoordinator.connect(redis_server.url, seed=20_000)
    await coord.register("t2.1", owner="n2")
    paid = await coord.report("t2.1", owner="n2", table="t2", settings=S, contributions=[],
                              claims=[Claim("t2.1", 0, "bo", "straight_flush", 0)])
    assert [p.amount for p in paid] == [2_000]  # ... and the process dies here
    await coord.close()
    restarted = JackpotService(await RedisCoordinator.connect(redis_server.url), owner="n2",
                               credit=lambda p: credit_payout(wallet, p))
    await restarted.start()
    await restarted._sweep()  # a second sweep finds nothing
    assert await wallet.ledger.balance(player_account("bo")) == 2_000
    assert [p.key for p in restarted.payouts] == ["t2.1:0"]
    await restarted.close()
    await store.close()
