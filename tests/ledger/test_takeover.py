"""The ledger's side of a table that changes process (issue 17, :mod:`server.ledger.takeover`),
on both stores: ``take_table`` moves exactly the balances of the old owner's table accounts
(``table:<node>:<run>:<table>:*``) to the taker's own, seated players keeping their chips and
the others cashed out, in one keyed batch (a retry moves nothing twice); ``void_hands_of``
voids the lost node's running hands only (their chips never left the table accounts);
``cash_out_rest`` returns what is left to the players; chips in a pot account outside a batch
stop all of it. The ``ledger`` fixture is the taker (node ``n1``, run ``r1``); the sum over all
accounts is checked to be zero when each test ends (tests/ledger/conftest.py)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from server.ledger.journal import Ledger, hand_entries, player_account
from server.ledger.store import Entry, Store
from server.ledger.takeover import cash_out_rest, take_table, void_hands_of
from server.table.session import session_rows

START = 10_000


async def lost_process(store: Store, node: str = "x", run: str = "rx") -> Ledger:
    """Another process's ledger on the same store (the one that is lost or moves away)."""
    return Ledger(store, node=node, run=run)


async def seat(ledger: Ledger, table: str, chips: dict[str, int]) -> None:
    for player, amount in chips.items():
        await ledger.open_player(player, START)
        assert await ledger.buy_in(player, table, amount, reason=f"buy_in {table}")


async def table_balances(ledger: Ledger, prefix: str) -> dict[str, int]:
    return {a: v for a, v in (await ledger.store.balances(prefix)).items() if v}


async def journal_after(store: Store, seq: int) -> list[Entry]:
    return await store.journal(seq, 10_000)


async def last_seq(store: Store) -> int:
    entries = await store.journal(0, 100_000)
    return entries[-1].seq if entries else 0


async def test_take_table_moves_exactly_the_balances_in_one_batch(ledger: Ledger) -> None:
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000, "bob": 2000, "cat": 500})
    await seat(x, "t2", {"dan": 700})  # another table of x
    older = await lost_process(store, run="r0")  # an older run of x, same table id
    await seat(older, "t1", {"eve": 400})
    namesake = await lost_process(store, node="x2")  # a node whose name starts with "x"
    await seat(namesake, "t1", {"fay": 600})
    await seat(x, "t10", {"gus": 800})  # a table whose id starts with "t1"
    untouched = {p: v for p, v in (await store.balances()).items()
                 if not p.startswith("table:x:rx:t1:") and p not in
                 ("player:cat", "table:n1:r1:t1:ann", "table:n1:r1:t1:bob")}
    before = await last_seq(store)

    stacks = await take_table(ledger, "t1", "x", "rx", {"ann", "bob", "zed"})

    assert stacks == {"ann": 3000, "bob": 2000}  # zed is seated but had nothing there
    assert await table_balances(ledger, "table:x:rx:t1:") == {}
    assert await ledger.balance(ledger.table_account("t1", "ann")) == 3000
    assert await ledger.balance(ledger.table_account("t1", "bob")) == 2000
    assert ledger.table_account("t1", "ann") == "table:n1:r1:t1:ann"  # the taker's own
    assert await ledger.balance(player_account("cat")) == START  # not seated: cashed out
    assert await ledger.balance(ledger.table_account("t1", "cat")) == 0
    assert {p: v for p, v in (await store.balances()).items() if p in untouched} == untouched
    entries = await journal_after(store, before)
    moves = [e for e in entries if e.amount > 0]
    assert {(e.src, e.dst, e.amount) for e in moves} == {
        ("table:x:rx:t1:ann", "table:n1:r1:t1:ann", 3000),
        ("table:x:rx:t1:bob", "table:n1:r1:t1:bob", 2000),
        ("table:x:rx:t1:cat", "player:cat", 500)}
    assert len(moves) == 3 and len({e.batch for e in entries}) == 1  # one batch
    assert await ledger.total() == 0


