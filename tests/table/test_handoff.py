"""A table's state between two hands taken out of one registry and put back into another
(issue 17, :mod:`server.table.handoff`): ``export_state`` on the original table, the
:class:`TableState` through its JSON, ``TableRegistry.adopt`` in a second registry (its own fake
clock and wallet, as another process would have). The copy has the same seats (numbers with
gaps, seat 0), names, stacks, time banks, sitting-out and wait-for-the-big-blind marks, the
same button and blinds (GEN-05: the next hand played on both with the same deck is the same
hand), the waiting list, a private table's host state, the same ``seq``; the ledger's stacks
win over the state's; a seat with no chips is left out; a restored waiter is seated
disconnected when a seat frees (and their connection takes over when they come back)."""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.config import Config
from server.rules.cards import make_deck
from server.table import TableActor
from server.table.games import HouseGame
from server.table.handoff import SeatRecord, TableState, export_state
from server.table.seatmap import SeatState, Waiter
from tests.table.helpers import FakeSink, Harness, hand_of, pot_game, round_of
from tests.table.test_hand_flow import DECK

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=5.0,
             reconnect_grace=30.0)
HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [50, 100]}, "seats": 9}
CARIBBEAN: dict[str, Any] = {"variant": "caribbean", "stakes": {"min": 10, "max": 100},
                             "seats": 5}
NEXT_DECK = tuple(random.Random(17).sample(list(make_deck()), 52))  # the next hand's, on both
VOLATILE = ("seq", "table", "hand", "commitment", "reveal", "deadline")  # (salts, clocks)

SeatView = tuple[str, str, int, float, bool, bool] | None


def seat_view(t: TableActor) -> list[SeatView]:
    """Every seat as the handoff must keep it: player, name, chips, bank, the two marks."""
    return [None if s is None else (s.player_id, s.name, s.stack + s.topup, s.bank,
                                    s.sitting_out, s.wait_for_bb) for s in t.seats]


async def adopt(state: TableState, stacks: dict[str, int] | None = None, *,
                seed: int = 2) -> tuple[Harness, TableActor]:
    """``state`` (through its JSON) opened in a second registry of its own."""
    h2 = Harness(config=CFG, seed=seed)
    copy = h2.registry.adopt(TableState.from_json(state.to_json()),
                             state.stacks() if stacks is None else stacks)
    await copy.idle()
    assert h2.registry.get(state.table) is copy
    return h2, copy


async def reconnect(h: Harness, t: TableActor, names: list[str]) -> dict[str, FakeSink]:
    """The players come back to ``t`` (a new connection each, ``resume`` at the seq they saw)."""
    sinks = {}
    for pid in names:
        sink = h.player(pid)
        assert (await h.send(t, sink, "resume", since=t.seq))["type"] == "ok"
        sinks[pid] = sink
    return sinks


async def play_out(h: Harness, t: TableActor, sinks: dict[str, FakeSink], *,
                   bank_seat: int | None = None) -> None:
    """Play the running hand to its end: each player checks, else calls. ``bank_seat``: that
    seat lets its action clock run out and acts one second into its time bank (once)."""
    while t.engine is not None:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        if seat == bank_seat:
            await h.advance(t, CFG.action_clock + 1.0)
            assert t.turns.in_bank and t.turns.seat == seat
            bank_seat = None
        sink = sinks[t.dealer.hand_owner[seat]]
        answer = await h.send(t, sink, "act", action="check" if opts.check else "call")
        assert answer["type"] == "ok", answer


def hand_frames(watcher: FakeSink) -> list[dict[str, Any]]:
    """The watcher's public frames of its last hand (``hand_started`` onwards), without
    what differs between two processes anyway (seq, table and hand ids, commitment, clock)."""
    msgs = watcher.messages
    start = max(i for i, msg in enumerate(msgs) if msg["type"] == "hand_started")
    return [{k: v for k, v in msg.items() if k not in VOLATILE} for msg in msgs[start:]
            if "seq" in msg and msg["type"] != "snapshot"]


# ---------------------------------------------------------------------------- pot game


