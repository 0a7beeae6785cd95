"""Request validation: each bad field gets a specific code; valid values are canonical."""

from __future__ import annotations

from typing import Any, TypeVar

import pytest

from protocol import (
    ACTIONS,
    MAX_SAFE_INT,
    REQUEST_TYPES,
    STRUCTURES,
    VARIANTS,
    Act,
    Chat,
    CreateTable,
    Hello,
    ProtocolError,
    Sit,
    parse_request,
    request_fields,
)
from protocol.requests import Hand, History, Ping, Register, Request, Tables

R = TypeVar("R", bound=Request)

DECK = [r + s for r in "23456789TJQKA" for s in "shdc"]


def _parse(cls: type[R], obj: Any) -> R:
    """``parse_request`` of ``obj``, which must be a ``cls``."""
    req = parse_request(obj)
    assert isinstance(req, cls)
    return req


def _err(obj: Any) -> ProtocolError:
    with pytest.raises(ProtocolError) as info:
        parse_request(obj)
    return info.value


def _code(obj: Any) -> str:
    return _err(obj).code


def act(**fields: Any) -> dict[str, Any]:
    return {"type": "act", "rid": 1, "table": "t1", "action": "call", **fields}


# --- Constants --------------------------------------------------------------------------
def test_game_names() -> None:
    assert VARIANTS == ("holdem", "manila", "manila3", "draw", "stud5", "stud7", "caribbean")
    assert STRUCTURES == ("fixed_limit", "spread_limit", "pot_limit", "half_pot", "no_limit")
    assert ACTIONS == ("fold", "check", "call", "bet", "raise", "bring_in", "complete", "draw",
                       "ante", "play", "over_blind", "decline", "run_twice", "run_once",
                       "show", "muck")


def test_protocol_md_request_types_exist() -> None:
    for kind in ("hello", "tables", "create_table", "watch", "unwatch", "sit", "leave", "act",
                 "chat", "sit_out", "sit_in", "show_hands", "resume", "ping", "login",
                 "register", "history", "hand"):
        assert kind in REQUEST_TYPES


# --- Envelope ---------------------------------------------------------------------------
@pytest.mark.parametrize("obj", [[], "x", None, {}, {"type": 3}, {"type": ""}])
def test_not_a_message_is_malformed(obj: Any) -> None:
    assert _code(obj) == "malformed"


def test_unknown_type_carries_rid() -> None:
    err = _err({"type": "teleport", "rid": "r9"})
    assert (err.code, err.rid) == ("unknown_type", "r9")
    assert err.to_message()["rid"] == "r9"


def test_event_types_are_not_requests() -> None:
    assert _code({"type": "ok", "rid": 1}) == "unknown_type"
    assert _code({"type": "snapshot", "rid": 1}) == "unknown_type"


@pytest.mark.parametrize("rid", [True, False, 1.5, [1], {"a": 1}, "x" * 65, 2**53])
def test_bad_rid(rid: Any) -> None:
    err = _err({"type": "tables", "rid": rid})
    assert (err.code, err.field, err.rid) == ("bad_field", "rid", None)


@pytest.mark.parametrize("rid", [0, -5, MAX_SAFE_INT, "", "x" * 64, "abc"])
def test_good_rid(rid: Any) -> None:
    assert parse_request({"type": "tables", "rid": rid}).rid == rid


def test_missing_rid_is_none() -> None:
    assert parse_request({"type": "tables"}).rid is None


def test_unknown_fields_are_ignored() -> None:
    assert parse_request({"type": "watch", "table": "t", "future": [1]}).to_dict() == {
        "type": "watch", "rid": None, "table": "t"}


def test_null_counts_as_absent() -> None:
    assert _parse(Tables, {"type": "tables", "variant": None}).variant is None
    err = _err({"type": "watch", "rid": 4, "table": None})
    assert (err.code, err.field, err.rid) == ("missing_field", "table", 4)


