"""Tournaments in the ledger (server/ledger/tournaments.py): TOUR-01 (entries and fees booked,
refunds), TOUR-02 (the tournament's own chips: issued, at the tables and back, their total
unchanged by hands, moves and restores), TOUR-12 (each payout booked once), TOUR-14 (rebuys
and add-ons pay the pool), TOUR-15 (after a crash, a tournament table's chips go back to the
tournament, never to cash). Each ledger test runs on the SQLite store and on a redis-server
of its own (the ``store`` fixture, which also checks at the end that the ledger sums to zero
and no protected account is negative); the in-memory wallet (no ledger) has its own test."""

from __future__ import annotations

import pytest

from server.ledger.journal import (
    HOUSE,
    RAKE,
    Ledger,
    hand_entries,
    home_account,
    is_tournament_id,
    is_tournament_table,
    player_account,
    tchips_account,
    tchips_bank,
    tournament_of,
    tourney_pool,
)
from server.ledger.store import Store, Transfer
from server.ledger.takeover import cash_out_rest
from server.ledger.tournaments import (
    TournamentBook,
    TournamentChips,
    TournamentWallet,
    tournament_chips,
)
from server.ledger.wallet import LedgerWallet, MemoryWallet, Wallet

TID = "T3-k2j9x0ab"
T1, T2 = f"{TID}.1", f"{TID}.2"
OTHER = "T4-zzzz0000"  # another tournament beside it


async def _cash(ledger: Ledger, *players: str) -> list[int]:
    return [await ledger.balance(player_account(p)) for p in players]


async def _conserved(ledger: Ledger, tid: str = TID) -> int:
    """TOUR-02 and double entry: the chips in play are those issued; the ledger sums to 0."""
    assert await ledger.total() == 0
    issued = await TournamentChips(ledger, tid).total_issued()
    assert await tournament_chips(ledger, tid) == issued
    return issued


def test_tournament_tables_and_accounts_are_named_in_the_journal() -> None:
    """Naming: ``T<n>-<8 of [a-z0-9]>``, tables ``<tid>.<k>``; a tournament table's clean-up
    home is the player's chip account (TOUR-02), never cash."""
    assert is_tournament_id(TID) and not is_tournament_id("T3-short")
    assert is_tournament_table(T1) and is_tournament_table(f"{TID}.12")
    for table in (TID, f"{TID}.0", f"{TID}.x", "t7", "p7-abcdefghijkl", "T3-K2J9X0AB.1", None):
        assert not is_tournament_table(table) and tournament_of(table) is None
    assert tournament_of(T2) == TID
    assert home_account(T1, "g_1") == tchips_account(TID, "g_1") == f"tchips:{TID}:g_1"
    assert home_account("t7", "g_1") == player_account("g_1")
    assert tourney_pool(TID) == f"tourney:{TID}:pool" and tchips_bank(TID) == f"tchips:{TID}:bank"
    for bad in ("bank", "a:b", ""):
        with pytest.raises(ValueError):
            tchips_account(TID, bad)
    with pytest.raises(ValueError):
        tourney_pool("t7")


async def test_tour01_entry_and_fee_booked_once_per_entry(store: Store) -> None:
    """TOUR-01: the buy-in to the pool, the fee to the house, one batch; a retry of the same
    entry books nothing more; a re-entry (entry 2) is a new booking (TOUR-14)."""
    ledger = Ledger(store, node="n1", run="r1")
    await ledger.open_player("ann", 10_000)
    book = TournamentBook(ledger)
    assert await book.enter(TID, "ann", 1000, 100, entry=1)
    assert await _cash(ledger, "ann") == [8900]
    assert await book.pool(TID) == 1000 and await ledger.balance(HOUSE) == 100
    assert await book.enter(TID, "ann", 1000, 100, entry=1)  # a retry: applied once
    assert await _cash(ledger, "ann") == [8900] and await book.pool(TID) == 1000
    assert await book.enter(TID, "ann", 1000, 100, entry=2)  # a re-entry
    assert await _cash(ledger, "ann") == [7800]
    assert await book.pool(TID) == 2000 and await ledger.balance(HOUSE) == 200
    assert await book.pool(OTHER) == 0
    assert await ledger.total() == 0