async def _busy_table() -> tuple[Harness, TableActor, dict[str, FakeSink], FakeSink]:
    """Nine seats, players at 0, 2, 5, 7 (gaps, seat 0), two hands played: seat 2 used a
    second of its time bank, seat 5 sat out, a late player at seat 8 waits for the big
    blind. Returned between hands (the next one is due after the pause)."""
    h = Harness(config=CFG)
    t = h.create(**HOLDEM)
    watcher = FakeSink()
    assert (await h.send(t, watcher, "watch"))["type"] == "ok"
    sinks: dict[str, FakeSink] = {}
    for seat in (0, 2, 5, 7):
        pid = f"p{seat}"
        sinks[pid] = h.player(pid)
        assert (await h.send(t, sinks[pid], "sit", seat=seat, buy_in=5000))["type"] == "ok"
    await h.advance(t, 2.0)
    assert t.in_hand
    await play_out(h, t, sinks, bank_seat=2)
    assert (await h.send(t, sinks["p5"], "sit_out"))["type"] == "ok"
    sinks["p8"] = h.player("p8")
    assert (await h.send(t, sinks["p8"], "sit", seat=8, buy_in=3000))["type"] == "ok"
    await h.advance(t, 2.0)
    assert t.in_hand and 8 not in hand_of(t).stacks  # waits for the big blind
    await play_out(h, t, sinks)
    assert not t.in_hand
    return h, t, sinks, watcher


async def test_adopted_copy_has_the_same_seats_marks_and_plays_the_same_next_hand() -> None:
    h1, t, sinks, watcher = await _busy_table()
    state = export_state(t, owner="owner")
    assert [s.seat for s in state.seats] == [0, 2, 5, 7, 8]
    by_seat = {s.seat: s for s in state.seats}
    assert by_seat[2].bank == pytest.approx(CFG.time_bank - 1.0)  # a second of it used
    assert by_seat[0].bank == CFG.time_bank
    assert by_seat[5].sitting_out and not by_seat[0].sitting_out
    assert by_seat[8].wait_for_bb and by_seat[8].stack == 3000
    assert state.button is not None and state.blinds is not None
    assert state.seq == t.seq > 0 and state.owner == "owner"

    h2, copy = await adopt(state)
    assert seat_view(copy) == seat_view(t)
    assert all(s is None or s.sink is None for s in copy.seats)  # disconnected until back
    assert pot_game(copy).blinds.positions == pot_game(t).blinds.positions
    assert copy.seq == t.seq
    assert copy.spec.stakes_wire == t.spec.stakes_wire and copy.spec.seats == 9
    assert h2.registry.creators[t.table_id] == ("owner", None)

    # the next hand, on both, from the same deck: the same button, blinds, players, cards
    back = await reconnect(h2, copy, sorted(sinks))
    watcher2 = FakeSink()
    assert (await h2.send(copy, watcher2, "watch"))["type"] == "ok"
    for table in (t, copy):
        table.dealer.decks = [NEXT_DECK]
    await h1.advance(t, 2.0)
    await h2.advance(copy, 2.0)
    a, b = hand_of(t), hand_of(copy)
    assert (a.button, a.blind_seats, sorted(a.stacks)) == \
        (b.button, b.blind_seats, sorted(b.stacks))
    assert 8 in a.stacks  # the big blind reached the late player: they play now
    started = hand_frames(watcher)
    assert started == hand_frames(watcher2)
    assert [m["type"] for m in started][:1] == ["hand_started"]
    assert [(m["seat"], m["kind"], m["amount"]) for m in started if m["type"] == "posted"]
    for seat in a.stacks:  # each player's own cards, as their connection got them
        pid = t.dealer.hand_owner[seat]
        assert copy.dealer.hand_owner[seat] == pid
        mine = [m["cards"] for m in sinks[pid].of("dealt") if m["seat"] == seat][-1]
        assert None not in mine
        assert mine == [m["cards"] for m in back[pid].of("dealt") if m["seat"] == seat][-1]
    await play_out(h1, t, sinks)
    await play_out(h2, copy, back)
    assert hand_frames(watcher) == hand_frames(watcher2)  # the whole hand, frame by frame
    assert watcher.of("hand_ended")[-1]["stacks"] == watcher2.of("hand_ended")[-1]["stacks"]
    assert seat_view(copy) == seat_view(t)
    assert h1.registry.crashes == h2.registry.crashes == 0


