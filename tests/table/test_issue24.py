"""Issue 24, the table's behaviour friends tripped over, on the fake clock: a dropped
connection shown at once and not waited for past the action clock, leaving mid-hand, seat
requests for a seat taken meanwhile, per-table hand numbers, names told apart, and the
closing ledger for every player. Chips are counted after each."""

from __future__ import annotations

from typing import Any

import pytest

from server.config import Config
from server.table import TableActor
from server.table.jackpot import EmbeddedJackpot
from server.table.session import HOUSE_ROW
from tests.table.helpers import FakeSink, Harness, hand_of
from tests.table.test_hand_flow import HOLDEM

CFG = Config(test_mode=True, hand_pause=2.0, action_clock=10.0, time_bank=60.0,
             reconnect_grace=60.0, consecutive_timeouts_to_sit_out=3)
BUY_IN = 5000


def _total(h: Harness, *tables: TableActor) -> int:
    return h.wallet.total() + sum(t.seats.chips() for t in tables)


async def _table(h: Harness, players: int, buy_in: int = BUY_IN,
                 **extra: Any) -> tuple[TableActor, list[FakeSink]]:
    t = h.create(**{**HOLDEM, **extra})
    sinks = []
    for seat in range(players):
        sink = h.player(f"p{seat}")
        assert (await h.send(t, sink, "sit", seat=seat, buy_in=buy_in))["type"] == "ok"
        sinks.append(sink)
    return t, sinks


# --------------------------------------------------------------------------- disconnected
async def test_a_dropped_connection_is_shown_at_once_and_the_turn_ends_with_the_clock() -> None:
    """The phone sleeps on its turn: everyone is told at once (presence, and the snapshot of
    a newcomer), the table moves on after the 10 s action clock (not 10 + 60 s of bank),
    and the time bank is left whole; sitting out still waits for the grace."""
    h = Harness(config=CFG)
    t, (p0, p1, p2) = await _table(h, 3)
    await h.advance(t, 2.0)
    to_act = hand_of(t).to_act
    assert to_act is not None
    sleeper = (p0, p1, p2)[to_act]
    others = [s for s in (p0, p1, p2) if s is not sleeper]
    t.detach(sleeper)
    await t.idle()  # no clock moved: the news is out at once
    for s in others:
        assert s.of("presence")[-1] == {**s.of("presence")[-1], "seat": to_act,
                                        "online": False}
    newcomer = FakeSink()
    await h.send(t, newcomer, "watch")
    seat = newcomer.of("snapshot")[-1]["seats"][to_act]
    assert seat["disconnected"] is True
    assert all("disconnected" not in s for i, s in enumerate(
        newcomer.of("snapshot")[-1]["seats"]) if s is not None and i != to_act)
    await h.advance(t, 10.0)  # the action clock only
    acted = [m for m in others[0].of("acted") if m["seat"] == to_act]
    assert acted and acted[-1]["timeout"] is True
    assert not [m for m in others[0].of("turn") if m["seat"] == to_act and m.get("in_bank")]
    st = t.seats[to_act]
    assert st is not None and st.bank == CFG.time_bank and not st.sitting_out
    # back again: online for everyone, at once
    back = FakeSink(player_id=sleeper.player_id, name=sleeper.name)
    await h.send(t, back, "resume", since=0)
    assert others[0].of("presence")[-1]["online"] is True
    assert _total(h, t) == 3 * 100_000


async def test_bank_when_disconnected_spends_the_bank() -> None:
    """The table setting ``bank_when_disconnected``: the old behaviour, bank and all."""
    h = Harness(config=CFG)
    t, sinks = await _table(h, 2, settings={"bank_when_disconnected": True})
    await h.advance(t, 2.0)
    to_act = hand_of(t).to_act
    assert to_act is not None
    t.detach(sinks[to_act])
    await t.idle()
    await h.advance(t, 10.5)
    assert t.in_hand and t.turns.in_bank  # waiting on the bank
    other = sinks[1 - to_act]
    assert other.of("turn")[-1]["in_bank"] is True
    await h.advance(t, 60.0)
    assert [m for m in other.of("acted") if m["seat"] == to_act][-1]["timeout"] is True