async def test_tour01_a_short_balance_is_refused_with_nothing_moved(store: Store) -> None:
    """TOUR-01: short for the buy-in and fee together (even if the buy-in alone fits):
    refused whole; a later entry under the same key, once funded, is booked."""
    ledger = Ledger(store, node="n1", run="r1")
    await ledger.open_player("bob", 1050)
    book = TournamentBook(ledger)
    assert not await book.enter(TID, "bob", 1000, 100, entry=1)
    assert await _cash(ledger, "bob") == [1050]
    assert await book.pool(TID) == 0 and await ledger.balance(HOUSE) == 0
    assert not await book.buy_chips(TID, "bob", 1000, 100, n=1, why="rebuy")
    assert await _cash(ledger, "bob") == [1050] and await book.pool(TID) == 0
    await ledger.transfer("bank", player_account("bob"), 50, reason="top up")
    assert await book.enter(TID, "bob", 1000, 100, entry=1)  # the refusal used no key
    assert await _cash(ledger, "bob") == [0] and await book.pool(TID) == 1000
    assert await ledger.total() == 0


async def test_tour01_refunds_of_entries_rebuys_and_add_ons_once(store: Store) -> None:
    """TOUR-01: unregistering refunds the buy-in and the fee; cancelling refunds every
    entry, rebuy and add-on (TOUR-14 paid the pool), each once whatever the retries."""
    ledger = Ledger(store, node="n1", run="r1")
    for p in ("ann", "bob"):
        await ledger.open_player(p, 5000)
    book = TournamentBook(ledger)
    assert await book.enter(TID, "ann", 1000, 100, entry=1)
    await book.refund(TID, "ann", 1000, 100, entry=1, why="unregister")
    await book.refund(TID, "ann", 1000, 100, entry=1, why="unregister")  # a retry
    assert await _cash(ledger, "ann") == [5000] and await book.pool(TID) == 0
    assert await ledger.balance(HOUSE) == 0
    assert await book.enter(TID, "bob", 1000, 100, entry=1)
    assert await book.buy_chips(TID, "bob", 1000, 0, n=1, why="rebuy")
    assert await book.buy_chips(TID, "bob", 1000, 0, n=1, why="rebuy")  # a retry
    assert await book.buy_chips(TID, "bob", 500, 50, n=1, why="add_on")
    assert await _cash(ledger, "bob") == [5000 - 1100 - 1000 - 550]
    assert await book.pool(TID) == 2500 and await ledger.balance(HOUSE) == 150
    for _ in range(2):  # the cancel, and its retry
        await book.refund(TID, "bob", 1000, 100, entry=1, why="cancel")
        await book.refund_chips(TID, "bob", 1000, 0, n=1, why="rebuy")
        await book.refund_chips(TID, "bob", 500, 50, n=1, why="add_on")
    assert await _cash(ledger, "ann", "bob") == [5000, 5000]
    assert await book.pool(TID) == 0 and await ledger.balance(HOUSE) == 0
    with pytest.raises(ValueError):  # a refund of an entry never booked: the pool is empty
        await book.refund(TID, "ann", 1000, 100, entry=2, why="cancel")
    assert await _cash(ledger, "ann") == [5000] and await book.pool(TID) == 0
    assert await ledger.total() == 0


async def test_tour12_each_payout_is_booked_once(store: Store) -> None:
    """TOUR-12: prizes from the pool, each ``(place, player)`` once even if retried (the
    last one, which empties the pool, included); more than the pool is refused."""
    ledger = Ledger(store, node="n1", run="r1")
    book = TournamentBook(ledger)
    for p in ("ann", "bob", "cid"):
        await ledger.open_player(p, 2000)
        assert await book.enter(TID, p, 1000, 100, entry=1)
    assert await book.pool(TID) == 3000
    with pytest.raises(ValueError):
        await book.pay(TID, "ann", 3001, place=1)
    assert await book.pool(TID) == 3000 and await _cash(ledger, "ann") == [900]
    for _ in range(2):  # the payouts, then a retry of every one
        await book.pay(TID, "bob", 1000, place=2)
        await book.pay(TID, "ann", 2000, place=1)
        await book.pay(TID, "cid", 0, place=3)
    assert await _cash(ledger, "ann", "bob", "cid") == [2900, 1900, 900]
    assert await book.pool(TID) == 0 and await ledger.balance(HOUSE) == 300
    with pytest.raises(ValueError):  # a new payout beyond the (empty) pool
        await book.pay(TID, "cid", 1, place=4)
    assert await _cash(ledger, "cid") == [900]
    assert await ledger.total() == 0


