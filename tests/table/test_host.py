"""A private table's host controls (issue 16, docs/protocol.md "Private games"), on the fake
clock: invite codes, approval of seats, pause, remove, changes from the next hand, transfer,
close, and the session ledger from the journal. The ledger invariant holds after each test."""

from __future__ import annotations

import re
from typing import Any

from protocol.errors import ProtocolError
from protocol.requests import parse_request
from server.table import TableActor
from server.table.api import Envelope
from server.table.lobby import table_number
from server.table.session import HOUSE_ROW, session_csv
from server.table.wake import STOP
from tests.table.helpers import FakeSink, Harness, hand_of

HOLDEM: dict[str, Any] = {"variant": "holdem", "structure": "no_limit",
                          "stakes": {"blinds": [5, 10]}, "seats": 6, "private": True}


def _total(h: Harness, *tables: TableActor) -> int:
    return h.wallet.total() + sum(t.seats.chips() for t in tables)


async def _home(h: Harness) -> tuple[TableActor, FakeSink, str]:
    """A private table whose host ("owner", the creator) sits at seat 0."""
    t = h.create(**HOLDEM)
    host = h.player("owner")
    code = t.host.code
    assert code is not None and len(code) >= 16
    assert (await h.send(t, host, "sit", seat=0, buy_in=500))["type"] == "ok"  # no approval
    return t, host, code


async def test_a_private_table_is_unlisted_and_needs_its_code() -> None:
    h = Harness()
    t, host, code = await _home(h)
    public = h.create(**{**HOLDEM, "private": False})
    assert [e["table"] for e in h.registry.tables()] == [public.table_id]
    assert h.registry.created(t.table_id) == {"table": t.table_id, "code": code}
    assert h.registry.created(public.table_id) == {"table": public.table_id}
    stranger = h.player("stranger")
    # issue 23: whatever a stranger asks, the answer is the one to a table that does not
    # exist (same code, same message): nothing says a seat is taken or who sits there
    nothing = ProtocolError.unknown_table(t.table_id).to_message()
    for kind, fields in (("watch", {}), ("sit", {"seat": 1, "buy_in": 500}),
                         ("resume", {"since": 0}), ("chat", {"text": "hi"}),
                         ("watch", {"code": "x" * 16}), ("resume", {"since": 0, "code": "y"}),
                         ("sit", {"seat": 1, "buy_in": 500, "code": code[:-1] + "A"}),
                         ("mute", {"seat": 0}), ("mute", {"seat": 1}), ("mute", {"seat": 8}),
                         ("mute", {"name": "Owner"}), ("mute", {"name": "Nobody"}),
                         ("unwatch", {}), ("leave", {}), ("sit_out", {}), ("sit_in", {}),
                         ("show_hands", {"hand": "h1"}), ("act", {"action": "fold"}),
                         ("host", {"action": "pause"}), ("host", {"action": "ledger"})):
        answer = await h.send(t, stranger, kind, **fields)
        assert {**answer, "rid": None} == {**nothing, "rid": None}, (kind, fields, answer)
    assert not stranger.of("snapshot")
    assert t.host.admitted == set() and t.seats.seat_of("stranger") is None
    # with the code: watch; from then on admitted (a rotated code does not shut them out)
    friend = h.player("friend")
    assert (await h.send(t, friend, "watch", code=code))["type"] == "ok"
    snap = friend.of("snapshot")[-1]
    assert snap["host"]["private"] and snap["host"]["name"] == "Owner"
    assert "code" not in snap["host"] and "requests" not in snap["host"]
    assert (await h.send(t, host, "host", action="rotate_code"))["code"] != code
    assert (await h.send(t, friend, "resume", since=0))["type"] == "ok"
    assert (await h.send(t, stranger, "watch", code=code))["code"] == "unknown_table"  # old code
    assert _total(h, t, public) == 300_000  # three players of 100,000: nothing lost


async def test_a_private_table_id_is_not_guessable_but_keeps_its_number() -> None:
    """Issue 23: table ids are sequential; a private table's carries a random suffix (so a
    walk of the numbers finds none), its number is still the sequence's (its name)."""
    h = Harness()
    ids = [h.create(**HOLDEM).table_id for _ in range(3)]
    public = h.create(**{**HOLDEM, "private": False})
    assert public.table_id == "t4" and table_number(public.table_id) == 4
    assert [table_number(i) for i in ids] == [1, 2, 3]
    assert all(re.fullmatch(r"t\d+-[A-Za-z0-9_-]{12}", i) for i in ids), ids
    assert len({i.split("-", 1)[1] for i in ids}) == 3
    assert [h.registry.get(i).spec.name for i in ids] == ["Table 1", "Table 2", "Table 3"]  # type: ignore[union-attr]
    assert h.registry.get("t1") is None and table_number("t1-") == 1


