"""Tables over the real ledger (both stores): after every hand the players' table accounts hold
exactly their stacks (plus pending rebuys), the rake account holds the rake, no hand is left
marked running, and the sum over all accounts is zero; a hand voided by a crash of the actor
moves no chip; shutdown returns every chip to the balances."""

from __future__ import annotations

from typing import Any

from server.config import Config
from server.ledger.journal import RAKE, Ledger, player_account
from server.ledger.wallet import LedgerWallet
from server.table import TableActor, TableRegistry
from tests.table.helpers import FakeSink, Harness

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 6,
                          "settings": {"rake_bp": 500, "rake_cap": 150}}
PLAYERS = ["ann", "ben", "cat"]


async def ledger_harness(ledger: Ledger) -> tuple[Harness, LedgerWallet]:
    # the operator allows the creator's 5% rake capped at 150 (GEN-09/GEN-10: house policy)
    h = Harness(seed=7, config=Config(test_mode=True, hand_pause=2.0, action_clock=10.0,
                                      time_bank=5.0, max_rake_bp=500, max_rake_cap=150))
    wallet = LedgerWallet(ledger)
    h.wallet = wallet  # type: ignore[assignment]
    h.registry = TableRegistry(h.config, wallet, clock=h.clock,
                               rng=lambda n: h.rnd.randbytes(n),
                               shuffle=lambda cards: h.rnd.sample(list(cards), len(cards)))
    for pid in PLAYERS:
        wallet.ensure(pid, await ledger.open_player(pid, 100_000))
    return h, wallet


async def check_books(ledger: Ledger, t: TableActor) -> None:
    assert await ledger.total() == 0
    marks = [m.hand for m in await ledger.store.open_hands()]
    assert marks == ([f"n1:r1:{t.dealer.hand_id}"] if t.in_hand else [])
    for st in t.seats:
        if st is not None:
            held = await ledger.balance(ledger.table_account(t.table_id, st.player_id))
            assert held == st.stack + st.topup, (st.player_id, held, st.stack, st.topup)
    assert await ledger.balance(ledger.pot_account(t.table_id)) == 0


async def play_hand(h: Harness, t: TableActor, sinks: dict[str, FakeSink]) -> None:
    """Everyone calls or checks down (the deck is the harness's seeded shuffle)."""
    await h.advance(t, 2.5)
    assert t.engine is not None
    while t.engine is not None:
        seat = t.turns.seat
        assert seat is not None
        sink = sinks[t.dealer.hand_owner[seat]]
        options = sink.of("turn")[-1]["options"]
        action = "check" if options.get("check") else "call"
        assert (await h.send(t, sink, "act", action=action))["type"] == "ok"


async def test_hands_rebuys_and_shutdown_keep_the_books(ledger: Ledger) -> None:
    h, wallet = await ledger_harness(ledger)
    t = h.create(**HOLDEM)
    t.dealer.decks = []
    sinks = {pid: FakeSink(player_id=pid, name=pid) for pid in PLAYERS}
    for seat, pid in enumerate(PLAYERS):
        assert (await h.send(t, sinks[pid], "sit", seat=seat, buy_in=5000))["type"] == "ok"
    assert wallet.balance("ann") == 95_000
    rake_seen = 0
    for n in range(4):
        await play_hand(h, t, sinks)
        await check_books(ledger, t)
        rake_seen = t.dealer.house_net
        assert await ledger.balance(RAKE) == rake_seen
        if n == 1:  # a rebuy between hands, then one during the next hand
            assert (await h.send(t, sinks["ben"], "sit", seat=1, buy_in=1000))["type"] == "ok"
            await check_books(ledger, t)
    assert rake_seen > 0
    await h.advance(t, 2.5)  # the next hand starts ...
    assert t.engine is not None
    pending = await h.send(t, sinks["cat"], "sit", seat=2, buy_in=500)
    assert pending.get("pending") is True
    await check_books(ledger, t)  # the rebuy is at the table already, as a top-up; the
    # running hand is marked in the ledger, and its chips are still in the players' accounts
    stacks_before = {st.player_id: st.stack + st.topup for st in t.seats if st is not None}
    t.fault = RuntimeError("injected")  # ... and the actor crashes in the middle of it
    mover = t.turns.seat
    assert mover is not None
    await h.send(t, sinks[t.dealer.hand_owner[mover]], "act", action="fold")
    await t.idle()
    assert t.engine is None  # voided: every stack as before the hand
    assert {st.player_id: st.stack + st.topup for st in t.seats if st is not None} == \
        stacks_before
    await h.registry.shutdown(1.0)
    assert await ledger.total() == 0
    assert await ledger.store.open_hands() == []  # the voided hand's mark is closed too
    assert any(e.reason.startswith("void ") and "injected" in e.reason
               for e in await ledger.store.journal(limit=10_000))
    balances = {pid: await ledger.balance(player_account(pid)) for pid in PLAYERS}
    assert sum(balances.values()) + rake_seen == 300_000
    assert balances == {pid: wallet.balance(pid) for pid in PLAYERS}
    assert not {a: v for a, v in (await ledger.store.balances("table:")).items() if v}