async def test_a_second_take_moves_nothing(ledger: Ledger) -> None:
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000, "cat": 500})
    assert await take_table(ledger, "t1", "x", "rx", {"ann"}) == {"ann": 3000}
    snapshot = await store.balances()
    before = await last_seq(store)
    again = await take_table(ledger, "t1", "x", "rx", {"ann"})
    assert again == {}  # nothing left at x's table: nothing moved, nothing to report
    assert await store.balances() == snapshot
    assert await journal_after(store, before) == []
    assert await ledger.total() == 0


class _Together:
    """A store whose ``balances`` answers only once ``n`` callers are waiting for it: two
    takers read the same balances before either applies its batch (a retry racing the first
    attempt), whatever the store's own timing."""

    def __init__(self, store: Store, n: int) -> None:
        self._store = store
        self._n = n
        self._arrived = 0
        self._all = asyncio.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    async def balances(self, prefix: str = "") -> dict[str, int]:
        got = await self._store.balances(prefix)
        self._arrived += 1
        if self._arrived >= self._n:
            self._all.set()
        await asyncio.wait_for(self._all.wait(), 10)
        return got


async def test_two_takes_that_read_the_same_balances_move_them_once(ledger: Ledger) -> None:
    """The idempotency key ``adopt:<node>:<run>:<table>``: the second batch is a duplicate
    (not a refusal: it does not raise), so the chips move once."""
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000, "bob": 2000, "cat": 500})
    racing = Ledger(_Together(store, 2), node="n1", run="r1")
    before = await last_seq(store)
    first, second = await asyncio.gather(
        take_table(racing, "t1", "x", "rx", {"ann", "bob"}),
        take_table(racing, "t1", "x", "rx", {"ann", "bob"}))
    assert first == second == {"ann": 3000, "bob": 2000}
    assert await ledger.balance(ledger.table_account("t1", "ann")) == 3000
    assert await ledger.balance(ledger.table_account("t1", "bob")) == 2000
    assert await ledger.balance(player_account("cat")) == START
    assert await table_balances(ledger, "table:x:") == {}
    assert len({e.batch for e in await journal_after(store, before)}) == 1
    assert await ledger.total() == 0


async def test_void_hands_of_voids_only_the_lost_nodes_hands(ledger: Ledger) -> None:
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000, "bob": 2000})
    # a hand that ended: its result is in the accounts (ann lost 500 to bob)
    await x.hand_started("t1", "t1.1", {"ann": 3000, "bob": 2000})
    await x.hand_result("t1", "t1.1", hand_entries({"ann": 3000, "bob": 2000},
                                                   {"ann": 2500, "bob": 2500}))
    # the hand x was playing when it was lost (chips are in the table accounts until its end)
    await x.hand_started("t1", "t1.2", {"ann": 2500, "bob": 2500})
    older = await lost_process(store, run="r0")  # another run of x left one too
    await older.hand_started("t3", "t3.4", {})
    other = await lost_process(store, node="x2", run="rz")  # a live process ("x2", not "x")
    await seat(other, "t1", {"cat": 900})
    await other.hand_started("t1", "t1.2", {"cat": 900})
    await ledger.hand_started("t5", "t5.1", {})  # the taker's own running hand

    voided = await void_hands_of(ledger, "x")

    assert sorted(voided) == ["x:r0:t3.4", "x:rx:t1.2"]
    assert sorted(m.hand for m in await store.open_hands()) == ["n1:r1:t5.1", "x2:rz:t1.2"]
    notes = [e.reason for e in await store.journal(0, 10_000) if e.amount == 0]
    assert any(n.startswith("void x:rx:t1.2") for n in notes)
    # the voided hand moved nothing: the stacks from before it, ready to be taken
    assert await table_balances(ledger, "table:x:rx:t1:") == {
        "table:x:rx:t1:ann": 2500, "table:x:rx:t1:bob": 2500}
    assert await ledger.balance(other.table_account("t1", "cat")) == 900
    assert await void_hands_of(ledger, "x") == []  # nothing left to void
    assert await take_table(ledger, "t1", "x", "rx", {"ann", "bob"}) == \
        {"ann": 2500, "bob": 2500}
    assert await ledger.total() == 0