async def test_the_grace_still_sits_a_disconnected_player_out() -> None:
    h = Harness(config=CFG)
    t, (p0, p1) = await _table(h, 2, settings={"pause": 120})
    t.detach(p1)
    await t.idle()
    assert p0.of("presence")[-1] == {**p0.of("presence")[-1], "seat": 1, "online": False}
    assert not p0.of("sat_out")
    await h.advance(t, CFG.reconnect_grace + 0.5)
    assert p0.of("sat_out")[-1]["seat"] == 1


# --------------------------------------------------------------------------- leaving
async def test_leaving_on_ones_turn_folds_at_once() -> None:
    h = Harness(config=CFG)
    t, sinks = await _table(h, 3)
    await h.advance(t, 2.0)
    to_act = hand_of(t).to_act
    assert to_act is not None
    leaver = sinks[to_act]
    answer = await h.send(t, leaver, "leave")
    assert answer["type"] == "ok" and answer["pending"] is True
    folded = [m for m in sinks[(to_act + 1) % 3].of("acted") if m["seat"] == to_act]
    assert folded and folded[-1]["action"] == "fold"  # no clock ran
    assert hand_of(t).to_act != to_act
    assert t.seats[to_act] is not None  # the seat (and chips) until the hand ends
    await _finish(h, t, sinks)
    assert t.seats[to_act] is None
    assert h.wallet.balance(f"p{to_act}") + sum(
        st.stack for _, st in t.seats.occupied()) + h.wallet.balance(
        f"p{(to_act + 1) % 3}") + h.wallet.balance(f"p{(to_act + 2) % 3}") == 3 * 100_000


async def test_leaving_before_ones_turn_folds_there_without_a_turn() -> None:
    """Nobody is asked for a leaver's decision: no ``turn`` for their seat goes to anyone,
    the table moves straight on."""
    h = Harness(config=CFG)
    t, sinks = await _table(h, 3)
    await h.advance(t, 2.0)
    hand = hand_of(t)
    to_act = hand.to_act
    assert to_act is not None
    later = next(s for s in hand.order if s != to_act)  # someone who acts after
    leaver = sinks[later]
    assert (await h.send(t, leaver, "leave"))["pending"] is True
    marks = {id(s): len(s.messages) for s in sinks}
    while t.in_hand and hand_of(t).to_act != later:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        await h.send(t, sinks[seat], "act", action="call" if opts.call else "check")
        if any(m["type"] == "acted" and m["seat"] == later
               for m in sinks[seat].messages[marks[id(sinks[seat])]:]):
            break
    for s in sinks:
        new = s.messages[marks[id(s)]:]
        assert not [m for m in new if m["type"] == "turn" and m["seat"] == later]
    watcher = sinks[to_act]
    folds = [m for m in watcher.of("acted") if m["seat"] == later]
    assert folds and folds[-1]["action"] == "fold" and "timeout" not in folds[-1]
    await _finish(h, t, sinks)
    assert t.seats[later] is None and _total(h, t) == 3 * 100_000


async def test_three_leaving_at_once_end_the_hand_without_a_clock() -> None:
    """Four at the table, three leave during the hand (the blinds and the first to act):
    the one who stays acts once and the hand is over at once (the leavers are folded at
    their turns), no clock ran, everyone's chips are back."""
    h = Harness(config=CFG)
    t, sinks = await _table(h, 4)
    await h.advance(t, 2.0)
    start = h.clock.now()
    stay = hand_of(t).order[-1]
    for seat in range(4):
        if seat != stay:
            assert (await h.send(t, sinks[seat], "leave"))["type"] == "ok"
    assert hand_of(t).to_act == stay
    assert (await h.send(t, sinks[stay], "act", action="call"))["type"] == "ok"
    assert not t.in_hand and h.clock.now() == start
    assert not [m for m in sinks[stay].of("acted") if m.get("timeout")]
    assert [seat for seat, _ in t.seats.occupied()] == [stay]
    assert _total(h, t) == 4 * 100_000


async def _finish(h: Harness, t: TableActor, sinks: list[FakeSink]) -> None:
    while t.in_hand:
        seat = hand_of(t).to_act
        assert seat is not None
        opts = hand_of(t).options(seat)
        assert opts is not None
        await h.send(t, sinks[seat], "act", action="check" if opts.check else "fold")


