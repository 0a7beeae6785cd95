"""Codec hardening: every kind of bad frame is one ProtocolError with the right code."""

from __future__ import annotations

from typing import Any

import msgpack
import orjson
import pytest

from protocol import (
    JSON_CODEC,
    MAX_DEPTH,
    MAX_FRAME_BYTES,
    MSGPACK_CODEC,
    SUBPROTOCOL_JSON,
    SUBPROTOCOL_MSGPACK,
    ProtocolError,
    check_message,
    codec_for,
    parse_seat_map,
    seat_map,
    select_subprotocol,
)


def _code(fn: Any, *args: Any, **kwargs: Any) -> str:
    with pytest.raises(ProtocolError) as info:
        fn(*args, **kwargs)
    return info.value.code


def _nested(depth: int) -> dict[str, Any]:
    """A message whose containers nest ``depth`` deep (the top object counts as 1)."""
    obj: Any = 1
    for _ in range(depth - 1):
        obj = [obj]
    return {"type": "x", "deep": obj}


# --- Negotiation ------------------------------------------------------------------------
def test_subprotocol_names() -> None:
    assert SUBPROTOCOL_JSON == "poker.v1.json"
    assert SUBPROTOCOL_MSGPACK == "poker.v1.msgpack"


def test_select_subprotocol_honours_first_supported_offer() -> None:
    assert select_subprotocol(["poker.v1.msgpack", "poker.v1.json"]) == SUBPROTOCOL_MSGPACK
    assert select_subprotocol(["chat", "poker.v1.json"]) == SUBPROTOCOL_JSON
    assert select_subprotocol([]) is None
    assert select_subprotocol(["poker.v2.json"]) is None


def test_codec_for() -> None:
    assert codec_for(None) is JSON_CODEC
    assert codec_for(SUBPROTOCOL_JSON) is JSON_CODEC
    assert codec_for(SUBPROTOCOL_MSGPACK) is MSGPACK_CODEC
    with pytest.raises(KeyError):
        codec_for("nope")


def test_frame_kinds() -> None:
    msg = {"type": "ping", "rid": 1}
    assert JSON_CODEC.encode(msg) == '{"type":"ping","rid":1}'
    assert isinstance(MSGPACK_CODEC.encode(msg), bytes)
    assert not JSON_CODEC.binary and MSGPACK_CODEC.binary


# --- Wrong frame kind, encoding errors --------------------------------------------------
def test_bytes_on_json_is_malformed() -> None:
    assert _code(JSON_CODEC.decode, b'{"type":"ping"}') == "malformed"


def test_str_on_msgpack_is_malformed() -> None:
    assert _code(MSGPACK_CODEC.decode, '{"type":"ping"}') == "malformed"


def test_msgpack_accepts_bytearray_and_memoryview() -> None:
    frame = MSGPACK_CODEC.encode({"type": "ping"})
    assert MSGPACK_CODEC.decode(bytearray(frame)) == {"type": "ping"}
    assert MSGPACK_CODEC.decode(memoryview(frame)) == {"type": "ping"}


def test_json_lone_surrogate_is_malformed() -> None:
    assert _code(JSON_CODEC.decode, '{"type":"\ud800"}') == "malformed"


def test_msgpack_invalid_utf8_is_malformed() -> None:
    frame = b"\x81\xa4type\xa2\xff\xfe"
    assert _code(MSGPACK_CODEC.decode, frame) == "malformed"


@pytest.mark.parametrize("text", ["", "{", '{"type": "x",}', "nul", "{'type': 'x'}", "NaN",
                                  '{"type":"x","n":NaN}', '{"type":"x","n":Infinity}',
                                  '{"type":"x"} {"type":"y"}'])
def test_invalid_json_is_malformed(text: str) -> None:
    assert _code(JSON_CODEC.decode, text) == "malformed"


@pytest.mark.parametrize("frame", [b"", b"\xc1", b"\x81\xa4type", b"\x82\xa4type\xa1x",
                                   msgpack.packb({"type": "x"}) + b"\x00"])
def test_invalid_msgpack_is_malformed(frame: bytes) -> None:
    assert _code(MSGPACK_CODEC.decode, frame) == "malformed"


