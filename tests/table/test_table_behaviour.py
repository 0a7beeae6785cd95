"""Clocks, reconnection, seats (GEN-04/05/06), chat, lobby errors, fan-out robustness."""

from __future__ import annotations

import dataclasses
from collections import deque
from typing import Any

import pytest

from protocol import ProtocolError, parse_request
from server.config import Config
from server.table import TableActor
from tests.table.helpers import FakeSink, Harness, hand_of
from tests.table.test_hand_flow import DECK, HOLDEM

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0, reconnect_grace=30.0,
             consecutive_timeouts_to_sit_out=2)


async def heads_up(h: Harness, **extra: Any) -> tuple[TableActor, FakeSink, FakeSink]:
    t = h.create(**{**HOLDEM, **extra})
    alice, bob = h.player("alice"), h.player("bob")
    assert (await h.send(t, alice, "sit", seat=0, buy_in=5000))["type"] == "ok"
    assert (await h.send(t, bob, "sit", seat=1, buy_in=5000))["type"] == "ok"
    return t, alice, bob


async def finish_by_folding(h: Harness, t: TableActor, sinks: dict[int, FakeSink]) -> None:
    while t.engine is not None:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        action = "check" if opts.check else "fold"
        assert (await h.send(t, sinks[seat], "act", action=action))["type"] == "ok"


# --------------------------------------------------------------------------- clocks
async def test_timeout_folds_when_a_call_is_due_then_sits_out_after_n() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    assert t.engine is not None and hand_of(t).to_act == 0  # small blind faces the big blind
    turn = alice.of("turn")[-1]
    assert turn["deadline"] == pytest.approx(h.clock.wall() + 10.0)
    assert turn["time_bank"] == pytest.approx(5.0) and "in_bank" not in turn
    await h.advance(t, 10.0)  # the action clock runs out: the time bank starts
    assert t.engine is not None and t.turns.in_bank
    for viewer in (alice, bob):  # the bank is announced to everyone, options to alice only
        banked = viewer.of("turn")[-1]
        assert banked["seat"] == 0 and banked["in_bank"] is True
        assert banked["deadline"] == pytest.approx(h.clock.wall() + 5.0)
        assert ("options" in banked) == (viewer is alice)
    await h.advance(t, 5.0)  # the bank runs out too: fold (a call was due)
    folded = [m for m in bob.of("acted") if m["seat"] == 0][-1]
    assert folded["action"] == "fold" and folded["timeout"] is True
    assert t.seats[0].bank == 0  # type: ignore[union-attr]
    assert t.engine is None
    await h.advance(t, 2.0)  # next hand; no bank left: folds after the action clock
    # GEN-05: the big blind moved on to seat 0, so seat 1 (small blind) acts first; it raises
    assert t.engine is not None and hand_of(t).to_act == 1
    raise_to = hand_of(t).options(1).raise_[0]  # type: ignore[union-attr]
    assert (await h.send(t, bob, "act", action="raise", amount=raise_to))["type"] == "ok"
    assert hand_of(t).to_act == 0
    await h.advance(t, 10.0)
    assert t.engine is None
    assert bob.of("sat_out")[-1]["seat"] == 0  # two timeouts in a row: sat out
    assert t.seats[0].sitting_out  # type: ignore[union-attr]
    await h.advance(t, 5.0)
    assert t.engine is None  # one player left in: no hand


async def test_timeout_checks_when_free_and_bank_is_consumed_by_late_action() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    await h.advance(t, 12.0)  # alice uses 2 s of her bank
    assert (await h.send(t, alice, "act", action="call"))["type"] == "ok"
    assert t.seats[0].bank == pytest.approx(3.0)  # type: ignore[union-attr]
    assert t.seats[0].timeouts == 0  # type: ignore[union-attr]
    assert t.engine is not None and hand_of(t).to_act == 1  # the big blind's option
    await h.advance(t, 15.0)
    checked = [m for m in alice.of("acted") if m["seat"] == 1][-1]
    assert checked["action"] == "check" and checked["timeout"] is True


