"""The edges of the wire format (docs/protocol.md): the refusals and optional fields that the
round trips and fuzzers do not reach on their own, one behaviour each."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path
from typing import Any

import pytest

from protocol import JSON_CODEC, MSGPACK_CODEC, ProtocolError, check_message, parse_request
from protocol import messages as m
from protocol.constants import (
    MAX_CHAT_LEN,
    MAX_DEPTH,
    MAX_LOBBY_LIMIT,
    MAX_NAME_LEN,
    MAX_SAFE_INT,
    MAX_SEATS,
)
from protocol.errors import ERROR_CODES
from protocol.requests import Host, Mute, Watch


def _nested(depth: int) -> dict[str, Any]:
    """A message whose innermost object sits at ``depth`` (the message itself is 1)."""
    inner: dict[str, Any] = {}
    for _ in range(depth - 2):
        inner = {"x": inner}
    return {"type": "ping", "x": inner}


# --- codec ------------------------------------------------------------------------------
@pytest.mark.parametrize("rid", [True, False])
def test_a_boolean_rid_is_not_echoed_on_a_malformed_frame(rid: bool) -> None:
    with pytest.raises(ProtocolError) as err:
        check_message({"type": "ping", "rid": rid, "x": float("nan")})
    assert err.value.code == "malformed" and err.value.rid is None


def test_objects_nested_beyond_the_depth_limit_are_malformed() -> None:
    assert check_message(_nested(MAX_DEPTH))["type"] == "ping"
    with pytest.raises(ProtocolError, match="nesting deeper") as err:
        check_message(_nested(MAX_DEPTH + 1))
    assert err.value.code == "malformed"


@pytest.mark.parametrize("codec", [JSON_CODEC, MSGPACK_CODEC])
def test_encoding_refuses_messages_nested_beyond_the_depth_limit(codec: Any) -> None:
    codec.encode(_nested(MAX_DEPTH))
    with pytest.raises(ProtocolError, match="nesting deeper") as err:
        codec.encode(_nested(MAX_DEPTH + 1))
    assert err.value.code == "malformed"


@pytest.mark.parametrize("codec", [JSON_CODEC, MSGPACK_CODEC])
def test_unchecked_encoding_of_a_foreign_value_is_malformed_not_a_crash(codec: Any) -> None:
    with pytest.raises(ProtocolError, match="cannot encode") as err:
        codec.encode({"type": "ping", "x": object()}, check=False)
    assert err.value.code == "malformed"


# --- errors -----------------------------------------------------------------------------
def test_protocol_error_text_and_answer() -> None:
    exc = ProtocolError("server_busy", "try later", rid=7)
    assert str(exc) == "server_busy: try later"
    assert repr(exc) == "ProtocolError('server_busy', 'try later', rid=7)"
    assert exc.to_message() == {"type": "error", "rid": 7, "code": "server_busy",
                                "message": "try later"}
    exc.retry_after = 30
    assert exc.to_message()["retry_after"] == 30


# --- request fields ---------------------------------------------------------------------
def test_overlong_names_and_chat_are_refused_before_normalising() -> None:
    for obj, field in (
        ({"type": "hello", "guest": "a" * (4 * MAX_NAME_LEN + 1)}, "guest"),
        ({"type": "chat", "table": "t", "text": "a" * (4 * MAX_CHAT_LEN + 1)}, "text"),
        ({"type": "chat", "table": "t", "text": 5}, "text"),
    ):
        with pytest.raises(ProtocolError) as err:
            parse_request(obj)
        assert (err.value.code, err.value.field) == ("bad_field", field)


@pytest.mark.parametrize("free", [-1, MAX_SEATS + 1, "2", True])
def test_lobby_free_seats_out_of_range(free: Any) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_request({"type": "tables", "free_seats": free})
    assert (err.value.code, err.value.field) == ("bad_field", "free_seats")


@pytest.mark.parametrize("limit", [0, MAX_LOBBY_LIMIT + 1, "5", True])
def test_lobby_page_size_out_of_range(limit: Any) -> None:
    assert parse_request({"type": "tables", "limit": MAX_LOBBY_LIMIT}).to_dict()["limit"] == (
        MAX_LOBBY_LIMIT)
    with pytest.raises(ProtocolError) as err:
        parse_request({"type": "tables", "limit": limit})
    assert (err.value.code, err.value.field) == ("bad_field", "limit")


@pytest.mark.parametrize("key", ["", "k" * 33])
def test_stakes_keys_must_be_short_strings(key: str) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_request({"type": "create_table", "variant": "holdem", "structure": "no_limit",
                       "stakes": {key: 5}, "seats": 6})
    assert (err.value.code, err.value.field) == ("bad_field", "stakes")


@pytest.mark.parametrize("seats", ["0,1", list(range(MAX_SEATS + 1))])
def test_show_hands_seats_must_be_a_short_list(seats: Any) -> None:
    with pytest.raises(ProtocolError) as err:
        parse_request({"type": "show_hands", "table": "t", "hand": 1, "seats": seats})
    assert (err.value.code, err.value.field) == ("bad_field", "seats")


@pytest.mark.parametrize("t", [MAX_SAFE_INT + 1, -MAX_SAFE_INT - 1.0])
def test_ping_time_out_of_range(t: float) -> None:
    with pytest.raises(ProtocolError, match="out of range") as err:
        parse_request({"type": "ping", "t": t})
    assert (err.value.code, err.value.field) == ("bad_field", "t")


def test_a_required_field_given_as_none_to_the_constructor_is_missing() -> None:
    with pytest.raises(ProtocolError) as err:
        Watch(table=None)  # type: ignore[arg-type]
    assert (err.value.code, err.value.field) == ("missing_field", "table")


def test_mute_takes_seat_or_name_not_both() -> None:
    assert Mute(table="t", seat=2).seat == 2
    with pytest.raises(ProtocolError) as both:
        Mute(table="t", seat=2, name="rail")
    assert both.value.code == "bad_field"
    with pytest.raises(ProtocolError) as neither:
        Mute(table="t")
    assert neither.value.code == "missing_field"


def test_a_host_action_names_what_it_acts_on() -> None:
    """``approve``/``refuse`` need ``player``, ``remove``/``transfer`` a ``seat``, ``change``
    stakes or settings; the others need nothing more (docs/protocol.md, Private games)."""
    for action, field in (("approve", "player"), ("refuse", "player"), ("remove", "seat"),
                          ("transfer", "seat"), ("change", "settings")):
        with pytest.raises(ProtocolError) as err:
            parse_request({"type": "host", "table": "t", "action": action})
        assert (err.value.code, err.value.field) == ("missing_field", field), action
    assert Host(table="t", action="change", settings={"pause": 5}).settings == {"pause": 5}
    assert Host(table="t", action="pause").action == "pause"
    with pytest.raises(ProtocolError) as bad:
        Host(table="t", action="dance")
    assert bad.value.code == "bad_field"


# --- server messages --------------------------------------------------------------------
def test_a_guest_is_tagged_where_it_is_seated_and_where_it_chats() -> None:
    named = m.seated("t", 1, seat=0, name="Ann", stack=100)
    assert "guest" not in named and "tag" not in named
    guest = m.seated("t", 2, seat=1, name="Bob", stack=100, guest="g-7")
    assert (guest["guest"], guest["tag"]) == (True, "g-7")
    said = m.chat("t", 3, text="hi", name="Bob", guest="g-7")
    assert (said["guest"], said["tag"], said["name"]) == (True, "g-7", "Bob")
    assert "guest" not in m.chat("t", 4, text="hi", seat=0)


def test_turn_carries_the_time_bank_and_the_bank_flag_only_when_given() -> None:
    plain = m.turn("t", 1, seat=0, deadline=10.0)
    assert "time_bank" not in plain and "in_bank" not in plain
    banked = m.turn("t", 2, seat=0, deadline=40.0, time_bank=30.0, in_bank=True)
    assert (banked["time_bank"], banked["in_bank"]) == (30.0, True)


# --- the JS export as a script ----------------------------------------------------------
def test_export_js_runs_as_a_module(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "protocol.js"
    monkeypatch.setattr(sys, "argv", ["export_js", "-o", str(out)])
    monkeypatch.delitem(sys.modules, "protocol.export_js", raising=False)
    with pytest.raises(SystemExit) as done:
        runpy.run_module("protocol.export_js", run_name="__main__")
    assert done.value.code == 0
    assert "export const ERROR_CODES" in out.read_text(encoding="utf-8")


def test_moved_carries_the_url_and_the_table() -> None:
    """docs/protocol.md wave 2: `moved` names the process to reconnect to and the table."""
    exc = ProtocolError.moved("ws://b:8080/ws", table="t7", rid=3)
    assert exc.to_message() == {"type": "error", "rid": 3, "code": "moved",
                                "message": ERROR_CODES["moved"], "url": "ws://b:8080/ws",
                                "table": "t7"}
    placed = ProtocolError.moved("ws://c:8080/ws").to_message()  # create_table: no table yet
    assert placed["url"] == "ws://c:8080/ws" and "table" not in placed
    assert m.check_server_message(placed) == "error"


def test_unknown_table_names_the_id_asked_for_and_nothing_else() -> None:
    """Issue 23: the one `unknown_table` answer (a table that does not exist, or a private
    one that does not admit the asker): the id as asked, cut to 64 characters."""
    assert ProtocolError.unknown_table("t7-abc", rid=4).to_message() == {
        "type": "error", "rid": 4, "code": "unknown_table", "message": "no table 't7-abc'"}
    assert ProtocolError.unknown_table("x" * 80).message == f"no table {'x' * 64!r}"