# --- Shape ------------------------------------------------------------------------------
@pytest.mark.parametrize("top", [[1, 2], "type", 3, None, True, 1.5])
def test_non_object_top_level_is_malformed(top: Any) -> None:
    assert _code(JSON_CODEC.decode, orjson.dumps(top).decode()) == "malformed"
    assert _code(MSGPACK_CODEC.decode, msgpack.packb(top)) == "malformed"


@pytest.mark.parametrize("obj", [{}, {"rid": 1}, {"type": 1}, {"type": ""}, {"type": None},
                                 {"type": ["ping"]}, {"type": True}])
def test_missing_or_non_string_type_is_malformed(obj: dict[str, Any]) -> None:
    with pytest.raises(ProtocolError) as info:
        JSON_CODEC.decode(orjson.dumps(obj).decode())
    assert info.value.code == "malformed"
    assert info.value.field == "type"
    assert _code(MSGPACK_CODEC.decode, msgpack.packb(obj)) == "malformed"


def test_malformed_error_keeps_a_readable_rid() -> None:
    with pytest.raises(ProtocolError) as info:
        JSON_CODEC.decode('{"rid": "abc", "type": 5}')
    assert info.value.rid == "abc"
    assert info.value.to_message() == {"type": "error", "rid": "abc", "code": "malformed",
                                       "message": info.value.message}


def test_nesting_at_the_limit_is_fine_and_deeper_is_malformed() -> None:
    ok = _nested(MAX_DEPTH)
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        assert codec.decode(codec.encode(ok, check=False)) == ok
        deep = _nested(MAX_DEPTH + 1)
        assert _code(codec.decode, codec.encode(deep, check=False)) == "malformed"
        assert codec.decode(codec.encode(deep, check=False), max_depth=64) == deep


def test_hostile_nesting_is_malformed_not_a_crash() -> None:
    assert _code(JSON_CODEC.decode, '{"type":"x","a":' + "[" * 5000 + "]" * 5000 + "}") == (
        "malformed"
    )
    assert _code(MSGPACK_CODEC.decode, b"\x82\xa4type\xa1x\xa1a" + b"\x91" * 5000 + b"\xc0") == (
        "malformed"
    )


# --- Size -------------------------------------------------------------------------------
def test_oversized_frames() -> None:
    big = {"type": "chat", "text": "x" * MAX_FRAME_BYTES}
    assert _code(JSON_CODEC.decode, JSON_CODEC.encode(big)) == "oversized"
    assert _code(MSGPACK_CODEC.decode, MSGPACK_CODEC.encode(big)) == "oversized"


def test_frame_limit_counts_utf8_bytes() -> None:
    frame = JSON_CODEC.encode({"type": "chat", "text": "\u20ac" * 400})  # 3 bytes each
    assert len(frame) < 1024 < len(frame.encode())
    assert _code(JSON_CODEC.decode, frame, max_bytes=1024) == "oversized"
    assert JSON_CODEC.decode(frame, max_bytes=2048)["type"] == "chat"


def test_frame_limit_is_configurable_per_call() -> None:
    msg = {"type": "chat", "text": "x" * 200}
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        frame = codec.encode(msg)
        assert _code(codec.decode, frame, max_bytes=100) == "oversized"
        assert codec.decode(frame, max_bytes=1000) == msg


def test_frame_exactly_at_the_limit_is_accepted() -> None:
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        frame = codec.encode({"type": "x"})
        size = len(frame.encode() if isinstance(frame, str) else frame)
        assert codec.decode(frame, max_bytes=size) == {"type": "x"}
        assert _code(codec.decode, frame, max_bytes=size - 1) == "oversized"


# --- Values -----------------------------------------------------------------------------
def test_msgpack_ext_types_are_malformed() -> None:
    assert _code(MSGPACK_CODEC.decode,
                 msgpack.packb({"type": "x", "e": msgpack.ExtType(5, b"ab")})) == "malformed"


def test_msgpack_timestamps_are_malformed() -> None:
    frame = msgpack.packb({"type": "x", "t": msgpack.Timestamp(1, 0)})
    assert _code(MSGPACK_CODEC.decode, frame) == "malformed"


