"""CSP-10 at the tables: two Caribbean tables of one process; the hand dealt first is paid
first even when it settles last; payouts reach the players' accounts (not the stacks), each
once; the lobby shows the pool."""

from __future__ import annotations

from server.rules.cards import make_deck
from tests.table.helpers import Harness
from tests.table.test_table_behaviour import CFG

STAKES = {"min": 10, "max": 100, "jackpot_wager": 5}


def deck(player: list[str], dealer: list[str]) -> list[str]:
    """One player: their cards leave at positions 0, 2, 4, 6, 8, the dealer's at 1, 3 … 9."""
    head = [c for pair in zip(player, dealer, strict=True) for c in pair]
    return head + [c for c in make_deck() if c not in head]


async def test_csp10_table_dealt_first_is_paid_first_even_when_it_settles_last() -> None:
    """CSP-10/CSP-07/CSP-09: alice's royal flush was dealt before bob's flush; bob settles
    first and waits; when alice settles, alice is paid from the pool first, then bob."""
    h = Harness(config=CFG)
    jp = h.registry.jackpot
    jp.pool = 200_000
    royal = deck(["As", "Ks", "Qs", "Js", "Ts"], ["2c", "3d", "5h", "7c", "9d"])
    flush = deck(["2h", "5h", "8h", "Jh", "Kh"], ["2c", "3d", "4s", "7c", "9d"])
    ta = h.create(variant="caribbean", stakes=STAKES, seats=5, decks=[royal])
    tb = h.create(variant="caribbean", stakes=STAKES, seats=5, decks=[flush])
    alice, bob = h.player("alice"), h.player("bob")
    await h.send(ta, alice, "sit", seat=0, buy_in=1000)
    await h.send(tb, bob, "sit", seat=0, buy_in=1000)
    await h.advance(ta, 2.0)
    assert (await h.send(ta, alice, "act", action="ante", amount=20, jackpot=True))["type"] \
        == "ok"
    assert ta.round is not None and ta.round.phase == "decisions"  # dealt: ticket 1
    await h.advance(tb, 0.5)
    assert (await h.send(tb, bob, "act", action="ante", amount=20, jackpot=True))["type"] \
        == "ok"
    assert tb.round is not None and tb.round.phase == "decisions"  # dealt: ticket 2
    assert (await h.send(tb, bob, "act", action="play"))["type"] == "ok"
    await jp.drain()
    assert jp.waiting == {f"{tb.table_id}.1:0"} and jp.payouts == []  # bob waits for alice
    assert h.wallet.balance("bob") == 100_000 - 1000
    assert (await h.send(ta, alice, "act", action="play"))["type"] == "ok"
    await jp.drain()
    assert [(p.key, p.player) for p in jp.payouts] == [(f"{ta.table_id}.1:0", "alice"),
                                                       (f"{tb.table_id}.1:0", "bob")]
    # the royal flush takes the larger of the reset amount and the whole pool; the pool is
    # then reseeded to $10,000 and the flush gets its fixed $50
    assert [p.amount for p in jp.payouts] == [1_000_000, 5_000]
    assert h.wallet.balance("alice") == 100_000 - 1000 + 1_000_000
    assert h.wallet.balance("bob") == 100_000 - 1000 + 5_000
    assert jp.waiting == set() and await jp.coord.due() == []  # type: ignore[union-attr]
    assert ta.seats[0] is not None and ta.seats[0].stack > 1000  # the wager came back
    lobby = h.registry.tables("caribbean")
    assert {t["jackpot"]["pool"] for t in lobby} == {jp.pool} == {1_000_000}
