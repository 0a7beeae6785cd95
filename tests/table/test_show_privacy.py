"""SHOW-02 and SHOW-03 through the table actor.

SHOW-03: a folded hand (Caribbean Stud included) is never shown or named to anyone but its
owner: no frame, snapshot, replay, history copy or export of another viewer carries its cards
or its value. SHOW-02: after a showdown a seated player may have the hands given up unseen
revealed, as ``showdown`` frames marked with that hand's id, only until the next hand starts.
Every ``showdown`` frame carries ``hand`` (the hand id) and ``value`` (the hand's name).
"""

from __future__ import annotations

import json
import re
from typing import Any

from server.ledger.export import export
from server.ledger.history import HandRecord, MemoryHistory, player_copy
from server.table import TableActor
from tests.table.helpers import FakeSink, Harness, hand_of, round_of
from tests.table.test_hand_flow import DECK, HOLDEM, fixed_deck
from tests.table.test_table_behaviour import CFG, heads_up

# Caribbean: one card at a time in seat order (seat 0, seat 3), then the dealer (CSP-02).
# seat 0 (alice, folds): pair of eights; seat 3 (bob, plays): ace high; dealer: pair of queens
ALICE = ["8c", "8d", "2s", "5h", "Jc"]
BOB = ["Ah", "Kd", "7c", "4s", "3d"]
DEALER = ["Qh", "Qd", "6c", "5d", "2h"]
CSP_DECK = fixed_deck(*(c for i in range(5) for c in (ALICE[i], BOB[i], DEALER[i])))


def _text(messages: Any) -> str:
    return json.dumps(messages)