@pytest.mark.parametrize("kind", REQUEST_TYPES)
def test_missing_required_fields(kind: str) -> None:
    required = [name for name, req in request_fields(kind) if req]
    for name in required:
        obj = {"type": kind, "rid": 1, **{n: None for n in required if n != name}}
        err = _err(obj)
        assert err.code == "missing_field"
        assert err.rid == 1


# --- Identity ---------------------------------------------------------------------------
def test_hello_guest_or_token() -> None:
    assert parse_request({"type": "hello", "guest": "  Alice "}) == Hello(guest="Alice")
    assert _parse(Hello, {"type": "hello", "token": "abc"}).token == "abc"
    assert _code({"type": "hello"}) == "missing_field"
    assert _code({"type": "hello", "guest": "A", "token": "t"}) == "bad_field"


@pytest.mark.parametrize("name", ["", "   ", "x" * 25, "a\nb", "a\x00b", "bad\u202ename", 7,
                                  ["Al"], "a\u200bb"])
def test_bad_names(name: Any) -> None:
    for kind, extra in (("hello", {}), ("login", {"password": "pw"}),
                        ("register", {"password": "pw"})):
        field = "guest" if kind == "hello" else "name"
        err = _err({"type": kind, field: name, **extra})
        assert (err.code, err.field) == ("bad_field", field)


@pytest.mark.parametrize("name", ["A", "x" * 24, "Zoë", "José Ángel", "李小龍", "d'Artagnan"])
def test_good_names(name: str) -> None:
    assert _parse(Register, {"type": "register", "name": name, "password": "pw"}).name == name


def test_names_are_nfc_normalised() -> None:
    decomposed = "Zoe\u0308"
    assert _parse(Hello, {"type": "hello", "guest": decomposed}).guest == "Zo\u00eb"


@pytest.mark.parametrize("password", ["", "x" * 129, 1234, None])
def test_bad_passwords(password: Any) -> None:
    code = _code({"type": "login", "name": "Bob", "password": password})
    assert code == ("missing_field" if password is None else "bad_field")


def test_bad_token() -> None:
    assert _code({"type": "hello", "token": "tok\u00e9"}) == "bad_field"
    assert _code({"type": "hello", "token": "x" * 513}) == "bad_field"


# --- Tables -----------------------------------------------------------------------------
def create(**fields: Any) -> dict[str, Any]:
    base = {"type": "create_table", "rid": 2, "variant": "holdem", "structure": "no_limit",
            "stakes": {"blinds": [50, 100]}, "seats": 6}
    base.update(fields)
    return {k: v for k, v in base.items() if v is not None}


def test_create_table_ok() -> None:
    req = parse_request(create())
    assert isinstance(req, CreateTable)
    assert req.stakes == {"blinds": (50, 100)}


@pytest.mark.parametrize("fields, code", [
    ({"variant": "omaha"}, "bad_field"),
    ({"variant": 1}, "bad_field"),
    ({"structure": "cap_limit"}, "bad_field"),
    ({"structure": None}, "missing_field"),
    ({"variant": "caribbean"}, "bad_structure"),
    ({"seats": 0}, "bad_field"),
    ({"seats": 11}, "bad_field"),
    ({"seats": True}, "bad_field"),
    ({"seats": 6.0}, "bad_field"),
    ({"stakes": [50, 100]}, "bad_field"),
    ({"stakes": {"blinds": [50, -100]}}, "bad_amount"),
    ({"stakes": {"blinds": [50, "100"]}}, "bad_amount"),
    ({"stakes": {"ante": 1.5}}, "bad_amount"),
    ({"stakes": {"blinds": list(range(9))}}, "bad_field"),
    ({"stakes": {f"k{i}": 1 for i in range(17)}}, "bad_field"),
    ({"settings": []}, "bad_field"),
    ({"settings": {"": 1}}, "bad_field"),
    ({"name": "\x07"}, "bad_field"),
    ({"name": "x" * 49}, "bad_field"),
    ({"decks": []}, "bad_field"),
    ({"decks": DECK}, "bad_field"),
    ({"decks": [DECK + ["As"]]}, "bad_field"),
    ({"decks": [["As", "1s"]]}, "bad_field"),
    ({"decks": [["as"]]}, "bad_field"),
    ({"decks": [[]]}, "bad_field"),
    ({"decks": "As Kd"}, "bad_field"),
])
def test_create_table_errors(fields: dict[str, Any], code: str) -> None:
    assert _code(create(**fields)) == code


