"""Round trips: every request and every server message through both encodings."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from protocol import (
    CODECS,
    EVENT_TYPES,
    JSON_CODEC,
    MSGPACK_CODEC,
    REQUEST_CLASSES,
    REQUEST_TYPES,
    TABLE_EVENT_TYPES,
    check_server_message,
    parse_request,
    parse_seat_map,
)
from protocol import messages as m
from protocol.requests import (
    Act,
    ChangePassword,
    Chat,
    CreateTable,
    Hand,
    Hello,
    History,
    Host,
    Leave,
    Login,
    Logout,
    Mute,
    Ping,
    Register,
    Request,
    Resume,
    ShowHands,
    Sit,
    SitIn,
    SitOut,
    Tables,
    Unwatch,
    Watch,
)
from tests.protocol.test_tournaments import TOURNAMENT_MESSAGES, TOURNAMENT_REQUESTS

DECK = [r + s for r in "23456789TJQKA" for s in "shdc"]

REQUESTS: list[Request] = [
    Hello(rid=1, guest="Alice"),
    Hello(rid="h2", token="tok-123"),
    Login(rid=2, name="Bob", password="hunter2!"),
    Register(rid=3, name="Carol", password="correct horse"),
    Logout(rid=31, all=True),
    ChangePassword(rid=32, old_password="correct horse", new_password="battery staple"),
    Ping(rid=4),
    Ping(rid=5, t=1712345678.25),
    Tables(rid=6),
    Tables(rid=7, variant="stud7"),
    Tables(rid="t8", variant="holdem", min_big_blind=10, max_big_blind=200, free_seats=2,
           limit=25, cursor="t40"),
    Mute(rid="m1", table="t1", seat=3),
    Mute(rid="m2", table="t1", name="rail-bird", on=False),
    Host(rid="h1", table="t1", action="approve", player="p_bob"),
    Host(rid="h2", table="t1", action="change", stakes={"blinds": [100, 200]},
         settings={"action_clock": 20}),
    Host(rid="h3", table="t1", action="ledger", format="csv"),
    CreateTable(rid=8, variant="holdem", structure="no_limit", stakes={"blinds": [50, 100]},
                seats=6, name="High rollers", settings={"action_clock": 30, "rake": {"cap": 3}},
                decks=(tuple(DECK), tuple(reversed(DECK)))),
    CreateTable(rid=9, variant="caribbean", stakes={"min": 10, "max": 500}, seats=7),
    Watch(rid=10, table="t1"),
    Unwatch(rid=11, table="t1"),
    Sit(rid=12, table="t1", seat=3, buy_in=5000),
    Leave(rid=13, table="t1"),
    Act(rid=14, table="t1", action="raise", amount=600),
    Act(rid=15, table="t1", action="fold"),
    Act(rid=16, table="t1", action="draw", discard=("7c", "2d")),
    Act(rid=17, table="t1", action="ante", amount=25, jackpot=True),
    Act(rid=18, table="t1", action="play"),
    Chat(rid=19, table="t1", text="gl hf \N{SLIGHTLY SMILING FACE}"),
    SitOut(rid=20, table="t1"),
    SitIn(rid=21, table="t1"),
    ShowHands(rid=22, table="t1", hand="h-77"),
    ShowHands(rid=23, table="t1", hand=77, seats=(0, 4)),
    Resume(rid=24, table="t1", since=41),
    History(rid=25),
    History(rid=26, limit=50, before="h-77", table="t1"),
    Hand(rid=27, hand="h-77"),
    Hand(rid=None, hand=12),
    *TOURNAMENT_REQUESTS,
]

T = "t1"

SERVER_MESSAGES: list[dict[str, Any]] = [
    m.ok(1),
    m.ok(8, table="t9"),
    m.ok(None, tables=[{"table": "t1", "name": "Main", "variant": "holdem",
                        "structure": "no_limit", "stakes": {"blinds": [50, 100]}, "seats": 6,
                        "players": 2, "spectators": 0}]),
    m.error(14, "not_your_turn"),
    m.error(None, "malformed", "invalid JSON"),
    m.pong(4, time=1712345678.5),
    m.pong(5, time=1712345678.5, t=1712345678.25),
    m.welcome(player_id="p1", name="Alice", token="tok", balance=10000),
    m.welcome(player_id="p2", name="Bob", token="tok2", balance=0, guest=False),
    m.jackpot(pool=1_000_000),
    m.jackpot(pool=1_000_000, minor=200_000, major=800_000, table=T),
    m.balance(balance=9_500),
    m.notice(text="the room closes at midnight"),
    m.notice(text="this table closes after this hand", table="t1"),
    m.snapshot(T, 41, variant="holdem", structure="no_limit", stakes={"blinds": [50, 100]},
               seats=[None, {"seat": 1, "name": "Alice", "stack": 900, "bet": 100,
                             "state": "active", "cards": ["As", "Kd"], "up": []},
                      {"seat": 2, "name": "Bob", "stack": 1000, "bet": 50, "state": "active",
                       "cards": [None, None], "up": []}],
               board=["2c", "7h", "Td"], pots=[{"amount": 300, "eligible": [1, 2]}], button=2,
               turn={"seat": 1, "deadline": 1712345690.0}, hand="h-1", name="Main",
               settings={"blinds": 2}, you=1, number=3),
    m.snapshot(T, 0, variant="caribbean", structure=None, stakes={"min": 10}, seats=[None],
               board=[], pots=[], button=None, turn=None, hand=None),
    m.seated(T, 1, seat=3, name="Alice", stack=5000),
    m.seated(T, 1, seat=3, name="Alice", stack=5000, topup=1000),  # GEN-06, issue 24
    m.left(T, 2, seat=3, name="Alice"),
    m.sat_out(T, 3, seat=3),
    m.sat_in(T, 4, seat=3),
    m.sat_in(T, 4, seat=3, wait_for_bb=True),  # GEN-05: back, waiting for the big blind
    m.presence(T, 4, seat=3, online=False),
    m.hand_started(T, 5, hand="h-1", button=0, commitment="ab" * 32),
    m.hand_started(T, 5, hand="h-1", button=0, commitment="ab" * 32, number=1),
    m.posted(T, 6, seat=1, kind="blind", amount=50),
    m.dealt(T, 7, seat=1, cards=["As", "Kd"], up=[]),
    m.dealt(T, 7, seat=2, cards=[None, None], up=["9c"]),
    m.drew(T, 8, seat=1, count=2, cards=["3h", "4h"]),
    m.drew(T, 8, seat=1, count=2),
    m.board(T, 9, cards=["2c", "7h", "Td"]),
    m.board(T, 9, cards=["2c", "7h", "Td", "9s", "Qd"], run=2),  # RIT-03: the second run
    m.turn(T, 10, seat=1, deadline=1712345690.0,
           options={"fold": True, "check": False, "call": 200, "raise": {"min": 400,
                                                                          "max": 5000}}),
    m.turn(T, 10, seat=1, deadline=1712345690),
    m.acted(T, 11, seat=1, action="raise", amount=600, stack=4400),
    m.showdown(T, 12, seat=1, cards=["Ks", "Kd"], hand="t1.4", value="two pair, kings and sevens"),
    m.mucked(T, 13, seat=2),
    m.pots(T, 13, pots=[{"amount": 1201, "eligible": [1, 2, 3]},
                       {"amount": 400, "eligible": [1, 3]}]),
    m.pot_awarded(T, 14, pot=0, amount=1201, winners={1: 601, 3: 600}, odd_chip=1),
    m.pot_awarded(T, 15, pot=1, amount=400, winners={3: 400}, odd_chip=None),
    m.pot_awarded(T, 15, pot=0, amount=600, winners={3: 600}, odd_chip=None, run=2),  # RIT-04
    m.hand_ended(T, 16, hand="h-1", stacks={1: 5000, 3: 600},
                 reveal=[{"card": "Ks", "position": 4, "salt": "00ff", "proof": ["aa", "bb"]}]),
    m.chat(T, 17, seat=1, text="gl"),
    m.chat(T, 18, name="rail-bird", text="nh"),
    m.dealer(T, 19, cards=["Qh", None, None, None, None]),
    m.dealer(T, 20, cards=["Qh", "Qs", "2c", "3d", "9h"], hand="one pair, queens",
             qualifies=True),
    m.settled(T, 21, results={1: {"ante": 25, "play": 50, "jackpot": -1},
                              2: {"ante": -25, "play": None, "jackpot": None}}),
    m.table_closed(T, 22, reason="idle"),
    m.seat_request(T, 23, player="p_bob", name="Bob", seat=2, buy_in=1000, guest="3fa2"),
    m.seat_refused(T, 24, player="p_bob", seat=2, reason="seat_taken"),
    m.ledger(T, 26, rows=[{"player": "p_bob", "name": "Bob", "buy_ins": 500, "rebuys": 0,
                           "cash_outs": 650, "at_table": 0, "net": 150}],
             text="player,name,buy_ins,rebuys,cash_outs,at_table,net\n"),
    m.table_updated(T, 25, host={"seat": 0, "name": "Ann", "private": True, "paused": False,
                                 "approve_seats": True, "rebuys": True, "next": None}),
    *TOURNAMENT_MESSAGES,
]

CODEC_LIST = list(CODECS.values())


def _id(value: Any) -> str:
    if isinstance(value, Request):
        return value.TYPE
    return str(value.get("type"))


def test_samples_cover_every_request_type() -> None:
    assert {r.TYPE for r in REQUESTS} == set(REQUEST_TYPES) == set(REQUEST_CLASSES)


def test_samples_cover_every_server_message_type() -> None:
    assert {msg["type"] for msg in SERVER_MESSAGES} == {"ok", "error", "pong", *EVENT_TYPES}


@pytest.mark.parametrize("codec", CODEC_LIST, ids=lambda c: c.subprotocol)
@pytest.mark.parametrize("req", REQUESTS, ids=_id)
def test_request_round_trip(codec: Any, req: Request) -> None:
    frame = codec.encode(req.to_dict())
    assert isinstance(frame, bytes if codec.binary else str)
    decoded = codec.decode(frame)
    assert decoded == req.to_dict()
    again = parse_request(decoded)
    assert again == req
    assert type(again) is type(req)


@pytest.mark.parametrize("codec", CODEC_LIST, ids=lambda c: c.subprotocol)
@pytest.mark.parametrize("msg", SERVER_MESSAGES, ids=_id)
def test_server_message_round_trip(codec: Any, msg: dict[str, Any]) -> None:
    decoded = codec.decode(codec.encode(msg))
    assert decoded == msg
    assert check_server_message(decoded) == msg["type"]
    if msg["type"] in TABLE_EVENT_TYPES:
        assert isinstance(decoded["table"], str) and isinstance(decoded["seq"], int)


@pytest.mark.parametrize("msg", SERVER_MESSAGES, ids=_id)
def test_json_and_msgpack_carry_identical_objects(msg: dict[str, Any]) -> None:
    assert JSON_CODEC.decode(JSON_CODEC.encode(msg)) == MSGPACK_CODEC.decode(
        MSGPACK_CODEC.encode(msg)
    )


def test_seat_maps_use_string_keys_on_the_wire() -> None:
    msg = next(m for m in SERVER_MESSAGES if m["type"] == "pot_awarded")
    assert msg["winners"] == {"1": 601, "3": 600}
    for codec in CODEC_LIST:
        decoded = codec.decode(codec.encode(msg))
        assert parse_seat_map(decoded["winners"]) == {1: 601, 3: 600}


def test_requests_are_frozen_and_slotted() -> None:
    req = REQUESTS[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        req.rid = 99  # type: ignore[misc]
    assert not hasattr(req, "__dict__")


def test_request_without_rid_round_trips_with_null_rid() -> None:
    req = parse_request({"type": "watch", "table": "t1"})
    assert req.rid is None
    assert req.to_dict() == {"type": "watch", "rid": None, "table": "t1"}