async def test_table_state_json_round_trip() -> None:
    h, t, _, _ = await _busy_table()
    wl = h.player("wl")
    t.call(lambda: t.seats.wait(Waiter("wl", "Wl", 4000, wl)))  # (as a full table would)
    await t.idle()
    state = export_state(t, owner="owner")
    text = state.to_json()
    back = TableState.from_json(text)
    assert back == state
    assert back.to_json() == text
    assert all(isinstance(s, SeatRecord) for s in back.seats)
    assert back.waiting == [{"player": "wl", "name": "Wl", "buy_in": 4000}]
    assert back.stacks() == {s.player: s.stack for s in state.seats}
    assert back.host is None  # a public table has no host state
    # a host state and a pending change survive it too (see the private table's test)
    priv = TableState(table="t9", create=dict(state.create), seq=5,
                      host={"host": "h", "code": "c" * 16, "paused": True, "removed": ["x"],
                            "admitted": ["y"], "names": {"x": "X"}, "next": None})
    assert TableState.from_json(priv.to_json()) == priv


async def test_the_ledgers_stacks_win_and_a_player_without_chips_is_left_out(
        caplog: pytest.LogCaptureFixture) -> None:
    h1, t, _, _ = await _busy_table()
    state = export_state(t)
    said = state.stacks()
    ledger = {"p0": said["p0"] + 250, "p2": 0, "p7": said["p7"] - 100, "p8": said["p8"]}
    # p5 has no balance in the new owner's ledger at all
    with caplog.at_level(logging.WARNING, logger="server.table"):
        _, copy = await adopt(state, ledger)
    held = {s.player_id: s.stack for s in copy.seats if s is not None}
    assert held == {"p0": said["p0"] + 250, "p7": said["p7"] - 100, "p8": said["p8"]}
    assert copy.seats[2] is None and copy.seats[5] is None
    assert copy.seats[0] is not None and copy.seats[0].bank == CFG.time_bank  # the rest kept
    differs = [r.getMessage() for r in caplog.records if "handoff_stack_differs" in
               r.getMessage()]
    assert len(differs) == 4  # p0, p2, p5, p7: each logged with both numbers
    assert any(f"player=p0 said={said['p0']} ledger={said['p0'] + 250}" in d for d in differs)


async def test_a_busted_seat_is_not_reopened() -> None:
    """A player left at 0 chips after an all-in (still seated between hands) has a record of
    stack 0: the copy leaves that seat empty."""
    h = Harness(config=CFG)
    t = h.create(**{**HOLDEM, "seats": 6}, decks=[DECK])  # seat 0 As Ad beats seat 1 Kc Kd
    alice, bob = h.player("alice"), h.player("bob")
    assert (await h.send(t, alice, "sit", seat=0, buy_in=5000))["type"] == "ok"
    assert (await h.send(t, bob, "sit", seat=1, buy_in=5000))["type"] == "ok"
    await h.advance(t, 2.0)
    while t.engine is not None:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        sink = {0: alice, 1: bob}[seat]
        if opts.raise_ is not None:
            await h.send(t, sink, "act", action="raise", amount=opts.raise_[1])
        else:
            await h.send(t, sink, "act", action="call" if opts.call else "check")
    busted = t.seats[1]
    assert busted is not None and busted.stack == 0  # seated, no chips
    state = export_state(t)
    assert {s.player: s.stack for s in state.seats} == {"alice": 10_000, "bob": 0}
    _, copy = await adopt(state)
    assert copy.seats[1] is None
    assert seat_view(copy)[0] == seat_view(t)[0]
    assert copy.seats.players() == {"alice"}