async def test_cash_out_rest_returns_the_lost_nodes_leftover_chips(ledger: Ledger) -> None:
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000})
    await seat(x, "t2", {"ann": 1000, "bob": 2000})  # a table not in the directory
    older = await lost_process(store, run="r0")
    await seat(older, "t7", {"cat": 400})
    live = await lost_process(store, node="x2", run="rz")
    await seat(live, "t1", {"dan": 600})
    assert await take_table(ledger, "t1", "x", "rx", {"ann"}) == {"ann": 3000}

    cashed = await cash_out_rest(ledger, "x")

    assert cashed == {"ann": 1000, "bob": 2000, "cat": 400}
    assert await table_balances(ledger, "table:x:") == {}
    assert await ledger.balance(player_account("ann")) == START - 3000  # (3000 are at t1)
    assert await ledger.balance(player_account("bob")) == START
    assert await ledger.balance(player_account("cat")) == START
    assert await ledger.balance(ledger.table_account("t1", "ann")) == 3000  # taken: kept
    assert await ledger.balance(live.table_account("t1", "dan")) == 600  # another node's
    assert await cash_out_rest(ledger, "x") == {}
    assert await ledger.total() == 0


async def test_chips_in_a_pot_account_stop_the_takeover(ledger: Ledger) -> None:
    store = ledger.store
    x = await lost_process(store)
    await seat(x, "t1", {"ann": 3000, "bob": 2000})
    assert await x.transfer(player_account("bob"), x.pot_account("t1"), 100, reason="test")
    snapshot = await store.balances()
    with pytest.raises(RuntimeError, match="pot"):
        await take_table(ledger, "t1", "x", "rx", {"ann", "bob"})
    assert await store.balances() == snapshot  # nothing moved
    with pytest.raises(RuntimeError, match="pot"):
        await cash_out_rest(ledger, "x")
    assert await ledger.balance(x.pot_account("t1")) == 100
    assert await ledger.total() == 0


async def test_a_moved_tables_lines_are_found_by_the_table_on_every_run(
        ledger: Ledger, store: Store) -> None:
    """Issue 23: after a move, the taker's ``table_entries`` of the table holds the lines
    written by the old owner's run too (the buy-ins there), and nothing of another table
    whose id merely shares a prefix; the session rows' nets equal the balances' moves."""
    old = await lost_process(store)
    await seat(old, "t7", {"ann": 500, "ben": 500})
    await seat(old, "t70", {"cat": 300})  # another table: never in t7's lines
    before = await ledger.table_entries("t7")  # followed from before the move, too
    assert {e.reason for e in before} == {"buy_in t7"}
    await take_table(ledger, "t7", "x", "rx", {"ann", "ben"})
    assert await ledger.transfer(ledger.table_account("t7", "ann"),
                                 ledger.table_account("t7", "ben"), 20, reason="pot")
    for player in ("ann", "ben"):
        account = ledger.table_account("t7", player)
        assert await ledger.cash_out(player, "t7", await ledger.balance(account),
                                     reason="cash_out t7")
    lines = await ledger.table_entries("t7")
    assert [e.reason for e in lines[:2]] == ["buy_in t7", "buy_in t7"]
    assert all("t70" not in e.src + e.dst for e in lines)
    rows = {r["player"]: r for r in session_rows(lines, ())}
    assert (rows["ann"]["buy_ins"], rows["ann"]["net"], rows["ann"]["at_table"]) == (500, -20, 0)
    assert (rows["ben"]["buy_ins"], rows["ben"]["net"], rows["ben"]["cash_outs"]) == (500, 20, 520)
    for player, net in (("ann", -20), ("ben", 20)):
        assert await ledger.balance(player_account(player)) == START + net
    assert await old.cash_out("cat", "t70", 300, reason="cash_out t70")


def test_a_run_with_a_colon_is_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        Ledger(store, node="n", run="r:1")