async def test_the_over_blind_question_of_a_leaver_is_declined() -> None:
    """BLIND-04: where folding is no answer (the Draw over blind's question), a leaver's
    decision is the engine's default: no over blind."""
    h = Harness(config=CFG)
    t, sinks = await _table(h, 3, buy_in=500, variant="draw", structure="fixed_limit",
                            stakes={"blinds": [5, 10], "small_bet": 10, "big_bet": 20},
                            settings={"over_blind": True})
    await h.advance(t, 2.0)
    hand = hand_of(t)
    asked = hand.over_blind_ask
    assert asked is not None and hand.to_act == asked
    assert (await h.send(t, sinks[asked], "leave"))["pending"] is True
    assert hand.over_blind_ask is None and hand.to_act != asked
    assert not [m for m in sinks[0].of("posted") if m["kind"] == "over_blind"]
    await _finish(h, t, sinks)
    assert t.seats[asked] is None and _total(h, t) == 3 * 100_000


# --------------------------------------------------------------------------- seat requests
async def _home(h: Harness) -> tuple[TableActor, FakeSink, str]:
    t = h.create(**{**HOLDEM, "private": True, "seats": 4})
    host = h.player("owner")
    code = t.host.code
    assert code is not None
    assert (await h.send(t, host, "sit", seat=0, buy_in=BUY_IN))["type"] == "ok"
    return t, host, code


async def test_two_asking_for_one_seat_the_second_is_offered_a_free_one() -> None:
    h = Harness(config=CFG)
    t, host, code = await _home(h)
    bob, carol = h.player("bob"), h.player("carol")
    for who in (bob, carol):
        answer = await h.send(t, who, "sit", seat=2, buy_in=BUY_IN, code=code)
        assert answer["pending"] is True
    assert [(r["seat"], r["player"]) for r in host.of("seat_request")] == \
        [(2, "bob"), (2, "carol")]
    requests = t.host.state_for("owner")["requests"]  # type: ignore[index]
    assert [(r["player"], r["seat"], r["offer"]) for r in requests] == \
        [("bob", 2, 2), ("carol", 2, 2)]
    assert (await h.send(t, host, "host", action="approve", player="bob"))["seat"] == 2
    # carol's request updated itself: seat 2 taken, the approval would seat her at 3
    mine = host.of("table_updated")[-1]["host"]["requests"]
    assert mine == [{"player": "carol", "name": "Carol", "seat": 2, "buy_in": BUY_IN,
                     "offer": 3, "taken": True}]
    assert carol.of("table_updated")[-1]["host"]["request"]["offer"] == 3
    # the host may name another free seat; a taken one is refused, the request waits
    taken = await h.send(t, host, "host", action="approve", player="carol", seat=2)
    assert taken["code"] == "seat_taken" and "free seats: 2, 4" in taken["message"]
    assert "carol" in t.host.requests
    assert (await h.send(t, host, "host", action="approve", player="carol", seat=9))["code"] \
        == "bad_seat"
    assert (await h.send(t, host, "host", action="approve", player="carol"))["seat"] == 3
    assert t.seats.seat_of("carol") == 3 and not t.host.requests
    assert carol.of("snapshot")[-1]["you"] == 3
    assert _total(h, t) == 3 * 100_000


async def test_an_approval_with_no_seat_free_waits() -> None:
    h = Harness(config=CFG)
    t, host, code = await _home(h)
    dave = h.player("dave")
    assert (await h.send(t, dave, "sit", seat=1, buy_in=BUY_IN, code=code))["pending"] is True
    for seat, pid in ((1, "x1"), (2, "x2"), (3, "x3")):
        who = h.player(pid)
        await h.send(t, who, "sit", seat=seat, buy_in=BUY_IN, code=code)
        assert (await h.send(t, host, "host", action="approve", player=pid))["seat"] == seat
    assert host.of("table_updated")[-1]["host"]["requests"][0]["offer"] is None
    answer = await h.send(t, host, "host", action="approve", player="dave")
    assert answer["code"] == "table_full" and "dave" in t.host.requests
    x2 = FakeSink(player_id="x2", name="X2")
    assert (await h.send(t, x2, "leave"))["type"] == "ok"
    assert host.of("table_updated")[-1]["host"]["requests"][0]["offer"] == 2
    assert (await h.send(t, host, "host", action="approve", player="dave"))["seat"] == 2