async def test_resume_ahead_of_the_tables_seq_gets_a_snapshot_and_grace_runs() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**{**HOLDEM, "settings": {"pause": 60}})
    a, b = h1.player("a"), h1.player("b")
    await h1.send(t, a, "sit", seat=0, buy_in=5000)
    await h1.send(t, b, "sit", seat=4, buy_in=5000)
    state = export_state(t)
    h2, copy = await adopt(state)
    assert copy.seq == state.seq
    a2 = h2.player("a")
    assert (await h2.send(copy, a2, "resume", since=state.seq + 7))["type"] == "ok"  # ahead
    snaps = a2.of("snapshot")
    # (a's return is announced first: presence online, one event after the moved state's)
    assert len(snaps) == 1 and snaps[0]["seq"] == state.seq + 1 and snaps[0]["you"] == 0
    assert [s.get("disconnected", False) for s in snaps[0]["seats"] if s] == [False, True]
    assert [s["name"] if s else None for s in snaps[0]["seats"]][:5] == \
        ["A", None, None, None, "B"]
    assert [s["stack"] for s in snaps[0]["seats"] if s] == [5000, 5000]
    same = FakeSink()
    assert (await h2.send(copy, same, "resume", since=state.seq + 1))["type"] == "ok"
    assert same.of("snapshot") == []  # nothing new since what it saw
    behind = FakeSink()  # the copy has no event log: an older seq is answered by a snapshot
    assert (await h2.send(copy, behind, "resume", since=state.seq - 1))["type"] == "ok"
    assert len(behind.of("snapshot")) == 1
    # a (who came back) keeps playing; b (who did not) is sat out once the grace is over
    await h2.advance(copy, CFG.reconnect_grace + 0.5)
    sa, sb = copy.seats[0], copy.seats[4]
    assert sa is not None and sb is not None
    assert not sa.sitting_out and sb.sitting_out
    assert a2.of("sat_out")[-1]["seat"] == 4


async def test_the_waiting_list_travels() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**{**HOLDEM, "seats": 2})
    a, b, c, d = (h1.player(p) for p in ("a", "b", "c", "d"))
    await h1.send(t, a, "sit", seat=0, buy_in=5000)
    await h1.send(t, b, "sit", seat=1, buy_in=5000)
    assert (await h1.send(t, c, "sit", seat=0, buy_in=4000))["code"] == "table_full"
    assert (await h1.send(t, d, "sit", seat=1, buy_in=3000))["code"] == "table_full"
    state = export_state(t)
    assert state.waiting == [{"player": "c", "name": "C", "buy_in": 4000},
                             {"player": "d", "name": "D", "buy_in": 3000}]
    _, copy = await adopt(state)
    assert [(w.player_id, w.name, w.buy_in) for w in copy.seats.waiting] == \
        [("c", "C", 4000), ("d", "D", 3000)]


async def test_a_restored_waiter_is_seated_disconnected_when_a_seat_frees() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**{**HOLDEM, "seats": 2})
    a, b, c = (h1.player(p) for p in ("a", "b", "c"))
    await h1.send(t, a, "sit", seat=0, buy_in=5000)
    await h1.send(t, b, "sit", seat=1, buy_in=5000)
    assert (await h1.send(t, c, "sit", seat=0, buy_in=4000))["code"] == "table_full"
    h2, copy = await adopt(export_state(t))
    h2.wallet.ensure("c", 100_000)  # c's balance at the new owner
    a2 = h2.player("a")
    assert (await h2.send(copy, a2, "resume", since=copy.seq))["type"] == "ok"
    answers = await _answers(copy, a2, "leave")
    seated = copy.seats[0]
    assert seated is not None and (seated.player_id, seated.stack) == ("c", 4000)
    assert h2.wallet.balance("c") == 96_000
    assert answers == [{"type": "ok", "rid": answers[0]["rid"]}]  # no internal_error
    await h2.advance(copy, 2.0)  # the next hand, c and b
    assert h2.registry.crashes == 0
    assert copy.in_hand and sorted(hand_of(copy).stacks) == [0, 1]


async def _answers(t: TableActor, sink: FakeSink, kind: str) -> list[dict[str, Any]]:
    """Send one request and return every answer to it (an actor crash adds one)."""
    from protocol import parse_request
    from server.table import Envelope

    rid = 10_000 + len(sink.messages)
    await t.submit(Envelope(parse_request({"type": kind, "rid": rid, "table": t.table_id}),
                            sink))
    await t.idle()
    return [m for m in sink.answers() if m["rid"] == rid]


async def test_the_adopted_snapshot_shows_the_button() -> None:
    h1, t, _, _ = await _busy_table()
    h2, copy = await adopt(export_state(t))
    w1, w2 = FakeSink(), FakeSink()
    await h1.send(t, w1, "watch")
    await h2.send(copy, w2, "watch")
    assert w1.of("snapshot")[-1]["button"] is not None
    assert w2.of("snapshot")[-1]["button"] == w1.of("snapshot")[-1]["button"]


