"""`protocol.errors.ErrorCode`: every code once, a StrEnum equal to its code, with its message;
`ERROR_CODES` is the same as a table."""

from __future__ import annotations

import orjson

from protocol import ERROR_CODES, ErrorCode, ProtocolError, messages


def test_error_codes_table_is_the_enum() -> None:
    assert {code.value: code.message for code in ErrorCode} == ERROR_CODES
    assert ErrorCode.TABLE_FULL.value == "table_full" and ErrorCode("table_full").message == (
        ERROR_CODES["table_full"])
    assert all(code.name == code.value.upper() for code in ErrorCode)


def test_a_member_goes_on_the_wire_as_its_code() -> None:
    err = ProtocolError(ErrorCode.BAD_SEAT, rid=4)
    assert err.message == ErrorCode.BAD_SEAT.message
    wire = orjson.loads(orjson.dumps(messages.error(4, ErrorCode.BAD_SEAT)))
    assert wire["code"] == "bad_seat" and wire["message"] == ErrorCode.BAD_SEAT.message