# --------------------------------------------------------------------------- reconnection
async def test_reconnect_resume_gives_missed_events_and_own_cards() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h, decks=[DECK])
    await h.advance(t, 2.0)
    assert (await h.send(t, alice, "act", action="call"))["type"] == "ok"
    seen = alice.messages[-1].get("seq") or max(m.get("seq", 0) for m in alice.messages)
    t.detach(alice)
    await t.idle()
    assert (await h.send(t, bob, "act", action="check"))["type"] == "ok"  # flop, alice's turn
    again = FakeSink(player_id="alice", name="Alice")
    assert (await h.send(t, again, "resume", since=seen))["type"] == "ok"
    missed = [m for m in again.messages if m["type"] != "ok"]
    assert [m["seq"] for m in missed] == list(range(seen + 1, t.seq + 1))
    # her going and coming back were announced (issue 24): at once, both ways
    assert [(m["seat"], m["online"]) for m in missed if m["type"] == "presence"] == \
        [(0, False), (0, True)]
    assert bob.of("presence")[-1] == missed[-1]
    assert missed[-2]["type"] == "turn" and "options" in missed[-2]
    # from the start: exactly her own cards again
    full = FakeSink(player_id="alice", name="Alice")
    await h.send(t, full, "resume", since=0)
    assert [m["cards"] for m in full.of("dealt") if m["seat"] == 0] == [["As", "Ad"]]
    assert [m["cards"] for m in full.of("dealt") if m["seat"] == 1] == [[None, None]]
    # events gone: a snapshot with her cards and nobody else's
    t.fanout.events = deque(list(t.fanout.events)[-3:], maxlen=3)
    late = FakeSink(player_id="alice", name="Alice")
    await h.send(t, late, "resume", since=1)
    snap = late.of("snapshot")[-1]
    assert snap["seats"][0]["cards"] == ["As", "Ad"] and snap["you"] == 0
    assert snap["seats"][1]["cards"] == [None, None]
    assert snap["board"] == ["Ah", "7s", "8d"]
    assert snap["turn"]["seat"] == 0 and "options" in snap["turn"]
    # the new connection now gets her events
    assert (await h.send(t, late, "act", action="check"))["type"] == "ok"


async def test_disconnected_player_is_sat_out_after_the_grace() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    t.detach(alice)
    await t.idle()
    assert t.seats[0] is not None and t.seats[0].sink is None
    await h.advance(t, 1.0)  # hand starts, alice's clock runs without her
    await h.advance(t, 30.0)
    assert t.seats[0].sitting_out  # type: ignore[union-attr]
    assert t.seats[0] is not None  # keeps the seat


# --------------------------------------------------------------------------- fan-out
async def test_a_failing_sink_does_not_stop_the_table() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    broken = FakeSink()
    watcher = FakeSink()
    await h.send(t, broken, "watch")
    await h.send(t, watcher, "watch")
    broken.fail = True
    await h.advance(t, 2.0)
    assert t.engine is not None
    assert broken.conn_id not in t.sinks  # detached after its first failure
    assert watcher.of("hand_started") and bob.of("turn")
    assert (await h.send(t, alice, "act", action="fold"))["type"] == "ok"
    assert watcher.of("hand_ended")


async def test_frames_are_encoded_once_per_audience_and_codec() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    w1, w2 = FakeSink(), FakeSink()
    await h.send(t, w1, "watch")
    await h.send(t, w2, "watch")
    await h.advance(t, 2.0)
    assert w1.frames[-1] is w2.frames[-1]  # the same frame object


async def test_full_inbox_answers_server_busy() -> None:
    h = Harness(config=dataclasses.replace(CFG, inbox_size=1))
    t = h.create(**HOLDEM)
    sink = FakeSink()
    for rid in (1, 2):
        await t.submit(_env(t, sink, rid))
    assert sink.answers()[0] == {"type": "error", "rid": 2, "code": "server_busy",
                                 "message": sink.answers()[0]["message"]}
    await t.idle()
    assert [a["type"] for a in sink.answers()] == ["error", "ok"]


def _env(t: TableActor, sink: FakeSink, rid: int) -> Any:
    from server.table import Envelope
    return Envelope(parse_request({"type": "watch", "rid": rid, "table": t.table_id}), sink)