async def test_post_to_enter_travels_with_the_table() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**{**HOLDEM, "seats": 6, "settings": {"post_to_enter": True}})
    sinks = {p: h1.player(p) for p in ("a", "b", "c", "d")}
    for seat, pid in enumerate(("a", "b", "c")):
        await h1.send(t, sinks[pid], "sit", seat=seat, buy_in=5000)
    await h1.advance(t, 2.0)
    await play_out(h1, t, sinks)
    await h1.send(t, sinks["d"], "sit", seat=4, buy_in=5000)  # late: posts to enter
    d = t.seats[4]
    assert d is not None and d.wait_for_bb and d.post_bb
    h2, copy = await adopt(export_state(t))
    for table in (t, copy):
        table.dealer.decks = [NEXT_DECK]
    await h1.advance(t, 2.0)
    await h2.advance(copy, 2.0)
    assert 4 in hand_of(t).stacks  # the original deals d in (an entry big blind)
    assert sorted(hand_of(copy).stacks) == sorted(hand_of(t).stacks)


# ---------------------------------------------------------------------------- private table

PRIVATE: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                           "stakes": {"blinds": [5, 10]}, "seats": 6, "private": True}


async def test_a_private_tables_host_state_travels() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**PRIVATE)
    code = t.host.code
    assert code is not None
    host, bob, carol, dave = (h1.player(p) for p in ("owner", "bob", "carol", "dave"))
    sinks = {"owner": host, "bob": bob, "carol": carol}
    assert (await h1.send(t, host, "sit", seat=0, buy_in=500))["type"] == "ok"
    for who, seat in ((bob, 2), (carol, 3)):
        assert (await h1.send(t, who, "sit", seat=seat, buy_in=500, code=code))["pending"]
        assert (await h1.send(t, host, "host", action="approve",
                              player=who.player_id))["type"] == "ok"
    assert (await h1.send(t, dave, "watch", code=code))["type"] == "ok"  # admitted
    await h1.advance(t, 2.0)
    assert t.in_hand
    assert (await h1.send(t, host, "host", action="change", stakes={"blinds": [10, 20]},
                          settings={"action_clock": 15}))["pending"] is True
    assert (await h1.send(t, host, "host", action="remove", seat=3))["pending"] is True
    assert (await h1.send(t, host, "host", action="pause"))["type"] == "ok"
    await play_out(h1, t, sinks)
    assert not t.in_hand and t.seats[3] is None and t.host.next_spec is not None

    state = export_state(t, owner="owner")
    assert state.host is not None
    assert (state.host["host"], state.host["code"], state.host["paused"]) == \
        ("owner", code, True)
    assert state.host["removed"] == ["carol"] and state.host["admitted"] == ["bob", "dave"]
    assert state.host["next"]["stakes"] == {"blinds": [10, 20]}
    h2, copy = await adopt(state)
    hd = copy.host
    assert (hd.private, hd.host_id, hd.code, hd.paused) == (True, "owner", code, True)
    assert hd.removed == {"carol"} and hd.admitted == {"bob", "dave"}
    assert hd.names == t.host.names
    assert hd.next_spec is not None and t.host.next_spec is not None
    assert hd.next_spec.stakes_wire == {"blinds": [10, 20]} == t.host.next_spec.stakes_wire
    assert hd.next_spec.action_clock == 15
    assert copy.spec.stakes_wire == {"blinds": [5, 10]}  # the change waits for the next hand
    assert seat_view(copy) == seat_view(t)
    assert h2.registry.tables() == []  # still unlisted

    # what the host state does on the copy: admission, removal, the pause, the change
    stranger, dave2, carol2 = h2.player("stranger"), h2.player("dave"), h2.player("carol")
    assert (await h2.send(copy, stranger, "watch"))["code"] == "unknown_table"
    assert (await h2.send(copy, dave2, "watch"))["type"] == "ok"  # admitted before the move
    assert (await h2.send(copy, carol2, "sit", seat=3, buy_in=500,
                          code=code))["code"] == "removed"
    assert (await h2.send(copy, h2.player("eve"), "watch", code=code))["type"] == "ok"
    back = await reconnect(h2, copy, ["owner", "bob"])
    await h2.advance(copy, 5.0)
    assert not copy.in_hand  # paused
    assert (await h2.send(copy, back["bob"], "host", action="resume"))["code"] == "not_host"
    assert (await h2.send(copy, back["owner"], "host", action="resume"))["type"] == "ok"
    await h2.advance(copy, 2.0)
    assert copy.in_hand and copy.spec.stakes_wire == {"blinds": [10, 20]}
    assert copy.spec.action_clock == 15 and copy.host.next_spec is None
    posted = [(m["kind"], m["amount"]) for m in dave2.of("posted")]
    assert sorted(a for _, a in posted) == [10, 20]