# --------------------------------------------------------------------------- numbers, names
async def test_hand_numbers_count_per_table_from_one() -> None:
    h = Harness(config=CFG)
    a, sa = await _table(h, 2)
    await h.advance(a, 2.0)
    await _finish(h, a, sa)
    await h.advance(a, 2.0)
    b, sb = await _table(h, 0)
    for seat, pid in ((0, "q0"), (1, "q1")):
        sink = h.player(pid)
        assert (await h.send(b, sink, "sit", seat=seat, buy_in=BUY_IN))["type"] == "ok"
        sb.append(sink)
    await h.advance(b, 2.0)
    assert [m["number"] for m in sa[0].of("hand_started")] == [1, 2]
    assert [m["number"] for m in sb[0].of("hand_started")] == [1]  # not #3
    ids = [m["hand"] for m in sa[0].of("hand_started") + sb[0].of("hand_started")]
    assert len(set(ids)) == 3  # the ids stay unique
    watcher = FakeSink()
    await h.send(a, watcher, "watch")
    assert watcher.of("snapshot")[-1]["number"] == 2
    listed, _ = await a.recording.history.hands_of("p0")  # the history says "#1" too
    assert [s.to_wire()["number"] for s in listed] == [1]
    fresh = h.create(**HOLDEM)
    await h.send(fresh, watcher, "watch")
    assert "number" not in watcher.of("snapshot")[-1]  # no hand yet


async def test_a_duplicate_name_gets_a_suffix() -> None:
    h = Harness(config=CFG)
    names = [h.create(**HOLDEM, name=n).spec.name for n in ("Friday", "friday", "Friday")]
    assert names == ["Friday", "friday (2)", "Friday (3)"]
    listed = {e["name"] for e in h.registry.tables()}
    assert {"Friday", "friday (2)", "Friday (3)"} <= listed
    # a private table's name is told apart among its host's tables only
    assert h.create(**HOLDEM, name="Friday", private=True).spec.name == "Friday"
    assert h.create(**HOLDEM, name="Friday", private=True).spec.name == "Friday (2)"


# --------------------------------------------------------------------------- the ledger
async def test_every_player_gets_the_closing_ledger_equal_to_the_balances() -> None:
    h = Harness(config=CFG)
    t, host, code = await _home(h)
    bob = h.player("bob")
    await h.send(t, bob, "sit", seat=1, buy_in=BUY_IN, code=code)
    await h.send(t, host, "host", action="approve", player="bob")
    await h.advance(t, 2.0)
    await _finish(h, t, [host, bob, host, host])
    assert (await h.send(t, bob, "leave"))["type"] == "ok"  # gone before the end: still his
    assert (await h.send(t, host, "host", action="close"))["type"] == "ok"
    await t.idle()
    assert t.stopped
    for who in (host, bob):
        (ledger,) = who.of("ledger")
        rows = {r["player"]: r for r in ledger["rows"]}
        assert set(rows) == {"owner", "bob", HOUSE_ROW}
        assert sum(r["net"] for r in rows.values()) == 0
        for pid in ("owner", "bob"):
            assert rows[pid]["net"] == h.wallet.balance(pid) - 100_000
        assert ledger["text"].splitlines()[0].startswith("player,name,")


@pytest.mark.parametrize("variant", ["caribbean"])
async def test_leaving_a_house_round_folds_without_stopping_the_others(variant: str) -> None:
    """Caribbean Stud: a leaver's ante question is answered (sat out) at once; the phase
    deadline of the others runs on."""
    h = Harness(config=CFG)
    jp = h.registry.jackpot
    assert isinstance(jp, EmbeddedJackpot)
    jp.pool = 0  # (it opens at the reset amount, CSP-08)
    t = h.create(variant=variant, stakes={"min": 10, "max": 100}, seats=3)
    a, b = h.player("a"), h.player("b")
    await h.send(t, a, "sit", seat=0, buy_in=1000)
    await h.send(t, b, "sit", seat=1, buy_in=1000)
    await h.advance(t, 2.0)
    assert t.in_hand
    assert (await h.send(t, a, "leave"))["pending"] is True
    assert [m for m in b.of("acted") if m["seat"] == 0][-1]["action"] == "fold"
    assert t.in_hand  # b still has to ante
    assert (await h.send(t, b, "act", action="ante", amount=10))["type"] == "ok"
    while t.in_hand:
        await h.advance(t, 5.0)
    assert t.seats[0] is None
    total = h.wallet.total() + t.seats.chips() + t.dealer.house_net
    assert total + jp.pool + jp.minor + jp.house == 2 * 100_000