async def test_spectator_stream_is_delayed_players_are_not() -> None:
    h = Harness(config=CFG)
    t = h.create(**HOLDEM, settings={"spectator_delay": 3})
    spectator = FakeSink()
    await h.send(t, spectator, "watch")
    alice = h.player("alice")
    await h.send(t, alice, "sit", seat=0, buy_in=5000)
    assert alice.of("seated") and not spectator.of("seated")
    await h.advance(t, 3.0)
    assert spectator.of("seated")


async def test_spectator_delay_timers_run_in_the_actor_and_are_cancelled_on_close() -> None:
    """The delayed frames are handed to the actor's inbox when due (never sent from a clock
    callback), and a table that closes cancels those still to come."""
    h = Harness(config=CFG)
    t = h.create(**HOLDEM, settings={"spectator_delay": 3})
    spectator = FakeSink()
    await h.send(t, spectator, "watch")
    alice = h.player("alice")
    await h.send(t, alice, "sit", seat=0, buy_in=5000)
    h.clock.advance(3.0)  # due: queued for the actor, not sent yet
    assert not spectator.of("seated") and not t.inbox.empty()
    await t.idle()
    assert spectator.of("seated")
    await h.send(t, alice, "chat", text="bye")
    t.shut_down()
    await t.idle()
    assert t.stopped
    h.clock.advance(10.0)
    assert t.inbox.empty() and not spectator.of("chat")


async def test_a_late_spectator_of_a_delayed_table_sees_a_consistent_delayed_view() -> None:
    """The snapshot is taken when the spectator watches and delivered ``spectator_delay``
    late; the delayed events that follow continue it with no gap and no repeat."""
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h, settings={"spectator_delay": 4})
    await h.advance(t, 2.0)
    assert t.engine is not None  # a hand in progress; hole cards are out
    late = FakeSink()
    await h.send(t, late, "watch")
    seq_at_watch = t.seq
    assert not late.of("snapshot")  # not yet: it would show the present
    await h.send(t, alice, "act", action="call")  # happens after the watch
    await h.advance(t, 4.0)
    snaps = late.of("snapshot")
    assert len(snaps) == 1 and snaps[0]["seq"] == seq_at_watch
    later = [f["seq"] for f in late.messages if f["type"] != "snapshot" and "seq" in f]
    assert later and later == list(range(seq_at_watch + 1, seq_at_watch + 1 + len(later)))
    assert any(f["type"] == "acted" and f["seat"] == 0 for f in late.messages)
    for f in late.messages:  # never a hole card
        for seat in f.get("seats", []) if f["type"] == "snapshot" else []:
            assert all(c is None for c in (seat or {}).get("cards") or [])


# --------------------------------------------------------------------------- seats
async def test_waiting_list_and_seat_change_priority_gen04() -> None:
    h = Harness(config=CFG)
    t = h.create(**{**HOLDEM, "seats": 2})
    alice, bob, carol = h.player("alice"), h.player("bob"), h.player("carol")
    await h.send(t, alice, "sit", seat=0, buy_in=3000)
    await h.send(t, bob, "sit", seat=1, buy_in=3000)
    full = await h.send(t, carol, "sit", seat=0, buy_in=4000)
    assert full["code"] == "table_full"
    assert [w.player_id for w in t.seats.waiting] == ["carol"]
    change = await h.send(t, alice, "sit", seat=1, buy_in=0 + 2000)
    assert change["type"] == "ok" and change["queued"] is True
    assert (await h.send(t, bob, "leave"))["type"] == "ok"
    assert t.seats[1].player_id == "alice"  # type: ignore[union-attr]  # the mover first
    assert t.seats[0].player_id == "carol"  # type: ignore[union-attr]  # then the list
    assert t.seats[0].stack == 4000  # type: ignore[union-attr]
    assert h.wallet.balance("carol") == 96_000
    assert carol.of("snapshot")