async def test_tour02_chips_issued_moved_between_tables_and_retired(store: Store) -> None:
    """TOUR-02: each entry's stack is issued once; chips go to a table and back, move to
    another table, play a hand; the chips in play equal those issued at every step, and
    no chip of the tournament reaches a cash balance."""
    ledger = Ledger(store, node="n1", run="r1")
    for p in ("ann", "bob"):
        await ledger.open_player(p, 500)
    chips = TournamentChips(ledger, TID)
    wallet = TournamentWallet(LedgerWallet(ledger), TID)
    for p in ("ann", "bob"):
        await wallet.issue(p, 3000, key=f"entry:{p}:1")
        await wallet.issue(p, 3000, key=f"entry:{p}:1")  # a retry: issued once
    await chips.issue("bob", 3000, key="rebuy:bob:1")  # a rebuy's chips (TOUR-14)
    assert await _conserved(ledger) == 9000
    assert wallet.balance("ann") == 3000 and await wallet.refresh("bob") == 6000
    assert await wallet.buy_in("ann", T1, 3000, reason="seat")
    assert await wallet.buy_in("bob", T1, 6000, reason="seat")
    assert not await wallet.buy_in("ann", T1, 1, reason="seat")  # nothing left off the table
    assert wallet.balance("ann") == 0 and await chips.balance("ann") == 0
    assert await ledger.balance(ledger.table_account(T1, "ann")) == 3000
    assert await _conserved(ledger) == 9000
    await wallet.hand_started(T1, "h1", {"ann": 3000, "bob": 6000})
    await wallet.hand_result(T1, "h1", hand_entries({"ann": 3000, "bob": 6000},
                                                    {"ann": 5000, "bob": 4000}))
    assert await ledger.balance(ledger.table_account(T1, "ann")) == 5000
    assert len(await wallet.table_entries(T1)) >= 4  # two seats, a hand's bet and award
    assert await _conserved(ledger) == 9000
    await wallet.cash_out("ann", T1, 5000, reason="move")  # a balancing move (TOUR-06)
    assert wallet.balance("ann") == 5000 and await _conserved(ledger) == 9000
    assert await wallet.buy_in("ann", T2, 5000, reason="move")
    assert await ledger.balance(ledger.table_account(T2, "ann")) == 5000
    assert await _conserved(ledger) == 9000
    with pytest.raises(ValueError):  # not a table of this tournament
        await wallet.buy_in("bob", f"{OTHER}.1", 1, reason="seat")
    with pytest.raises(RuntimeError):
        await wallet.debit("ann", 1, "cash")
    with pytest.raises(RuntimeError):
        await wallet.credit("ann", 1, "cash")
    await wallet.cash_out("ann", T2, 5000, reason="close")  # the end: retire every chip
    await wallet.cash_out("bob", T1, 4000, reason="close")
    with pytest.raises(ValueError):
        await chips.retire("bob", 4001, key="end:bob")
    for _ in range(2):  # and a retry of each
        await chips.retire("ann", 5000, key="end:ann")
        await chips.retire("bob", 4000, key="end:bob")
    assert await chips.total_issued() == 0 and await _conserved(ledger) == 0
    assert await _cash(ledger, "ann", "bob") == [500, 500]  # cash never touched