def test_create_table_caribbean_without_structure() -> None:
    req = parse_request(create(variant="caribbean", structure=None, stakes={"min": 5}))
    assert isinstance(req, CreateTable) and req.structure is None


def test_decks_are_only_checked_structurally() -> None:
    # Duplicates and short decks are the server's check (bad_deck, test_mode_only).
    req = parse_request(create(decks=[["As", "As"], DECK]))
    assert isinstance(req, CreateTable)
    assert req.decks == (("As", "As"), tuple(DECK))


@pytest.mark.parametrize("table", ["", "x" * 65, 5, None, ["t"], "t\n1"])
def test_bad_table_ids(table: Any) -> None:
    for kind in ("watch", "unwatch", "leave", "sit_out", "sit_in"):
        assert _code({"type": kind, "table": table}) in ("bad_field", "missing_field")


# --- Seats ------------------------------------------------------------------------------
def sit(**fields: Any) -> dict[str, Any]:
    return {"type": "sit", "rid": 3, "table": "t1", "seat": 3, "buy_in": 5000, **fields}


def test_sit_ok() -> None:
    assert parse_request(sit()) == Sit(rid=3, table="t1", seat=3, buy_in=5000)


@pytest.mark.parametrize("seat", [-1, 10, True, 1.0, "3"])
def test_bad_seats(seat: Any) -> None:
    err = _err(sit(seat=seat))
    assert (err.code, err.field) == ("bad_field", "seat")


@pytest.mark.parametrize("amount", [-1, 2**53, 1.5, "100", True, [100]])
def test_bad_buy_in_is_bad_amount(amount: Any) -> None:
    err = _err(sit(buy_in=amount))
    assert (err.code, err.field) == ("bad_amount", "buy_in")


# --- Acting -----------------------------------------------------------------------------
@pytest.mark.parametrize("action", ACTIONS)
def test_every_action_parses(action: str) -> None:
    fields: dict[str, Any] = {"action": action}
    if action in ("bet", "raise", "ante"):
        fields["amount"] = 100
    req = parse_request(act(**fields))
    assert isinstance(req, Act) and req.action == action


def test_act_raise_to() -> None:
    req = parse_request(act(action="raise", amount=600))
    assert req == Act(rid=1, table="t1", action="raise", amount=600)


@pytest.mark.parametrize("action", ["bet", "raise", "ante"])
def test_amount_required(action: str) -> None:
    err = _err(act(action=action))
    assert (err.code, err.field) == ("missing_field", "amount")


@pytest.mark.parametrize("amount", [-1, 2**53, 10.0, "600", True, False, [600], {"to": 600}])
def test_bad_amounts(amount: Any) -> None:
    assert _code(act(action="raise", amount=amount)) == "bad_amount"


def test_amount_bounds() -> None:
    assert _parse(Act, act(action="bet", amount=0)).amount == 0
    assert _parse(Act, act(action="bet", amount=MAX_SAFE_INT)).amount == MAX_SAFE_INT


@pytest.mark.parametrize("action", ["shove", "Raise", "", 3, None])
def test_bad_actions(action: Any) -> None:
    assert _code(act(action=action)) in ("bad_field", "missing_field")


def test_draw_discards() -> None:
    req = parse_request(act(action="draw", discard=["7c", "2d"]))
    assert isinstance(req, Act) and req.discard == ("7c", "2d")
    pat = parse_request(act(action="draw"))
    assert isinstance(pat, Act) and pat.discard == ()
    assert _parse(Act, act(action="draw", discard=[])).discard == ()