async def test_sit_errors() -> None:
    h = Harness(config=CFG)
    t = h.create(**HOLDEM)
    alice, bob = h.player("alice"), h.player("bob", balance=1000)
    assert (await h.send(t, FakeSink(), "sit", seat=0, buy_in=5000))["code"] == "unauthorized"
    assert (await h.send(t, alice, "sit", seat=7, buy_in=5000))["code"] == "bad_seat"
    assert (await h.send(t, alice, "sit", seat=0, buy_in=100))["code"] == "bad_buy_in"
    assert (await h.send(t, alice, "sit", seat=0, buy_in=20000))["code"] == "bad_buy_in"
    assert (await h.send(t, alice, "sit", seat=0, buy_in=5000))["type"] == "ok"
    assert (await h.send(t, bob, "sit", seat=0, buy_in=5000))["code"] == "seat_taken"
    assert (await h.send(t, bob, "sit", seat=1, buy_in=5000))["code"] == "insufficient_funds"
    assert (await h.send(t, bob, "act", action="fold"))["code"] == "not_seated"
    assert (await h.send(t, alice, "act", action="fold"))["code"] == "no_hand"


async def test_button_moves_clockwise_with_dead_button_gen05() -> None:
    h = Harness(config=CFG)
    t = h.create(**HOLDEM)
    sinks = {}
    for seat in (1, 3, 4):
        sinks[seat] = h.player(f"p{seat}")
        await h.send(t, sinks[seat], "sit", seat=seat, buy_in=5000)
    buttons, blinds = [], []
    for _ in range(5):
        await h.advance(t, 2.0)
        assert t.engine is not None
        buttons.append(hand_of(t).button)
        blinds.append(tuple(hand_of(t).blind_seats))
        await finish_by_folding(h, t, sinks)
    # the first button on the highest occupied seat; then the big blind moves one player a
    # hand and the small blind and the button follow it: the empty seats 5 and 0 are skipped
    assert buttons == [4, 1, 3, 4, 1]
    assert blinds == [(1, 3), (3, 4), (4, 1), (1, 3), (3, 4)]


async def test_buy_in_only_between_hands_gen06_and_leave_waits_for_hand_end() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h)
    await h.advance(t, 2.0)
    assert t.engine is not None
    carol = h.player("carol")
    assert (await h.send(t, carol, "sit", seat=2, buy_in=5000))["type"] == "ok"
    assert 2 not in hand_of(t).stacks  # not dealt into the running hand
    rebuy = await h.send(t, alice, "sit", seat=0, buy_in=1000)
    assert rebuy["type"] == "ok" and rebuy["pending"] is True
    # every viewer is told at once that the chips wait for the hand's end (issue 24)
    waiting = carol.of("seated")[-1]
    assert (waiting["seat"], waiting["stack"], waiting["topup"]) == (0, 5000, 1000)
    assert hand_of(t).initial[0] == 5000
    left = await h.send(t, bob, "leave")
    assert left["type"] == "ok" and left["pending"] is True
    assert t.seats[1] is not None  # still seated during the hand
    assert (await h.send(t, alice, "act", action="fold"))["type"] == "ok"
    assert t.engine is None
    assert t.seats[0].stack == 5000 - 50 + 1000  # type: ignore[union-attr]
    # the chips added are announced at the hand's end, like a rebuy between hands
    applied = carol.of("seated")[-1]
    assert (applied["seat"], applied["stack"], applied.get("topup")) == (0, 5950, None)
    assert t.seats[1] is None
    assert h.wallet.balance("bob") == 100_000 + 50


async def test_sit_out_and_sit_in_waits_for_the_big_blind() -> None:
    """GEN-05: a player whom the big blind passed while sitting out waits for it on return."""
    h = Harness(config=CFG)
    t = h.create(**HOLDEM)
    sinks = {s: h.player(f"p{s}") for s in (0, 1, 2)}
    for s, sink in sinks.items():
        await h.send(t, sink, "sit", seat=s, buy_in=5000)
    await h.advance(t, 2.0)  # hand 1: button 2, blinds 0 and 1
    assert t.engine is not None and hand_of(t).blind_seats == [0, 1]
    await finish_by_folding(h, t, sinks)
    await h.send(t, sinks[0], "sit_out")
    big = []
    for _ in range(2):  # hands 2 and 3 without seat 0: the big blind goes 2, then 1
        await h.advance(t, 2.0)
        assert t.engine is not None and set(hand_of(t).stacks) == {1, 2}
        big.append(hand_of(t).blind_seats[-1])
        await finish_by_folding(h, t, sinks)
    assert big == [2, 1]  # it passed seat 0 on the way from 2 to 1
    await h.send(t, sinks[0], "sit_in")
    await h.advance(t, 2.0)  # hand 4: the big blind is on 2; seat 0 waits
    assert t.engine is not None and 0 not in hand_of(t).stacks
    await finish_by_folding(h, t, sinks)
    await h.advance(t, 2.0)  # hand 5: the big blind reaches seat 0, who comes in on it
    assert t.engine is not None and 0 in hand_of(t).stacks and hand_of(t).blind_seats[-1] == 0