async def test_a_watcher_admitted_before_hello_and_a_busy_or_closed_private_table() -> None:
    """A connection that came with the code follows the table (it may `unwatch`, `resume`
    without the code); a table too busy or stopped answers a stranger `unknown_table`, not
    `server_busy`/`table_closed` (which would tell that it exists)."""
    h = Harness()
    t, host, code = await _home(h)
    anon = FakeSink(player_id=None, name=None, codec=host.codec)
    assert (await h.send(t, anon, "watch", code=code))["type"] == "ok"
    assert (await h.send(t, anon, "resume", since=0))["type"] == "ok"
    assert (await h.send(t, anon, "unwatch"))["type"] == "ok"
    assert (await h.send(t, anon, "unwatch"))["code"] == "unknown_table"  # no longer follows
    stranger, friend = h.player("stranger"), h.player("friend")
    assert (await h.send(t, friend, "watch", code=code))["type"] == "ok"
    t.inbox.put_nowait(STOP)  # the table stops (its loop ends)
    await t.idle()
    assert t.stopped
    assert (await h.send(t, stranger, "watch", code=code[::-1]))["code"] == "unknown_table"
    assert (await h.send(t, stranger, "mute", seat=0))["code"] == "unknown_table"
    assert (await h.send(t, friend, "watch"))["code"] == "table_closed"  # admitted: the truth
    assert (await h.send(t, h.player("late"), "watch", code=code))["code"] == "table_closed"
    assert "late" not in t.host.admitted  # a refused request admits nobody


async def test_requests_queued_when_a_private_table_closes_tell_a_stranger_nothing() -> None:
    h = Harness()
    t, host, code = await _home(h)
    stranger, friend = h.player("stranger"), h.player("friend")
    assert (await h.send(t, friend, "watch", code=code))["type"] == "ok"
    t.call(lambda: t.close_for_good("host"))  # handled before the requests queued behind it
    for sink, rid in ((stranger, "s1"), (friend, "f1")):
        t.submit_nowait(Envelope(parse_request({"type": "mute", "rid": rid,
                                                "table": t.table_id, "seat": 0}), sink))
    await t.idle()
    assert stranger.answers() == [ProtocolError.unknown_table(t.table_id, rid="s1").to_message()]
    assert friend.answers()[-1]["code"] == "table_closed"


async def test_seat_requests_wait_for_the_host() -> None:
    h = Harness()
    t, host, code = await _home(h)
    bob = h.player("bob")
    answer = await h.send(t, bob, "sit", seat=2, buy_in=400, code=code)
    assert answer["type"] == "ok" and answer["pending"] is True
    assert t.seats[2] is None and h.wallet.balance("bob") == 100_000  # nothing taken yet
    request = host.of("seat_request")[-1]
    assert (request["player"], request["seat"], request["buy_in"]) == ("bob", 2, 400)
    again = h.player("bob")  # bob reloads: his snapshot still shows his request
    await h.send(t, again, "watch", code=code)
    assert again.of("snapshot")[-1]["host"]["request"]["seat"] == 2
    assert not bob.of("seat_request")  # the host's alone
    assert (await h.send(t, bob, "host", action="approve", player="bob"))["code"] == "not_host"
    assert (await h.send(t, host, "host", action="approve", player="nobody"))["code"] == \
        "no_request"
    carol = h.player("carol")
    await h.send(t, carol, "sit", seat=3, buy_in=400, code=code)
    assert (await h.send(t, host, "host", action="refuse", player="carol"))["type"] == "ok"
    assert carol.of("seat_refused")[-1]["seat"] == 3 and t.seats[3] is None
    assert (await h.send(t, host, "host", action="approve", player="bob"))["type"] == "ok"
    st = t.seats[2]
    assert st is not None and st.player_id == "bob" and st.stack == 400
    assert h.wallet.balance("bob") == 100_000 - 400
    assert bob.of("snapshot")[-1]["you"] == 2
    assert _total(h, t) == 300_000