async def test_a_tournament_hand_books_no_rake_house_or_jackpot(store: Store) -> None:
    """A tournament table's hand has seats and a pot only: an entry naming the rake (or any
    other account) is refused before anything is booked; the hand can then be voided."""
    ledger = Ledger(store, node="n1", run="r1")
    wallet = TournamentWallet(LedgerWallet(ledger), TID)
    for p in ("ann", "bob"):
        await wallet.issue(p, 1000, key=f"entry:{p}:1")
        assert await wallet.buy_in(p, T1, 1000, reason="seat")
    await wallet.hand_started(T1, "h1", {"ann": 1000, "bob": 1000})
    raked = hand_entries({"ann": 1000, "bob": 1000}, {"ann": 1900, "bob": 0}, rake=100)
    with pytest.raises(ValueError, match="rake"):
        await wallet.hand_result(T1, "h1", raked)
    with pytest.raises(ValueError):
        await wallet.hand_result(T1, "h1", [Transfer("seat:ann", "player:ann", 5, "x")])
    assert await ledger.balance(RAKE) == 0
    assert await ledger.balance(ledger.table_account(T1, "bob")) == 1000
    await wallet.hand_voided(T1, "h1", reason="test")
    assert await store.open_hands() == []
    assert await _conserved(ledger) == 2000


async def test_tour15_a_crash_returns_table_chips_to_the_tournament(store: Store) -> None:
    """TOUR-15: a process dies mid-hand; its restart (``Ledger.recover``) voids the hand and
    returns the tournament table's chips to ``tchips:<tid>:<player>`` (the stacks from before
    that hand), not to cash; a takeover's clean-up of a lost process does the same. The
    chips in play stay those issued (TOUR-02); a real table beside it is cashed out as ever."""
    before = Ledger(store, node="n1", run="r1")
    await before.open_player("ann", 500)
    wallet = TournamentWallet(LedgerWallet(before), TID)
    for p in ("ann", "bob"):
        await wallet.issue(p, 2000, key=f"entry:{p}:1")
        assert await wallet.buy_in(p, T1, 1500, reason="seat")
    assert await before.buy_in("ann", "t8", 200, reason="buy_in")  # a cash table beside it
    await wallet.hand_started(T1, "h1", {"ann": 1500, "bob": 1500})  # then the crash
    after = Ledger(store, node="n1", run="r2")
    recovery = await after.recover()
    assert len(recovery.voided) == 1 and await store.open_hands() == []
    assert await after.balance(tchips_account(TID, "ann")) == 2000
    assert await after.balance(tchips_account(TID, "bob")) == 2000
    assert await after.balance(before.table_account(T1, "ann")) == 0
    assert await _cash(after, "ann", "bob") == [500, 0]  # only the cash table's 200 back
    assert await _conserved(after) == 4000
    other = Ledger(store, node="n2", run="r1")  # a lost process's tournament table
    assert await TournamentWallet(LedgerWallet(other), TID).buy_in("bob", T2, 700,
                                                                   reason="seat")
    await cash_out_rest(after, "n2")
    assert await after.balance(tchips_account(TID, "bob")) == 2000
    assert await _cash(after, "bob") == [0] and await _conserved(after) == 4000


async def test_a_tournament_without_a_ledger_keeps_its_chips_in_memory() -> None:
    """With the table tests' ``MemoryWallet`` (no ledger) the wallet keeps each player's
    chips itself: issued once per key, to a table and back, short buy-ins refused; the
    cash balances of ``inner`` never move (TOUR-02)."""
    inner = MemoryWallet()
    inner.ensure("ann", 100)
    wallet: Wallet = TournamentWallet(inner, TID)
    assert isinstance(wallet, TournamentWallet)
    await wallet.issue("ann", 3000, key="entry:ann:1")
    await wallet.issue("ann", 3000, key="entry:ann:1")
    assert wallet.balance("ann") == 3000 and wallet.ensure("ann", 99) == 3000
    assert not await wallet.buy_in("ann", T1, 3001, reason="seat")
    assert await wallet.buy_in("ann", T1, 3000, reason="seat")
    assert wallet.balance("ann") == 0
    await wallet.hand_started(T1, "h1", {"ann": 3000})
    await wallet.hand_result(T1, "h1", [])
    await wallet.cash_out("ann", T1, 2500, reason="move")
    assert wallet.balance("ann") == 2500
    assert inner.balance("ann") == 100 and inner.journal == [("ann", 100, "open")]
    with pytest.raises(RuntimeError):
        await wallet.debit("ann", 1, "cash")