@pytest.mark.parametrize("discard, code", [
    (["7c", "7c"], "bad_discard"),
    (["2c", "3c", "4c", "5c", "6c", "7c"], "bad_discard"),
    (["7x"], "bad_field"),
    (["10c"], "bad_field"),
    ([7], "bad_field"),
    ("7c", "bad_field"),
])
def test_bad_discards(discard: Any, code: str) -> None:
    assert _code(act(action="draw", discard=discard)) == code


def test_discard_only_with_draw() -> None:
    assert _code(act(action="fold", discard=["7c"])) == "bad_field"


def test_jackpot_only_with_ante() -> None:
    req = parse_request(act(action="ante", amount=10, jackpot=True))
    assert isinstance(req, Act) and req.jackpot is True
    assert _code(act(action="play", jackpot=True)) == "bad_field"
    assert _code(act(action="ante", amount=10, jackpot=1)) == "bad_field"


def test_direct_construction_validates_too() -> None:
    with pytest.raises(ProtocolError) as info:
        Act(table="t1", action="raise", amount=-5)
    assert info.value.code == "bad_amount"
    with pytest.raises(ProtocolError):
        Sit(table="t1", seat=99, buy_in=10)


# --- Chat, show_hands, resume, history, hand --------------------------------------------
def test_chat_text() -> None:
    req = parse_request({"type": "chat", "table": "t", "text": "  nice hand 👍🏽 👨‍👩‍👧 "})
    assert isinstance(req, Chat) and req.text == "nice hand 👍🏽 👨‍👩‍👧"
    assert parse_request({"type": "chat", "table": "t", "text": "x" * 200})


@pytest.mark.parametrize("text", ["", "  ", "x" * 201, "a\x1bb", "\u202egnp", "\ue000", 5,
                                  "a\ud800"])
def test_bad_chat_text(text: Any) -> None:
    err = _err({"type": "chat", "table": "t", "text": text})
    assert (err.code, err.field) == ("bad_field", "text")


def test_show_hands() -> None:
    req = parse_request({"type": "show_hands", "table": "t", "hand": "h1", "seats": [2, 0]})
    assert req.to_dict() == {"type": "show_hands", "rid": None, "table": "t", "hand": "h1",
                             "seats": [2, 0]}
    assert _code({"type": "show_hands", "table": "t", "hand": "h1", "seats": [1, 1]}) == (
        "bad_field")
    assert _code({"type": "show_hands", "table": "t", "hand": -1}) == "bad_field"
    assert _code({"type": "show_hands", "table": "t", "hand": True}) == "bad_field"


@pytest.mark.parametrize("since, code", [(-1, "bad_field"), ("41", "bad_field"),
                                         (1.0, "bad_field"), (None, "missing_field")])
def test_bad_resume(since: Any, code: str) -> None:
    assert _code({"type": "resume", "table": "t", "since": since}) == code


def test_history_defaults_and_limits() -> None:
    assert _parse(History, {"type": "history"}).limit == 20
    assert _parse(History, {"type": "history", "limit": 100}).limit == 100
    for bad in (0, 101, "5", True):
        assert _code({"type": "history", "limit": bad}) == "bad_field"


def test_hand_ids() -> None:
    assert _parse(Hand, {"type": "hand", "hand": 0}).hand == 0
    assert _parse(Hand, {"type": "hand", "hand": "t1-00042"}).hand == "t1-00042"
    assert _code({"type": "hand", "hand": "x" * 65}) == "bad_field"


def test_ping_echo() -> None:
    assert _parse(Ping, {"type": "ping", "t": 12.5}).t == 12.5
    assert _code({"type": "ping", "t": "now"}) == "bad_field"
    assert _code({"type": "ping", "t": True}) == "bad_field"