def _cards(value: Any) -> set[str]:
    """Every card named anywhere in ``value`` (a whole string ``"8c"``, never a piece of a
    hex salt or proof)."""
    if isinstance(value, dict):
        return set().union(*(_cards(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(_cards(v) for v in value)) if value else set()
    if isinstance(value, str) and re.fullmatch(r"[2-9TJQKA][cdhs]", value):
        return {value}
    return set()


def _last_record(t: TableActor) -> HandRecord:
    assert isinstance(t.recording.history, MemoryHistory)
    return t.recording.history.records[-1]


async def _caribbean_fold_round() -> tuple[Harness, TableActor, dict[str, FakeSink], str]:
    """Alice folds her pair of eights, Bob plays; returns the folded hand's name."""
    h = Harness(config=CFG)
    h.registry.jackpot.pool = 0
    t = h.create(variant="caribbean", stakes={"min": 10, "max": 100}, seats=5,
                 decks=[CSP_DECK])
    alice, bob, watcher = h.player("alice"), h.player("bob"), FakeSink()
    await h.send(t, watcher, "watch")
    await h.send(t, alice, "sit", seat=0, buy_in=1000)
    await h.send(t, bob, "sit", seat=3, buy_in=1000)
    await h.advance(t, 2.0)
    assert (await h.send(t, alice, "act", action="ante", amount=20))["type"] == "ok"
    assert (await h.send(t, bob, "act", action="ante", amount=20))["type"] == "ok"
    assert t.engine is not None and round_of(t).phase == "decisions"
    assert (await h.send(t, alice, "act", action="fold"))["type"] == "ok"
    assert (await h.send(t, bob, "act", action="play"))["type"] == "ok"
    assert t.engine is None
    audit = {e["seat"]: e for e in _last_record(t).events if e["e"] == "Settled"}
    assert audit[0]["folded"] and not audit[3]["folded"]
    folded = str(audit[0]["hand"])
    assert "eight" in folded and folded != audit[3]["hand"]
    return h, t, {"alice": alice, "bob": bob, "watcher": watcher}, folded


async def test_show03_csp14_caribbean_settled_names_a_hand_to_its_owner_only() -> None:
    """SHOW-03: the public ``settled`` (other players, spectators) has no value for the
    folded seat; its owner's copy names it. CSP-14: a played hand's cards stay face down
    too, so its name is its owner's only (Bob sees his, the watcher neither)."""
    h, t, sinks, folded = await _caribbean_fold_round()
    assert sinks["bob"].of("settled")[-1]["results"]["3"]["hand"]
    assert "hand" not in sinks["alice"].of("settled")[-1]["results"]["3"]
    assert "hand" not in sinks["watcher"].of("settled")[-1]["results"]["3"]
    for who in ("bob", "watcher"):
        results = sinks[who].of("settled")[-1]["results"]
        assert "hand" not in results["0"], (who, results)
        assert folded not in _text(sinks[who].messages), who
        assert not _cards(sinks[who].messages) & set(ALICE), who
    mine = sinks["alice"].of("settled")[-1]["results"]
    assert mine["0"]["hand"] == folded
    assert all(m["seq"] == sinks["alice"].of("settled")[-1]["seq"]
               for m in (sinks["bob"].of("settled")[-1], sinks["watcher"].of("settled")[-1]))
    # a replay (resume from the start) and a fresh snapshot say no more
    late = h.player("bob")
    late.conn_id = sinks["bob"].conn_id
    await h.send(t, late, "resume", since=0)
    assert late.of("settled") and "hand" not in late.of("settled")[-1]["results"]["0"]
    assert folded not in _text(late.messages)
    spectator = FakeSink()
    await h.send(t, spectator, "watch")
    assert folded not in _text(spectator.messages)


async def test_show03_caribbean_history_and_export_of_others_never_name_a_folded_hand() -> None:
    """SHOW-03: another player's history copy and its export carry neither the folded
    hand's cards nor its value; the owner's own copy may."""
    _, t, _, folded = await _caribbean_fold_round()
    record = _last_record(t)
    theirs = player_copy(record, "bob")
    assert theirs is not None
    settled = {e["seat"]: e for e in theirs.events if e["e"] == "Settled"}
    assert settled[0]["hand"] is None and settled[0]["jackpot_hand"] is None
    assert settled[3]["hand"]
    assert folded not in theirs.to_json()
    assert not _cards(theirs.to_dict()) & set(ALICE)
    for fmt in ("pokerstars", "phh"):
        text = export(theirs, fmt)
        assert folded not in text, fmt
        assert not set(re.findall(r"\b[2-9TJQKA][cdhs]\b", text)) & set(ALICE), fmt
        assert "Dealt to Alice" not in text and "(None)" not in text
    own = player_copy(record, "alice")
    assert own is not None
    assert folded in export(own, "pokerstars")  # the owner's own copy names it
    assert {e["seat"]: e for e in own.events if e["e"] == "Settled"}[0]["hand"] == folded


async def _checked_down(h: Harness) -> tuple[TableActor, FakeSink, FakeSink, FakeSink, str]:
    """Heads-up hold'em checked down: Alice (As Ad) shows, Bob (Kc Kd) gives his hand up."""
    t, alice, bob = await heads_up(h, decks=[DECK, DECK])
    watcher = FakeSink()
    await h.send(t, watcher, "watch")
    await h.advance(t, 2.0)
    hand_id = t.dealer.hand_id
    assert hand_id is not None
    await h.send(t, alice, "act", action="call")
    await h.send(t, bob, "act", action="check")
    for _ in range(3):
        await h.send(t, alice, "act", action="check")
        await h.send(t, bob, "act", action="check")
    assert t.engine is None and watcher.of("mucked")[-1]["seat"] == 1
    return t, alice, bob, watcher, hand_id


async def test_show02_every_showdown_frame_carries_the_hand_id() -> None:
    """SHOW-02 / PROTOCOL: a showdown at the end of the hand and a reveal asked for after it
    are ``showdown`` frames with ``hand`` = the hand id and ``value`` = the hand's name; the
    hand given up unseen is named to nobody before it is asked for (SHOW-03 for a muck)."""
    h = Harness(config=CFG)
    t, alice, bob, watcher, hand_id = await _checked_down(h)
    assert t.dealer.last_hand is not None
    kings = t.dealer.last_hand.values[1].name
    for sink in (alice, watcher):
        shown = sink.of("showdown")
        assert [(m["seat"], m["hand"]) for m in shown] == [(0, hand_id)]
        assert shown[0]["value"] == t.dealer.last_hand.values[0].name
        assert kings not in _text(sink.messages)
    copy = player_copy(_last_record(t), "alice")
    assert copy is not None and kings not in export(copy, "pokerstars")
    assert "Kc" not in export(copy, "phh")
    assert (await h.send(t, alice, "show_hands", hand=hand_id))["type"] == "ok"
    for sink in (alice, bob, watcher):
        reveal = sink.of("showdown")[-1]
        assert (reveal["seat"], reveal["hand"], reveal["cards"], reveal["value"]) == (
            1, hand_id, ["Kc", "Kd"], kings)
        # the five cards that make the shown hand (the client highlights them)
        assert len(reveal["best"]) == 5 and {"Kc", "Kd"} <= set(reveal["best"])
    # once each: asking again reveals nothing new
    before = len(watcher.of("showdown"))
    assert (await h.send(t, bob, "show_hands", hand=hand_id))["type"] == "ok"
    assert len(watcher.of("showdown")) == before


async def test_show02_reveal_refused_once_the_next_hand_has_started() -> None:
    """SHOW-02: only until the next hand starts. During the next hand a request for the
    last hand gets ``next_hand_started`` (and nothing is shown); one for the hand being
    played gets ``hand_in_progress``; any other hand id ``unknown_hand``."""
    h = Harness(config=CFG)
    t, alice, bob, watcher, hand_id = await _checked_down(h)
    assert (await h.send(t, alice, "show_hands", hand="t9.9"))["code"] == "unknown_hand"
    await h.advance(t, 2.0)  # the next hand starts
    assert t.in_hand and t.dealer.hand_id != hand_id
    before = len(watcher.messages)
    answer = await h.send(t, alice, "show_hands", hand=hand_id)
    assert answer["type"] == "error" and answer["code"] == "next_hand_started"
    assert (await h.send(t, bob, "show_hands", hand=t.dealer.hand_id))["code"] == "hand_in_progress"
    assert not [m for m in watcher.messages[before:] if m["type"] == "showdown"]
    assert all(m["hand"] == hand_id for m in watcher.of("showdown"))


async def test_show03_pot_game_folded_hand_is_never_revealed_or_named() -> None:
    """SHOW-03 in a pot game: a hand folded before the showdown is not among the hands
    SHOW-02 reveals, and no showdown frame, history copy or export of another player
    carries its cards; the showdown frames carry the hand id (SHOW-02)."""
    h = Harness(config=CFG)
    t = h.create(**HOLDEM)
    alice, bob, carol, watcher = h.player("alice"), h.player("bob"), h.player("carol"), \
        FakeSink()
    await h.send(t, watcher, "watch")
    for seat, sink in enumerate((alice, bob, carol)):
        assert (await h.send(t, sink, "sit", seat=seat, buy_in=5000))["type"] == "ok"
    await h.advance(t, 2.0)
    hand_id = t.dealer.hand_id
    assert t.engine is not None and hand_id is not None
    sinks = {0: alice, 1: bob, 2: carol}
    held = {c for m in carol.of("dealt") if m["seat"] == 2 for c in m["cards"]}
    assert len(held) == 2 and None not in held
    while t.engine is not None:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        action = "fold" if seat == 2 else ("check" if opts.check else "call")
        assert (await h.send(t, sinks[seat], "act", action=action))["type"] == "ok"
    assert (await h.send(t, alice, "show_hands", hand=hand_id))["type"] == "ok"
    for sink in (alice, bob, watcher):
        shown = sink.of("showdown")
        assert shown and all(m["hand"] == hand_id and m["seat"] != 2 for m in shown)
        assert not held & {c for m in shown for c in m["cards"]}
    record = _last_record(t)
    for pid in ("alice", "bob"):
        copy = player_copy(record, pid)
        assert copy is not None
        dealt = [c for e in copy.events if e["e"] == "Dealt" and e["seat"] == 2
                 for c in e["cards"]]
        assert dealt == [None, None]
        for fmt in ("pokerstars", "phh"):
            text = export(copy, fmt)
            assert not held & set(re.findall(r"[2-9TJQKA][cdhs]", text)), fmt
