"""Issue 24: a practice table's play money in the ledger. Its buy-ins come from the
``practice`` account (never a balance), a hand's house/rake/jackpot lines go to it, its
cash-outs return there, and the ledger's clean-ups (a restart's ``recover``, a takeover's
``cash_out_rest``) return a practice table's chips to ``practice``, never to a player's
balance; the ledger sums to zero throughout (the ``store`` fixture checks it too)."""

from __future__ import annotations

from typing import Any

import pytest

from server.config import Config
from server.ledger.journal import (
    HOUSE,
    JACKPOT_POOL,
    PRACTICE,
    RAKE,
    Ledger,
    hand_entries,
    home_account,
    is_practice_table,
    player_account,
)
from server.ledger.store import Store
from server.ledger.takeover import cash_out_rest
from server.ledger.wallet import LedgerWallet, MemoryWallet
from server.table.practice import PracticeWallet

TABLE = "p7-abcdefghijkl"


def test_practice_tables_are_told_apart() -> None:
    assert is_practice_table(TABLE) and not is_practice_table("t7") \
        and not is_practice_table("t7-abcdefghijkl") and not is_practice_table(None)
    assert home_account(TABLE, "g_1") == PRACTICE
    assert home_account("t7", "g_1") == player_account("g_1")


async def test_play_money_never_touches_a_balance(store: Store) -> None:
    ledger = Ledger(store, node="n1", run="r1")
    await ledger.open_player("ann", 10_000)
    wallet = PracticeWallet(LedgerWallet(ledger))
    assert await wallet.buy_in("ann", TABLE, 5000, reason="buy_in")
    assert await wallet.buy_in("b_1", TABLE, 5000, reason="buy_in")
    assert await ledger.balance(PRACTICE) == -10_000
    await wallet.hand_started(TABLE, "h1", {"ann": 5000, "b_1": 5000})
    entries = hand_entries({"ann": 5000, "b_1": 5000}, {"ann": 5600, "b_1": 4300}, rake=100)
    await wallet.hand_result(TABLE, "h1", entries)  # the rake line: to `practice`
    await wallet.cash_out("ann", TABLE, 5600, reason="cash_out")
    await wallet.cash_out("b_1", TABLE, 4300, reason="cash_out")
    assert await ledger.balance(player_account("ann")) == 10_000
    assert await ledger.balance(player_account("b_1")) == 0
    for account in (RAKE, HOUSE, JACKPOT_POOL):
        assert await ledger.balance(account) == 0
    assert await ledger.balance(PRACTICE) == 0
    assert await ledger.total() == 0
    assert wallet.balance("ann") == 0 and wallet.ensure("ann", 5) == 0


async def test_restart_and_takeover_return_practice_chips_to_practice(store: Store) -> None:
    before = Ledger(store, node="n1", run="r1")
    await before.open_player("ann", 10_000)
    wallet = PracticeWallet(LedgerWallet(before))
    await wallet.buy_in("ann", TABLE, 4000, reason="buy_in")
    await before.buy_in("ann", "t8", 1000, reason="buy_in")  # a real table beside it
    recovery = await Ledger(store, node="n1", run="r2").recover()  # the process restarted
    assert recovery.cashed_out == {"ann": 1000}  # play money is nobody's to cash out
    assert await before.balance(player_account("ann")) == 10_000  # the real 1000 back only
    assert await before.balance(PRACTICE) == 0
    other = Ledger(store, node="n2", run="r1")  # a lost node's practice table, taken over
    await PracticeWallet(LedgerWallet(other)).buy_in("ann", TABLE, 3000, reason="buy_in")
    assert await cash_out_rest(before, "n2") == {}
    assert await before.balance(player_account("ann")) == 10_000
    assert await before.balance(PRACTICE) == 0 and await before.total() == 0


async def test_without_a_ledger_play_money_is_not_booked() -> None:
    inner = MemoryWallet()
    inner.ensure("ann", 100)
    wallet = PracticeWallet(inner)
    assert await wallet.buy_in("ann", TABLE, 5000, reason="buy_in")
    await wallet.cash_out("ann", TABLE, 5000, reason="cash_out")
    assert inner.balance("ann") == 100 and inner.journal == [("ann", 100, "open")]


def test_the_practice_settings_are_checked() -> None:
    """`Config.practice_tables_per_account`, `max_practice_bots` (positive integers) and
    `practice_think` (0..30 s): a bad value is refused naming its field."""
    cases: tuple[tuple[str, Any], ...] = (
        ("practice_tables_per_account", 0), ("max_practice_bots", -1),
        ("max_practice_bots", True), ("practice_think", -0.5), ("practice_think", 31),
        ("practice_think", "1"))
    for field, bad in cases:
        with pytest.raises(ValueError, match=field):
            Config(**{field: bad})
    assert Config(practice_think=0).practice_think == 0