async def test_pause_remove_change_transfer_and_close() -> None:
    h = Harness()
    t, host, code = await _home(h)
    bob, carol = h.player("bob"), h.player("carol")
    for who, seat in ((bob, 1), (carol, 2)):
        await h.send(t, who, "sit", seat=seat, buy_in=500, code=code)
        await h.send(t, host, "host", action="approve", player=who.player_id)
    await h.advance(t, 3.0)
    assert t.in_hand
    # blinds change from the next hand; the running hand keeps its stakes
    answer = await h.send(t, host, "host", action="change", stakes={"blinds": [10, 20]},
                          settings={"action_clock": 15})
    assert answer["type"] == "ok" and answer["pending"] is True
    assert t.spec.stakes_wire == {"blinds": [5, 10]}
    assert host.of("table_updated")[-1]["host"]["next"]["stakes"] == {"blinds": [10, 20]}
    bad = await h.send(t, host, "host", action="change", settings={"spectator_delay": 5})
    assert bad["code"] == "bad_settings"
    assert (await h.send(t, host, "host", action="change",
                         stakes={"blinds": [20, 10]}))["code"] == "bad_stakes"
    # removal at the end of the hand; paused: no next hand
    assert (await h.send(t, host, "host", action="remove", seat=2))["pending"] is True
    assert (await h.send(t, host, "host", action="pause"))["type"] == "ok"
    while t.in_hand:
        to_act = hand_of(t).to_act
        assert to_act is not None
        who = {0: host, 1: bob, 2: carol}[to_act]
        await h.send(t, who, "act", action="fold")
    assert t.seats[2] is None and h.wallet.balance("carol") > 0
    assert carol.of("left")[-1] == {**carol.of("left")[-1], "seat": 2, "reason": "removed"}
    assert (await h.send(t, carol, "sit", seat=2, buy_in=500, code=code))["code"] == "removed"
    await h.advance(t, 10.0)
    assert not t.in_hand  # paused
    assert (await h.send(t, host, "host", action="resume"))["type"] == "ok"
    await h.advance(t, 3.0)
    assert t.in_hand and t.spec.stakes_wire == {"blinds": [10, 20]}
    now = bob.of("table_updated")[-1]["host"]  # everyone sees the stakes in use
    assert now["stakes"] == {"blinds": [10, 20]} and now["next"] is None
    assert t.spec.action_clock == 15
    # the host role to bob; the old host is refused
    assert (await h.send(t, host, "host", action="transfer", seat=1))["type"] == "ok"
    assert (await h.send(t, host, "host", action="pause"))["code"] == "not_host"
    # close after the running hand: everyone cashed out, the table forgotten
    assert (await h.send(t, bob, "host", action="close"))["pending"] is True
    while t.in_hand:
        to_act = hand_of(t).to_act
        assert to_act is not None
        await h.send(t, {0: host, 1: bob}[to_act], "act", action="fold")
    await t.idle()
    assert t.stopped and t.seats.is_empty()
    assert h.registry.get(t.table_id) is None
    assert bob.of("table_closed")[-1]["reason"] == "host"
    assert h.wallet.total() == 300_000
    # the (new) host and every player of the game get the final session ledger (issue 24):
    # everyone cashed out, nets sum to zero, the same frame to each
    final = bob.of("ledger")[-1]
    assert host.of("ledger") == [final] and carol.of("ledger") == [final]
    rows = {r["player"]: r for r in final["rows"]}
    assert set(rows) == {"owner", "bob", "carol", HOUSE_ROW}
    assert all(r["at_table"] == 0 for r in rows.values())
    assert sum(r["net"] for r in rows.values()) == 0
    for pid in ("owner", "bob", "carol"):
        assert rows[pid]["net"] == h.wallet.balance(pid) - 100_000
    assert final["text"] == session_csv(final["rows"])