# --------------------------------------------------------------------------- chat & show
async def test_chat_and_spectator_chat_switch() -> None:
    h = Harness(config=CFG)
    t = h.create(**HOLDEM, settings={"spectator_chat": False})
    alice, guest = h.player("alice"), h.player("guest")
    await h.send(t, alice, "sit", seat=0, buy_in=5000)
    await h.send(t, guest, "watch")
    assert (await h.send(t, guest, "chat", text="hi"))["code"] == "chat_disabled"
    assert (await h.send(t, alice, "chat", text="gl"))["type"] == "ok"
    assert guest.of("chat")[-1]["seat"] == 0 and guest.of("chat")[-1]["text"] == "gl"


async def test_show_hands_reveals_a_mucked_hand_show02() -> None:
    h = Harness(config=CFG)
    t, alice, bob = await heads_up(h, decks=[DECK])
    watcher = FakeSink()
    await h.send(t, watcher, "watch")
    await h.advance(t, 2.0)
    hand_id = t.dealer.hand_id
    await h.send(t, alice, "act", action="call")
    await h.send(t, bob, "act", action="check")
    for _ in range(3):
        await h.send(t, alice, "act", action="check")
        await h.send(t, bob, "act", action="check")
    assert watcher.of("mucked")[-1]["seat"] == 1
    assert (await h.send(t, alice, "show_hands", hand="nope"))["code"] == "unknown_hand"
    assert (await h.send(t, alice, "show_hands", hand=hand_id))["type"] == "ok"
    shown = watcher.of("showdown")[-1]
    assert shown["seat"] == 1 and shown["cards"] == ["Kc", "Kd"]


# --------------------------------------------------------------------------- lobby
@pytest.mark.parametrize(("fields", "code"), [
    ({**HOLDEM, "stakes": {"ante": 5}}, "bad_stakes"),
    ({**HOLDEM, "stakes": {"blinds": [50, 100], "bogus": 1}}, "bad_stakes"),
    ({**HOLDEM, "settings": {"bogus": 1}}, "bad_settings"),
    ({**HOLDEM, "variant": "manila3", "seats": 10}, "bad_settings"),
    ({**HOLDEM, "decks": [DECK[:-1]]}, "bad_deck"),
    ({**HOLDEM, "decks": [DECK[:-1] + DECK[:1]]}, "bad_deck"),
    ({"variant": "stud7", "structure": "fixed_limit", "stakes": {"small_bet": 10,
                                                                "big_bet": 20}, "seats": 6},
     "bad_stakes"),
])
async def test_create_table_refusals(fields: dict[str, Any], code: str) -> None:
    h = Harness(config=CFG)
    with pytest.raises(ProtocolError) as info:
        h.create(**fields)
    assert info.value.code == code


async def test_decks_only_in_test_mode_and_lobby_summary() -> None:
    h = Harness(config=dataclasses.replace(CFG, test_mode=False))
    with pytest.raises(ProtocolError) as info:
        h.create(**HOLDEM, decks=[DECK])
    assert info.value.code == "test_mode_only"
    t = h.create(**HOLDEM, name="Main")
    alice, spectator = h.player("alice"), FakeSink()
    await h.send(t, alice, "sit", seat=0, buy_in=5000)
    await h.send(t, spectator, "watch")
    assert h.registry.tables() == [{
        "table": t.table_id, "name": "Main", "variant": "holdem", "structure": "no_limit",
        "stakes": {"blinds": [50, 100]}, "seats": 6, "players": 1, "spectators": 1,
        "rake": {"bp": 0, "cap": 0}}]  # GEN-10: the house's rake (none by default)
    assert h.registry.tables("stud7") == []