# ---------------------------------------------------------------------------- house game


async def test_a_caribbean_table_travels_and_plays_the_same_round() -> None:
    h1 = Harness(config=CFG)
    t = h1.create(**CARIBBEAN)
    sinks = {p: h1.player(p) for p in ("alice", "bob")}
    await h1.send(t, sinks["alice"], "sit", seat=0, buy_in=1000)
    await h1.send(t, sinks["bob"], "sit", seat=3, buy_in=800)
    watcher = FakeSink()
    await h1.send(t, watcher, "watch")
    await _caribbean_round(h1, t, sinks)
    state = export_state(t)
    assert state.button is None and state.blinds is None and state.host is None
    assert [s.seat for s in state.seats] == [0, 3]
    h2, copy = await adopt(state)
    assert isinstance(copy.game, HouseGame)
    assert seat_view(copy) == seat_view(t)
    assert copy.spec.variant_name == "caribbean" and copy.seq == t.seq
    back = await reconnect(h2, copy, ["alice", "bob"])
    watcher2 = FakeSink()
    await h2.send(copy, watcher2, "watch")
    for table in (t, copy):
        table.dealer.decks = [NEXT_DECK]
    await _caribbean_round(h1, t, sinks)
    await _caribbean_round(h2, copy, back)
    assert hand_frames(watcher) == hand_frames(watcher2)
    assert seat_view(copy) == seat_view(t)
    assert h1.registry.crashes == h2.registry.crashes == 0


async def _caribbean_round(h: Harness, t: TableActor, sinks: dict[str, FakeSink]) -> None:
    """One round: both ante 20, then both play."""
    await h.advance(t, 2.0)
    assert t.in_hand
    for pid in ("alice", "bob"):
        answer = await h.send(t, sinks[pid], "act", action="ante", amount=20)
        assert answer["type"] == "ok", answer
    assert round_of(t).phase == "decisions"
    for pid in ("alice", "bob"):
        assert (await h.send(t, sinks[pid], "act", action="play"))["type"] == "ok"
    assert not t.in_hand


# ---------------------------------------------------------------------------- property


@st.composite
def layouts(draw: st.DrawFn) -> tuple[int, list[tuple[int, int, float, bool, bool]]]:
    """A table size and some of its seats (seat 0 half the time, gaps), each with a stack,
    a time bank and the two marks."""
    n = draw(st.integers(2, 10))
    seats = draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n))
    if draw(st.booleans()):
        seats.add(0)
    rows = []
    for seat in sorted(seats):
        rows.append((seat, draw(st.integers(1, 10**9)),
                     draw(st.sampled_from([0.0, 0.25, 2.5, CFG.time_bank])),
                     draw(st.booleans()), draw(st.booleans())))
    return n, rows


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(layout=layouts())
def test_export_json_restore_preserves_every_seat(
        layout: tuple[int, list[tuple[int, int, float, bool, bool]]]) -> None:
    n, rows = layout

    async def scenario() -> None:
        h = Harness(config=CFG)
        t = h.create(**{**HOLDEM, "seats": n, "settings": {"pause": 60}})

        def place() -> None:  # in the actor's task, between hands (no hand ever starts)
            for seat, stack, bank, out, wait in rows:
                t.seats.place(seat, SeatState(f"p{seat}", f"Player {seat}", stack, bank,
                                              sitting_out=out, wait_for_bb=wait))
        t.call(place)
        await t.idle()
        state = export_state(t)
        assert [(s.seat, s.stack, s.bank, s.sitting_out, s.wait_for_bb) for s in state.seats] \
            == rows
        _, copy = await adopt(state)
        assert len(copy.seats) == n
        assert seat_view(copy) == seat_view(t)
        assert copy.seats.players() == {f"p{seat}" for seat, *_ in rows}

    asyncio.run(scenario())