def test_msgpack_binary_values_are_malformed() -> None:
    frame = msgpack.packb({"type": "x", "b": b"\x00"}, use_bin_type=True)
    assert _code(MSGPACK_CODEC.decode, frame) == "malformed"


@pytest.mark.parametrize("key", [1, -1, 1.5, True, None, b"k"])
def test_msgpack_non_string_keys_are_malformed(key: Any) -> None:
    frame = msgpack.packb({"type": "x", "m": {key: 1}}, use_bin_type=True, strict_types=False)
    assert _code(MSGPACK_CODEC.decode, frame) == "malformed"


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
def test_non_finite_floats_are_malformed(value: float) -> None:
    assert _code(MSGPACK_CODEC.decode, msgpack.packb({"type": "x", "f": value})) == "malformed"
    assert _code(JSON_CODEC.encode, {"type": "x", "f": value}) == "malformed"
    assert _code(MSGPACK_CODEC.encode, {"type": "x", "f": value}) == "malformed"


@pytest.mark.parametrize("value", [2**53, -(2**53), 2**63 - 1, -(2**63), 2**64 - 1])
def test_integers_beyond_2_53_are_malformed(value: int) -> None:
    assert _code(JSON_CODEC.decode, '{"type":"x","n":' + str(value) + '}') == "malformed"
    assert _code(MSGPACK_CODEC.decode, msgpack.packb({"type": "x", "n": value})) == "malformed"
    assert _code(JSON_CODEC.encode, {"type": "x", "n": value}) == "malformed"


def test_huge_json_numbers_are_malformed() -> None:
    for text in ("1e400", "123456789012345678901234567890", "1e20"):
        assert _code(JSON_CODEC.decode, '{"type":"x","n":' + text + '}') == "malformed"


def test_safe_extremes_are_fine() -> None:
    msg = {"type": "x", "a": 2**53 - 1, "b": -(2**53 - 1), "f": 1.5e15, "z": -0.0}
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        assert codec.decode(codec.encode(msg)) == msg


def test_encode_refuses_non_string_keys() -> None:
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        assert _code(codec.encode, {"type": "x", "winners": {3: 100}}) == "malformed"
        assert _code(codec.encode, {"type": "x", "s": {1, 2}}) == "malformed"


def test_encode_accepts_tuples_as_arrays() -> None:
    for codec in (JSON_CODEC, MSGPACK_CODEC):
        assert codec.decode(codec.encode({"type": "x", "c": ("As", "Kd")})) == {
            "type": "x", "c": ["As", "Kd"]}


def test_check_message() -> None:
    assert check_message({"type": "x"}) == {"type": "x"}
    assert _code(check_message, [{"type": "x"}]) == "malformed"
    assert _code(check_message, {"type": "x", "b": b""}) == "malformed"


# --- Seat maps --------------------------------------------------------------------------
def test_seat_map_round_trip() -> None:
    assert seat_map({0: 5, 9: 7}) == {"0": 5, "9": 7}
    assert parse_seat_map({"0": 5, "9": 7}) == {0: 5, 9: 7}


@pytest.mark.parametrize("bad", [{"x": 1}, {"-1": 1}, {"1.0": 1}, {"\u0663": 1}, [1], "1"])
def test_parse_seat_map_refuses_non_seats(bad: Any) -> None:
    assert _code(parse_seat_map, bad) == "bad_field"


@pytest.mark.parametrize("codec", [JSON_CODEC, MSGPACK_CODEC])
def test_trusted_decode_skips_only_the_value_walk(codec: Any) -> None:
    """``trusted=True`` (a bot reading the server's frames) still needs an object with a
    ``type``; the default (every frame a server reads) refuses a value outside the model."""
    big = {"type": "x", "n": [2**53]}  # beyond MAX_SAFE_INT
    frame = codec.encode(big, check=False)
    with pytest.raises(ProtocolError):
        codec.decode(frame)
    assert codec.decode(frame, trusted=True) == big
    with pytest.raises(ProtocolError):
        codec.decode(codec.encode({"rid": 1}, check=False), trusted=True)
