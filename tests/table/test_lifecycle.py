"""Crash recovery, graceful shutdown, chip conservation breaks, Caribbean rounds."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

import pytest

from server.rules import events as ev
from tests.table.helpers import FakeSink, Harness, hand_of, round_of
from tests.table.test_table_behaviour import CFG, heads_up

START = 2 * 100_000


def everything(h: Harness) -> int:
    return h.wallet.total() + sum(t.seats.chips() for t in h.registry.actors.values())


async def test_crashed_actor_voids_refunds_and_restarts(caplog: pytest.LogCaptureFixture,
                                                         ) -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    watcher = FakeSink()
    await h.send(t, watcher, "watch")
    await h.advance(t, 2.0)
    hand_id = t.dealer.hand_id
    assert (await h.send(t, alice, "act", action="raise", amount=1000))["type"] == "ok"
    first_task = h.registry._tasks[t.table_id]
    t.inject_fault(RuntimeError("injected fault"))
    with caplog.at_level(logging.ERROR, logger="server.table"):
        answer = await h.send(t, bob, "act", action="call")
        for _ in range(5):
            await asyncio.sleep(0)
    assert answer["code"] == "internal_error"
    assert any("actor_crashed" in r.message and hand_id in r.message and t.table_id in
               r.message for r in caplog.records)
    assert h.registry.crashes == 1
    assert h.registry._tasks[t.table_id] is not first_task  # restarted
    assert t.engine is None
    assert [s.stack for s in t.seats[:2]] == [5000, 5000]  # type: ignore[union-attr]
    ended = watcher.of("hand_ended")[-1]
    assert ended["voided"] is True and ended["stacks"] == {"0": 5000, "1": 5000}
    await h.advance(t, 2.0)  # the restarted actor plays on
    assert t.engine is not None and t.dealer.hand_id != hand_id
    assert everything(h) == START


async def test_engine_invariant_error_voids_and_refunds_never_answers_a_refusal() -> None:
    """An engine bug (the checked deck ran out mid-hand) is not the player's doing: their
    action is answered ``ok``, the hand is voided and every stack refunded."""
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    hand = hand_of(t)
    assert hand is not None
    hand.stock = hand.stock[:hand.pos]  # a bug: the deck lost its cards
    first = alice if hand.to_act == 0 else bob
    second = bob if first is alice else alice
    assert (await h.send(t, first, "act", action="call"))["type"] == "ok"
    assert (await h.send(t, second, "act", action="check"))["type"] == "ok"
    assert t.engine is None
    assert bob.of("hand_ended")[-1].get("voided") is True
    assert [s.stack for s in t.seats[:2]] == [5000, 5000]  # type: ignore[union-attr]
    assert everything(h) == START


async def test_invariant_break_voids_and_refunds() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    assert t.engine is not None
    hand_of(t).stacks[1] += 7  # a bug: chips out of nowhere
    assert (await h.send(t, alice, "act", action="fold"))["type"] == "ok"
    assert t.engine is None
    assert bob.of("hand_ended")[-1].get("voided") is True
    assert [s.stack for s in t.seats[:2]] == [5000, 5000]  # type: ignore[union-attr]
    assert everything(h) == START


async def test_shutdown_mid_hand_voids_refunds_and_cashes_out() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    assert (await h.send(t, alice, "act", action="raise", amount=2000))["type"] == "ok"
    await h.registry.shutdown(0.01)  # nobody acts within the deadline
    assert t.stopped and t.table_id not in h.registry._tasks
    assert all(s is None for s in t.seats)
    assert h.wallet.balance("alice") == 100_000 and h.wallet.balance("bob") == 100_000
    assert bob.of("hand_ended")[-1]["voided"] is True
    with pytest.raises(Exception) as info:
        h.create(variant="holdem", structure="no_limit", stakes={"blinds": [1, 2]}, seats=2)
    assert getattr(info.value, "code", None) == "shutting_down"


async def test_shutdown_lets_a_running_hand_finish_within_the_deadline() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    stopping = asyncio.create_task(h.registry.shutdown(5.0))
    await asyncio.sleep(0)
    await t.idle()
    assert not t.stopped and t.engine is not None
    assert (await h.send(t, alice, "act", action="fold"))["type"] == "ok"
    await stopping
    assert t.stopped
    assert h.wallet.balance("alice") == 100_000 - 50  # the hand counted
    assert h.wallet.balance("bob") == 100_000 + 50
    assert not [m for m in bob.of("hand_ended") if m.get("voided")]


async def test_caribbean_round_ante_deal_decide_settle() -> None:
    h = Harness(config=dataclasses.replace(CFG, jackpot_wager=5))  # the house's wager (CSP-13)
    h.registry.jackpot.pool = 0
    t = h.create(variant="caribbean", stakes={"min": 10, "max": 100}, seats=5)
    alice, bob, watcher = h.player("alice"), h.player("bob"), FakeSink()
    jackpots: list[dict[str, object]] = []
    h.registry.jackpot_listener = jackpots.append
    await h.send(t, watcher, "watch")
    await h.send(t, alice, "sit", seat=0, buy_in=1000)
    await h.send(t, bob, "sit", seat=3, buy_in=1000)
    await h.advance(t, 2.0)
    assert t.engine is not None and round_of(t).phase == "antes"
    mine = [m for m in alice.of("turn") if m["seat"] == 0][-1]
    assert "options" in mine and all("options" not in m for m in watcher.of("turn"))
    assert (await h.send(t, alice, "act", action="ante", amount=20, jackpot=True))["type"] \
        == "ok"
    assert (await h.send(t, alice, "act", action="play"))["code"] == "bad_action"
    await h.advance(t, 10.0)  # bob never antes: the deadline sits him out; the deal follows
    assert t.engine is not None and round_of(t).phase == "decisions"
    dealer = watcher.of("dealer")[-1]
    assert dealer["cards"][:4] == [None] * 4 and dealer["cards"][4] is not None
    assert watcher.of("dealt")[-1]["cards"] == [None] * 5
    assert None not in alice.of("dealt")[-1]["cards"]
    assert (await h.send(t, alice, "act", action="play"))["type"] == "ok"
    assert t.engine is None
    settled = watcher.of("settled")[-1]["results"]
    assert set(settled) == {"0"} and settled["0"]["jackpot"] is not None
    assert watcher.of("hand_ended")[-1]["stacks"]["3"] == 1000  # sat out: untouched
    assert jackpots and "pool" in jackpots[-1]
    jp = h.registry.jackpot
    assert everything(h) + t.dealer.house_net + jp.pool + jp.minor + jp.house == START


async def test_draw_player_alone_sees_the_new_cards() -> None:
    h = Harness(config=CFG)
    t = h.create(variant="draw", structure="fixed_limit",
                 stakes={"blinds": [5, 10], "small_bet": 10, "big_bet": 20}, seats=4)
    alice, bob, watcher = h.player("alice"), h.player("bob"), FakeSink()
    await h.send(t, watcher, "watch")
    await h.send(t, alice, "sit", seat=0, buy_in=500)
    await h.send(t, bob, "sit", seat=1, buy_in=500)
    await h.advance(t, 2.0)
    sinks = {0: alice, 1: bob}
    hand = hand_of(t)
    assert hand is not None
    while hand.to_act is not None and hand.options(hand.to_act).draw is None:  # type: ignore[union-attr]
        seat = hand.to_act
        opts = hand.options(seat)
        assert opts is not None
        await h.send(t, sinks[seat], "act", action="check" if opts.check else "call")
    seat = hand.to_act
    assert seat is not None
    throw = hand.cards_of(seat)[:2]
    assert (await h.send(t, sinks[seat], "act", action="draw", discard=throw))["type"] == "ok"
    drew = [e for e in sinks[seat].of("drew") if e["seat"] == seat][-1]
    assert drew["count"] == 2 and len(drew["cards"]) == 2
    other = sinks[1 - seat].of("drew")[-1]
    assert "cards" not in other and "cards" not in watcher.of("drew")[-1]
    assert isinstance(ev.Drew, type)


async def test_a_table_that_keeps_crashing_backs_off_then_closes_with_everyone_refunded(
        ) -> None:
    """The first crash restarts at once; later ones within the window wait longer each time
    (backoff); past the restart budget the table is closed for good: the hand voided, every
    player refunded and cashed out, the viewers told, the table forgotten."""
    from server.table import registry as reg

    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    watcher = FakeSink()
    await h.send(t, watcher, "watch")
    table_id = t.table_id
    for crash in range(1, reg.RESTART_BUDGET + 2):
        assert h.registry._tasks.get(table_id) is not None
        t.inject_fault(RuntimeError(f"fault {crash}"))
        t.call(lambda: None)
        for _ in range(5):
            await asyncio.sleep(0)
        assert h.registry.crashes == crash
        if crash == 1:
            assert table_id in h.registry._tasks  # restarted at once
        elif crash <= reg.RESTART_BUDGET:
            assert table_id not in h.registry._tasks  # waiting out its backoff
            h.clock.advance(reg.RESTART_BACKOFF * 2 ** (crash - 2))
            assert table_id in h.registry._tasks
    for _ in range(20):
        await asyncio.sleep(0)
    assert h.registry.get(table_id) is None and t.stopped
    assert watcher.of("table_closed")[-1]["reason"] == "crashed"
    assert h.wallet.total() == START