async def test_the_session_ledger_sums_to_zero_with_the_table() -> None:
    h = Harness()
    t, host, code = await _home(h)
    bob = h.player("bob")
    await h.send(t, bob, "sit", seat=1, buy_in=300, code=code)
    await h.send(t, host, "host", action="approve", player="bob")
    for _ in range(3):
        await h.advance(t, 3.0)
        while t.in_hand:
            seat = hand_of(t).to_act
            assert seat is not None
            await h.send(t, {0: host, 1: bob}[seat], "act", action="call"
                         if hand_of(t).options(seat).call else "check")  # type: ignore[union-attr]
    assert not t.in_hand  # (the next hand waits for the pause)
    assert (await h.send(t, bob, "sit", seat=1, buy_in=100))["type"] == "ok"  # a rebuy
    answer = await h.send(t, host, "host", action="ledger", format="csv")
    rows = {r["player"]: r for r in answer["ledger"]}
    assert set(rows) == {"owner", "bob", HOUSE_ROW}
    assert sum(r["net"] for r in rows.values()) == 0
    for pid, seat in (("owner", 0), ("bob", 1)):
        st = t.seats[seat]
        assert st is not None and rows[pid]["at_table"] == st.stack
    assert rows["owner"]["buy_ins"] == 500 and rows["bob"]["buy_ins"] == 300
    assert rows["bob"]["rebuys"] == 100 and rows["owner"]["rebuys"] == 0
    assert answer["text"] == session_csv(answer["ledger"])
    assert answer["text"].splitlines()[0] == "player,name,buy_ins,rebuys,cash_outs,at_table,net"
    # every player of the game may see it too (issue 24); a stranger or a spectator not
    mine = await h.send(t, bob, "host", action="ledger")
    assert mine["type"] == "ok" and mine["ledger"] == answer["ledger"] and "text" not in mine
    watcher = FakeSink(player_id="watcher", name="Watcher")  # (no account: the sums stay)
    assert (await h.send(t, watcher, "watch", code=code))["type"] == "ok"
    assert (await h.send(t, watcher, "host", action="ledger"))["code"] == "not_host"
    # rebuys off (between hands: at once): refused
    assert (await h.send(t, host, "host", action="change",
                         settings={"rebuys": False}))["pending"] is False
    assert (await h.send(t, bob, "sit", seat=1, buy_in=100))["code"] == "rebuys_off"
    assert _total(h, t) + rows[HOUSE_ROW]["net"] == 200_000


async def test_a_public_table_has_no_host() -> None:
    h = Harness()
    t = h.create(**{**HOLDEM, "private": False})
    owner = h.player("owner")
    assert (await h.send(t, owner, "host", action="pause"))["code"] == "not_host"
    assert (await h.send(t, owner, "watch"))["type"] == "ok"
    assert "host" not in owner.of("snapshot")[-1]


async def test_a_frozen_account_is_seated_neither_from_the_waiting_list_nor_by_a_host() -> None:
    """The operator's freeze (the router refuses its ``sit``) holds where the table seats a
    player on its own: a waiting list's turn, a host's approval of an earlier request."""
    h = Harness()
    frozen: set[str] = set()
    h.registry.frozen = frozen.__contains__
    t = h.create(variant="holdem", structure="no_limit", stakes={"blinds": [5, 10]}, seats=2)
    a, b, bob, dan = h.player("a"), h.player("b"), h.player("bob"), h.player("dan")
    await h.send(t, a, "sit", seat=0, buy_in=500)
    await h.send(t, b, "sit", seat=1, buy_in=500)
    for waiter in (bob, dan):
        assert (await h.send(t, waiter, "sit", seat=0, buy_in=400))["code"] == "table_full"
    frozen.add("bob")  # frozen while on the list
    await h.send(t, a, "leave")
    await t.idle()
    await h.advance(t, 30.0)  # any running hand ends by timeouts
    seated = {st.player_id for st in t.seats if st is not None}
    assert "bob" not in seated and "dan" in seated
    assert h.wallet.balance("bob") == 100_000
    home, host, code = await _home(h)
    await h.send(home, bob, "sit", seat=1, buy_in=400, code=code)
    answer = await h.send(home, host, "host", action="approve", player="bob")
    assert answer["code"] == "account_frozen" and home.seats[1] is None
    assert bob.of("seat_refused")[-1]["reason"] == "account_frozen"
    assert _total(h, t, home) == 500_000


async def test_seat_requests_are_bounded_and_gone_askers_make_room() -> None:
    """At most MAX_REQUESTS seat requests wait; when the list is full, the requests of askers
    with no connection left go first (a crowd that asked and left cannot block the door)."""
    from server.table.host import MAX_REQUESTS

    h = Harness()
    t, host, code = await _home(h)
    askers = [h.player(f"a{i}") for i in range(MAX_REQUESTS)]
    for a in askers:
        assert (await h.send(t, a, "sit", seat=1, buy_in=400, code=code))["pending"] is True
    late = h.player("late")
    assert (await h.send(t, late, "sit", seat=1, buy_in=400, code=code))["code"] == \
        "table_full"
    for a in askers[:3]:
        t.detach(a)
    await t.idle()
    assert (await h.send(t, late, "sit", seat=1, buy_in=400, code=code))["pending"] is True
    assert len(t.host.requests) == MAX_REQUESTS - 2
    assert "a0" not in t.host.requests and "late" in t.host.requests
