"""CSP-10 at the tables: two Caribbean tables of one process; the hand dealt first is paid
first even when it settles last; payouts reach the players' accounts (not the stacks), each
once; the lobby shows the pool."""

from __future__ import annotations

import dataclasses

import pytest

from server.rules.cards import make_deck
from server.table.games import jackpot_round
from server.table.jackpot import EmbeddedJackpot
from tests.table.helpers import Harness, round_of
from tests.table.test_table_behaviour import CFG

STAKES = {"min": 10, "max": 100}
#: the jackpot wager is the house's (CSP-13, Config.jackpot_wager), not the creator's
JP_CFG = dataclasses.replace(CFG, jackpot_wager=5)


def deck(player: list[str], dealer: list[str]) -> list[str]:
    """One player: their cards leave at positions 0, 2, 4, 6, 8, the dealer's at 1, 3 … 9."""
    head = [c for pair in zip(player, dealer, strict=True) for c in pair]
    return head + [c for c in make_deck() if c not in head]


async def test_csp10_table_dealt_first_is_paid_first_even_when_it_settles_last() -> None:
    """CSP-10/CSP-07/CSP-09: alice's royal flush was dealt before bob's flush; bob settles
    first and waits; when alice settles, alice is paid from the pool first, then bob."""
    h = Harness(config=JP_CFG)
    jp = h.registry.jackpot
    assert isinstance(jp, EmbeddedJackpot)  # the harness's default: the in-process pools
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
    assert ta.engine is not None and round_of(ta).phase == "decisions"  # dealt: ticket 1
    await h.advance(tb, 0.5)
    assert (await h.send(tb, bob, "act", action="ante", amount=20, jackpot=True))["type"] \
        == "ok"
    assert tb.engine is not None and round_of(tb).phase == "decisions"  # dealt: ticket 2
    assert (await h.send(tb, bob, "act", action="play"))["type"] == "ok"
    await jp.drain()
    key_a = f"{jackpot_round(f'{ta.table_id}.1', ta.config.node)}:0"
    key_b = f"{jackpot_round(f'{tb.table_id}.1', tb.config.node)}:0"
    assert jp.waiting == {key_b} and jp.payouts == []  # bob waits for alice
    assert h.wallet.balance("bob") == 100_000 - 1000
    assert (await h.send(ta, alice, "act", action="play"))["type"] == "ok"
    await jp.drain()
    assert [(p.key, p.player) for p in jp.payouts] == [(key_a, "alice"), (key_b, "bob")]
    # the royal flush takes the larger of the reset amount and the whole pool; the pool is
    # then reseeded to $10,000 and the flush gets its fixed $50
    assert [p.amount for p in jp.payouts] == [1_000_000, 5_000]
    assert h.wallet.balance("alice") == 100_000 - 1000 + 1_000_000
    assert h.wallet.balance("bob") == 100_000 - 1000 + 5_000
    assert jp.waiting == set() and await jp.coord.due() == []  # type: ignore[union-attr]
    assert ta.seats[0] is not None and ta.seats[0].stack > 1000  # the wager came back
    lobby = h.registry.tables("caribbean")
    assert {t["jackpot"]["pool"] for t in lobby} == {jp.pool} == {1_000_000}


def test_csp12_jackpot_ids_never_repeat_across_process_runs_or_nodes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """CSP-12: table hand ids (``t1.1``) start again in every process and after a restart;
    the jackpot's keys (global order, contributions, ledger payout keys) must not, or a later
    round's wager or payout would be taken for an earlier one's and dropped."""
    import server.table.games as ct

    first_run = ct.jackpot_round("t1.1", "a")
    assert first_run.startswith("t1.1@a.")
    assert ct.jackpot_round("t1.1", "b") != first_run  # another process, same hand id
    monkeypatch.setattr(ct, "RUN_SCOPE", "restarted")
    assert ct.jackpot_round("t1.1", "a") != first_run  # the same node after a restart
