"""Server messages and error codes: names from docs/protocol.md exist and carry their fields."""

from __future__ import annotations

import re

import pytest

from protocol import (
    ERROR_CODES,
    EVENT_TYPES,
    MESSAGE_FIELDS,
    TABLE_EVENT_TYPES,
    ProtocolError,
    check_server_message,
    messages,
)

PROTOCOL_MD_EVENTS = ("snapshot", "seated", "left", "sat_out", "sat_in", "hand_started",
                      "posted", "dealt", "board", "turn", "acted", "showdown", "mucked",
                      "pot_awarded", "hand_ended", "chat", "dealer", "settled", "jackpot")

REQUIRED_CODES = (
    "not_your_turn", "bad_amount", "bad_action", "table_full", "seat_taken", "unknown_table",
    "unknown_type", "malformed", "oversized", "bad_field", "missing_field", "rate_limited",
    "unauthorized", "insufficient_funds", "not_seated", "already_seated", "hand_in_progress",
    "bad_deck", "test_mode_only", "not_allowed", "chat_disabled", "bad_credentials",
    "name_taken", "unknown_hand", "server_busy", "shutting_down", "internal_error", "no_hand",
    "bad_discard",
)


def test_protocol_md_events_exist() -> None:
    for kind in (*PROTOCOL_MD_EVENTS, "drew", "welcome"):
        assert kind in EVENT_TYPES
        assert callable(getattr(messages, kind))


def test_table_events_require_table_and_seq() -> None:
    for kind in TABLE_EVENT_TYPES:
        assert MESSAGE_FIELDS[kind][0][:2] == ("table", "seq")
    assert "seq" not in MESSAGE_FIELDS["jackpot"][0] + MESSAGE_FIELDS["jackpot"][1]


def test_every_builder_is_documented() -> None:
    for kind in (*EVENT_TYPES, "ok", "error", "pong"):
        doc = getattr(messages, kind).__doc__
        assert doc and f"``{kind}``" in doc


@pytest.mark.parametrize("code", REQUIRED_CODES)
def test_required_error_codes(code: str) -> None:
    assert code in ERROR_CODES


def test_error_codes_are_snake_case_with_messages() -> None:
    for code, text in ERROR_CODES.items():
        assert re.fullmatch(r"[a-z]+(_[a-z0-9]+)*", code)
        assert text and text[0].isupper() and text.endswith(".")


def test_error_builder() -> None:
    assert messages.error(3, "table_full") == {
        "type": "error", "rid": 3, "code": "table_full", "message": ERROR_CODES["table_full"]}
    assert messages.error(None, "malformed", "bad JSON")["message"] == "bad JSON"
    with pytest.raises(ValueError):
        messages.error(1, "no_such_code")


def test_protocol_error() -> None:
    err = ProtocolError("bad_amount", rid=7, field="amount")
    assert isinstance(err, ValueError)
    assert err.message == ERROR_CODES["bad_amount"]
    assert err.to_message() == messages.error(7, "bad_amount")
    assert str(err).startswith("bad_amount")
    with pytest.raises(ValueError):
        ProtocolError("made_up")


def test_ok_carries_result_fields_and_null_rid() -> None:
    assert messages.ok(None, table="t9") == {"type": "ok", "rid": None, "table": "t9"}


def test_private_fields_are_optional() -> None:
    public = messages.turn("t", 3, seat=1, deadline=10.0)
    private = messages.turn("t", 3, seat=1, deadline=10.0, options={"fold": True})
    assert "options" not in public and private["options"] == {"fold": True}
    assert "cards" not in messages.drew("t", 4, seat=2, count=3)


def test_check_server_message() -> None:
    assert check_server_message({"type": "mucked", "table": "t", "seq": 1, "seat": 0}) == (
        "mucked")
    with pytest.raises(ProtocolError) as info:
        check_server_message({"type": "mucked", "table": "t", "seq": 1})
    assert info.value.code == "missing_field"
    with pytest.raises(ProtocolError) as info:
        check_server_message({"type": "act"})
    assert info.value.code == "unknown_type"
